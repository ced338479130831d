import { describe, expect, it, vi } from 'vitest';
import { CloudBrokerAuth, isOwnClientId } from '../../../cloud/broker-auth.js';
import { hashMosquittoPassword, verifyMosquittoPassword } from '../../../shared/sync/mosquitto-password.js';

// Counts the PBKDF2 checks (the cache exists to skip them).
vi.mock('../../../shared/sync/mosquitto-password.js', async (original) => {
  const real = await original<typeof import('../../../shared/sync/mosquitto-password.js')>();
  return { ...real, verifyMosquittoPassword: vi.fn(real.verifyMosquittoPassword) };
});
const verifications = () => vi.mocked(verifyMosquittoPassword).mock.calls.length;

/**
 * docs/sync.md "Trust" and the broker ACL (deploy/mosquitto/acl): a site publishes only on its own
 * `up/#` and `status`, reads only its own `down/#`; the cloud uses `yards/#`.
 */
describe('the embedded broker’s logins and topic rules (cloud/broker-auth.ts)', () => {
  const hashes = new Map([
    ['site-a', hashMosquittoPassword('site-a-password', { iterations: 1 })],
    // Usernames that are no site id are refused before any lookup.
    ['site/a', hashMosquittoPassword('site-a-password', { iterations: 1 })],
  ]);
  let lookups = 0;
  let clock = 1_000;
  const auth = (cacheMs?: number) =>
    new CloudBrokerAuth({
      sites: {
        passwordHash: async (id: string) => {
          lookups += 1;
          return hashes.get(id);
        },
      },
      cloudUsername: 'cloud',
      cloudPassword: 'cloud-password',
      now: () => clock,
      ...(cacheMs === undefined ? {} : { cacheMs }),
    });

  it('the cloud logs in with its password only; without one configured, never', async () => {
    const a = auth();
    expect(await a.authenticate('cloud', 'cloud-password')).toBe(true);
    expect(await a.authenticate('cloud', 'cloud-passwore')).toBe(false);
    expect(await a.authenticate('cloud', '')).toBe(false);
    expect(await a.authenticate('cloud', undefined)).toBe(false);
    expect(await a.authenticate(undefined, 'cloud-password')).toBe(false);
    const none = new CloudBrokerAuth({
      sites: { passwordHash: async () => undefined },
      cloudUsername: 'cloud',
      cloudPassword: undefined,
    });
    expect(await none.authenticate('cloud', 'anything')).toBe(false);
    const empty = new CloudBrokerAuth({
      sites: { passwordHash: async () => undefined },
      cloudUsername: 'cloud',
      cloudPassword: '',
    });
    expect(await empty.authenticate('cloud', '')).toBe(false);
  });

  it('a verified password skips the PBKDF2 until the cache time ends; wrong ones are always checked', async () => {
    const a = auth(10_000);
    clock = 1_000;
    const first = verifications();
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(true);
    expect(verifications()).toBe(first + 1);
    clock = 10_999;
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(true);
    expect(verifications()).toBe(first + 1);
    expect(await a.authenticate('site-a', 'wrong')).toBe(false);
    expect(verifications()).toBe(first + 2);
    clock = 11_000;
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(true);
    expect(verifications()).toBe(first + 3);
    // A failed check is not remembered.
    clock = 1_000;
    const b = auth(10_000);
    expect(await b.authenticate('site-a', 'wrong')).toBe(false);
    expect(await b.authenticate('site-a', 'wrong')).toBe(false);
    expect(verifications()).toBe(first + 5);
  });

  it('the default cache time is one minute, on the wall clock', async () => {
    const a = new CloudBrokerAuth({
      sites: { passwordHash: async (id: string) => hashes.get(id) },
      cloudUsername: 'cloud',
      cloudPassword: 'x',
    });
    const first = verifications();
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(true);
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(true);
    expect(verifications()).toBe(first + 1);
    const later = new CloudBrokerAuth({
      sites: { passwordHash: async (id: string) => hashes.get(id) },
      cloudUsername: 'cloud',
      cloudPassword: 'x',
      now: () => clock,
    });
    clock = 0;
    await later.authenticate('site-a', 'site-a-password');
    clock = 59_999;
    await later.authenticate('site-a', 'site-a-password');
    expect(verifications()).toBe(first + 2);
    clock = 60_000;
    await later.authenticate('site-a', 'site-a-password');
    expect(verifications()).toBe(first + 3);
  });

  it('at most 10,000 logins are remembered: the cache then starts again', async () => {
    const many = new Map<string, string>();
    const hash = hashMosquittoPassword('pw', { iterations: 1 });
    for (let i = 0; i <= 10_000; i += 1) many.set(`s${i}`, hash);
    const a = new CloudBrokerAuth({
      sites: { passwordHash: async (id: string) => many.get(id) },
      cloudUsername: 'cloud',
      cloudPassword: 'x',
      now: () => 1,
    });
    for (let i = 0; i < 10_000; i += 1) await a.authenticate(`s${i}`, 'pw');
    let first = verifications();
    await a.authenticate('s0', 'pw');
    expect(verifications()).toBe(first); // still remembered
    await a.authenticate('s10000', 'pw'); // the 10,001st: the cache is cleared first
    first = verifications();
    await a.authenticate('s10000', 'pw');
    expect(verifications()).toBe(first);
    await a.authenticate('s1', 'pw');
    expect(verifications()).toBe(first + 1);
  });

  it('a site logs in with its own password and client ids only', async () => {
    const a = auth();
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(true);
    expect(await a.authenticate('site-a', 'site-a-password', 'edge-site-a')).toBe(true);
    expect(await a.authenticate('site-a', 'site-a-password', 'edge-site-a:tool')).toBe(true);
    expect(await a.authenticate('site-a', 'site-a-password', 'edge-site-b')).toBe(false);
    expect(await a.authenticate('site-a', 'site-a-password', 'edge-site-ab')).toBe(false);
    expect(await a.authenticate('site-a', 'wrong')).toBe(false);
    expect(await a.authenticate('site-b', 'site-a-password')).toBe(false);
    expect(await a.authenticate('site/a', 'site-a-password')).toBe(false);
    expect(await a.authenticate('site-a', '')).toBe(false);
    expect(isOwnClientId('a', 'edge-a')).toBe(true);
    expect(isOwnClientId('a', 'edge-a:x')).toBe(true);
    expect(isOwnClientId('a', 'edge-ab')).toBe(false);
    expect(isOwnClientId('a', 'xedge-a')).toBe(false);
  });

  it('a verified password is remembered for a while against its hash; a rotated one stops at once', async () => {
    const a = auth(10_000);
    clock = 1_000;
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(true);
    // Remembered: a wrong password is still refused, the right one passes.
    expect(await a.authenticate('site-a', 'wrong')).toBe(false);
    clock = 10_999;
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(true);
    hashes.set('site-a', hashMosquittoPassword('rotated-password', { iterations: 1 }));
    expect(await a.authenticate('site-a', 'site-a-password')).toBe(false);
    expect(await a.authenticate('site-a', 'rotated-password')).toBe(true);
    hashes.set('site-a', hashMosquittoPassword('site-a-password', { iterations: 1 }));
    clock = 1_000;
    const before = lookups;
    await a.authenticate('site-a', 'site-a-password');
    expect(lookups).toBe(before + 1); // the hash is read on every login (one indexed row)
  });

  it('a site publishes only on its own up/# and status, and subscribes only to its own down/#', () => {
    const a = auth();
    const pub = (topic: string) => a.authorize('site-a', topic, 'publish');
    const sub = (topic: string) => a.authorize('site-a', topic, 'subscribe');
    expect(pub('yards/site-a/up/changes')).toBe(true);
    expect(pub('yards/site-a/up')).toBe(true);
    expect(pub('yards/site-a/status')).toBe(true);
    for (const topic of [
      'yards/site-a/down/cmd',
      'yards/site-a/down/changes',
      'yards/site-a/upx',
      'yards/site-a/status/x',
      'yards/site-b/up/changes',
      'yards/site-b/status',
      'yards/site-a',
      'yards/#',
      '#',
    ]) {
      expect(pub(topic), topic).toBe(false);
    }
    expect(sub('yards/site-a/down/#')).toBe(true);
    expect(sub('yards/site-a/down')).toBe(true);
    expect(sub('$share/g/yards/site-a/down/cmd')).toBe(true);
    for (const filter of [
      'yards/site-a/up/#',
      'yards/site-a/status',
      'yards/site-a/#',
      'yards/+/down/#',
      'yards/site-b/down/#',
      '#',
      '$share/g/yards/site-b/down/#',
      '$share//yards/site-a/down/#',
      '$share/g',
    ]) {
      expect(sub(filter), filter).toBe(false);
    }
  });

  it('the cloud uses yards/# only; an unknown or malformed user nothing', () => {
    const a = auth();
    expect(a.authorize('cloud', 'yards/site-a/down/cmd', 'publish')).toBe(true);
    expect(a.authorize('cloud', 'yards/#', 'subscribe')).toBe(true);
    expect(a.authorize('cloud', 'yards', 'subscribe')).toBe(true);
    expect(a.authorize('cloud', '$share/cloud/yards/+/up/changes', 'subscribe')).toBe(true);
    expect(a.authorize('cloud', '#', 'subscribe')).toBe(false);
    expect(a.authorize('cloud', 'other/topic', 'publish')).toBe(false);
    expect(a.authorize('cloud', 'yardsx/a', 'publish')).toBe(false);
    expect(a.authorize('site/a', 'yards/site/a/up/x', 'publish')).toBe(false);
    expect(a.authorize('+', 'yards/+/up/x', 'publish')).toBe(false);
  });
});
