import { describe, expect, it } from 'vitest';
import { CloudBrokerAuth, isOwnClientId } from '../../../cloud/broker-auth.js';
import { hashMosquittoPassword } from '../../../shared/sync/mosquitto-password.js';

/**
 * docs/sync.md "Trust" and the broker ACL (deploy/mosquitto/acl): a site publishes only on its own
 * `up/#` and `status`, reads only its own `down/#`; the cloud uses `yards/#`.
 */
describe('the embedded broker’s logins and topic rules (cloud/broker-auth.ts)', () => {
  const hashes = new Map([['site-a', hashMosquittoPassword('site-a-password', { iterations: 1 })]]);
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
