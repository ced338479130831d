import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import {
  cookieName,
  cookieValue,
  DEVICE_COOKIE_DAYS,
  LoginDevices,
  MAX_REMEMBERED,
  newDeviceKey,
} from '../../../shared/modules/auth/login-devices.js';
import { accountKey } from '../../../shared/modules/auth/login-limits.js';

/** Device cookies (login-devices.ts): what makes a cookie trusted, and what spends it. */
const KEY = 'ab'.repeat(32);
const DAY = 24 * 60 * 60 * 1000;
const ACCOUNT = accountKey('driverCode', 'JOCKEY-7');

function devices(options: { maxFailures?: number; key?: () => Promise<string> } = {}) {
  const clock = new ManualClock(Date.parse('2026-04-01T06:00:00Z'));
  const loads: number[] = [];
  const d = new LoginDevices({
    key:
      options.key ??
      (async () => {
        loads.push(1);
        return KEY;
      }),
    clock,
    maxFailures: options.maxFailures ?? 3,
  });
  return { d, clock, loads };
}
const header = (c: { name: string; value: string }) => `${c.name}=${c.value}`;
const sign = (text: string) => createHmac('sha256', Buffer.from(KEY, 'hex')).update(text).digest('base64url');
const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('accountKey: the account a login names, matched as the login looks it up', () => {
  it('usernames without regard to ASCII letter case, and only ASCII (as lower() in SQL)', () => {
    expect(accountKey('username', 'ADMIN')).toBe('username:admin');
    expect(accountKey('username', 'aDmIn')).toBe(accountKey('username', 'admin'));
    expect(accountKey('username', 'ÉRIC')).toBe('username:Éric');
    expect(accountKey('username', 'ÉRIC')).not.toBe(accountKey('username', 'éric'));
  });

  it('driver codes as written, and a name that is no string as empty', () => {
    expect(accountKey('driverCode', 'J101')).toBe('driverCode:J101');
    expect(accountKey('driverCode', 'j101')).not.toBe(accountKey('driverCode', 'J101'));
    expect(accountKey('username', 42)).toBe('username:');
    expect(accountKey('driverCode', undefined)).toBe('driverCode:');
  });
});

describe('cookies', () => {
  it('one per account, named after a hash of it', () => {
    expect(cookieName(ACCOUNT)).toMatch(/^yard_device_[0-9a-f]{16}$/);
    expect(cookieName(ACCOUNT)).toBe(cookieName(ACCOUNT));
    expect(cookieName(ACCOUNT)).not.toBe(cookieName(accountKey('driverCode', 'JOCKEY-8')));
  });

  it('reads one cookie of a Cookie header', () => {
    expect(cookieValue('a=1; yard=x.y; b=2', 'yard')).toBe('x.y');
    expect(cookieValue(' yard = v=w ', 'yard')).toBe('v=w');
    expect(cookieValue('xyard=1; yardx=2', 'yard')).toBeUndefined();
    expect(cookieValue('=1; yard', 'yard')).toBeUndefined();
    expect(cookieValue(undefined, 'yard')).toBeUndefined();
  });

  it('a fresh key is 32 random bytes in hex', () => {
    expect(newDeviceKey()).toMatch(/^[0-9a-f]{64}$/);
    expect(newDeviceKey()).not.toBe(newDeviceKey());
  });
});

describe('LoginDevices', () => {
  it('trusts the cookie it issued for that account, for DEVICE_COOKIE_DAYS', async () => {
    const { d, clock } = devices();
    const cookie = await d.issue(ACCOUNT);
    expect(cookie.name).toBe(cookieName(ACCOUNT));
    expect(cookie.maxAgeMs).toBe(DEVICE_COOKIE_DAYS * DAY);
    const [who, nonce, expires] = cookie.value.split('.');
    expect(who).toBe(b64(ACCOUNT));
    expect(nonce).toMatch(/^[\w-]{22}$/);
    expect(Number(expires) * 1000).toBe(Math.floor((clock.now() + 180 * DAY) / 1000) * 1000);
    expect(await d.trusted(`other=1; ${header(cookie)}`, ACCOUNT)).toBe(nonce);
    // Every cookie has its own nonce.
    expect((await d.issue(ACCOUNT)).value.split('.')[1]).not.toBe(nonce);
    clock.set(Number(expires) * 1000 - 1);
    expect(await d.trusted(header(cookie), ACCOUNT)).toBe(nonce);
    clock.set(Number(expires) * 1000);
    expect(await d.trusted(header(cookie), ACCOUNT)).toBeUndefined();
  });

  it('trusts nothing else: no cookie, another account, a changed part, another shape', async () => {
    const { d } = devices();
    const cookie = await d.issue(ACCOUNT);
    const other = accountKey('driverCode', 'JOCKEY-8');
    const [who, nonce, expires, signature] = cookie.value.split('.') as [string, string, string, string];
    const as = (value: string, name = cookie.name) => d.trusted(`${name}=${value}`, ACCOUNT);
    expect(await d.trusted(undefined, ACCOUNT)).toBeUndefined();
    expect(await d.trusted(`${cookieName(other)}=${cookie.value}`, other)).toBeUndefined();
    expect(await as(cookie.value, cookieName(other))).toBeUndefined();
    expect(await as(`${who}.${nonce}x.${expires}.${signature}`)).toBeUndefined();
    expect(await as(`${who}.${nonce}.${Number(expires) + 1}.${signature}`)).toBeUndefined();
    expect(await as(`${who}.${nonce}.${expires}.${signature.slice(0, -1)}`)).toBeUndefined();
    expect(await as(`${who}.${nonce}.${expires}.${signature}A`)).toBeUndefined();
    expect(await as(`${who}.${nonce}.${expires}`)).toBeUndefined();
    expect(await as(`${cookie.value}.x`)).toBeUndefined();
    // Signed with the key, but naming another account, or with an expiry that is no number.
    const otherWho = `${b64(other)}.${nonce}.${expires}`;
    expect(await as(`${otherWho}.${sign(otherWho)}`)).toBeUndefined();
    const noNumber = `${who}.${nonce}.1e99`;
    expect(await as(`${noNumber}.${sign(noNumber)}`)).toBeUndefined();
    const signed = `${who}.${nonce}.${expires}`;
    expect(await as(`${signed}.${sign(signed)}`)).toBe(nonce);
  });

  it('spends a cookie after maxFailures failures of its own; other devices keep theirs', async () => {
    const { d } = devices({ maxFailures: 3 });
    const phone = await d.issue(ACCOUNT);
    const other = await d.issue(ACCOUNT);
    const nonce = (await d.trusted(header(phone), ACCOUNT))!;
    d.failed(nonce);
    d.failed(nonce);
    expect(await d.trusted(header(phone), ACCOUNT)).toBe(nonce);
    d.failed(nonce);
    expect(await d.trusted(header(phone), ACCOUNT)).toBeUndefined();
    expect(await d.trusted(header(other), ACCOUNT)).toBe(other.value.split('.')[1]);
    expect(d.remembered).toBe(1);
  });

  it('reads the key once; a key that failed to load is read again', async () => {
    const { d, loads } = devices();
    await d.issue(ACCOUNT);
    await d.issue(ACCOUNT);
    expect(loads).toHaveLength(1);
    let calls = 0;
    const flaky = devices({
      key: async () => {
        calls++;
        if (calls === 1) throw new Error('database busy');
        return KEY;
      },
    }).d;
    await expect(flaky.issue(ACCOUNT)).rejects.toThrow('database busy');
    const cookie = await flaky.issue(ACCOUNT);
    expect(await d.trusted(header(cookie), ACCOUNT)).toBe(cookie.value.split('.')[1]);
  });

  it('forgets the failures of expired cookies, and keeps at most MAX_REMEMBERED devices', () => {
    const { d, clock } = devices({ maxFailures: 5 });
    d.failed('old-1');
    d.failed('old-2');
    clock.advance(DEVICE_COOKIE_DAYS * DAY - 1);
    d.failed('new-1');
    expect(d.remembered).toBe(3);
    clock.advance(1);
    d.failed('new-2');
    expect(d.remembered).toBe(2);
    for (let i = 0; i < MAX_REMEMBERED + 5; i++) d.failed(`n-${i}`);
    expect(d.remembered).toBe(MAX_REMEMBERED);
  });

  it('counts again a device that failed before', () => {
    const { d } = devices({ maxFailures: 2 });
    d.failed('a');
    d.failed('b');
    d.failed('a');
    expect(d.remembered).toBe(2);
  });
});
