import { afterEach, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { Client, query, type Res } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Device cookies (shared/modules/auth/login-devices.ts, docs/api.md "Authentication"): strangers who
 * guess an account, or share an address with its owner, cannot keep the owner's own device out.
 * At the cloud on each database; the cookie's key is shared by the nodes of one PostgreSQL.
 */
const PIN = '2468';

/** The `name=value` of the Set-Cookie of an answer, and its attributes. */
function deviceCookie(res: Res): { pair: string; attributes: string } {
  const [cookie] = res.headers.getSetCookie().filter((c) => c.startsWith('yard_device_'));
  expect(cookie, 'a device cookie').toBeDefined();
  const [pair, ...attributes] = cookie!.split(';');
  return { pair: pair!.trim(), attributes: attributes.join(';') };
}

describe.each(TEST_DIALECTS)('login device cookies (%s)', (dialect) => {
  const apps: TestApp<AppDatabase>[] = [];
  afterEach(async () => {
    for (const app of apps.reverse()) await app.close();
    apps.length = 0;
  });
  const start = async (env: Record<string, string> = {}, postgresUrl?: string) => {
    const app = await startTestApp({
      dialect,
      env: { YARD_ROLE: 'cloud', YARD_TRUST_PROXY: '1', ...env },
      ...(postgresUrl ? { postgresUrl } : {}),
    });
    apps.push(app);
    return app;
  };
  /** A request from `address` (the proxy in front appended it), with the given device cookie. */
  const from = (app: TestApp<AppDatabase>, address: string, cookie?: string) => ({
    driver: (driverCode: string, pin: string) =>
      new Client(app.url).post(
        '/api/auth/driver-login',
        { driverCode, pin },
        { 'x-forwarded-for': address, ...(cookie ? { cookie } : {}) },
      ),
    user: (username: string, password: string) =>
      new Client(app.url).post(
        '/api/auth/login',
        { username, password },
        { 'x-forwarded-for': address, ...(cookie ? { cookie } : {}) },
      ),
  });

  it("after 40 wrong PINs from 40 addresses, the driver's own phone still logs in; a stranger's client is still limited", async () => {
    const t = await start();
    await seed(new Client(t.url, t.adminToken)).yardDriver({ driverCode: 'JOCKEY-7', pin: PIN });
    const first = await from(t, '203.0.113.50').driver('JOCKEY-7', PIN);
    expect(first.status).toBe(200);
    const phone = deviceCookie(first);
    expect(phone.attributes).toMatch(/HttpOnly/i);
    expect(phone.attributes).toMatch(/SameSite=Strict/i);
    expect(phone.attributes).toMatch(/Path=\/api\/auth/i);
    expect(phone.attributes).not.toMatch(/Secure/i); // plain HTTP here: Secure only over HTTPS
    const statuses: number[] = [];
    for (let i = 1; i <= 40; i++)
      statuses.push((await from(t, `198.51.100.${i}`).driver('JOCKEY-7', '0000')).status);
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    // The phone, with its cookie, from its usual address or another: in.
    expect((await from(t, '203.0.113.50', phone.pair).driver('JOCKEY-7', PIN)).status).toBe(200);
    expect((await from(t, '192.0.2.77', phone.pair).driver('JOCKEY-7', PIN)).status).toBe(200);
    // A client without the cookie, even with the right PIN, is held back with the strangers.
    const stranger = await from(t, '192.0.2.78').driver('JOCKEY-7', PIN);
    expect(stranger.status).toBe(429);
    expect(stranger.body.code).toBe('rate-limited');
    expect(Number(stranger.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("the admin's right password from a known device works after 30 failures by others from the same address", async () => {
    const t = await start();
    const office = '203.0.113.9';
    const known = deviceCookie(await from(t, office).user(ADMIN.username, ADMIN.password));
    for (let i = 0; i < 30; i++) expect((await from(t, office).user(`clerk-${i}`, 'wrong')).status).toBe(401);
    // From that address a stranger is refused, the right password or not ...
    expect((await from(t, office).user(ADMIN.username, ADMIN.password)).status).toBe(429);
    // ... but the admin's own browser gets in, however the name is typed (one account).
    expect((await from(t, office, known.pair).user(ADMIN.username, ADMIN.password)).status).toBe(200);
    expect((await from(t, office, known.pair).user('ADMIN', ADMIN.password)).status).toBe(200);
  });

  it("a device's own failures are limited: after YARD_LOGIN_ATTEMPTS_PER_DEVICE its cookie counts for nothing", async () => {
    const t = await start({ YARD_LOGIN_ATTEMPTS_PER_DEVICE: '3' });
    await seed(new Client(t.url, t.adminToken)).yardDriver({ driverCode: 'JOCKEY-8', pin: PIN });
    const phone = deviceCookie(await from(t, '203.0.113.60').driver('JOCKEY-8', PIN));
    for (let i = 1; i <= 30; i++) await from(t, `198.51.100.${i}`).driver('JOCKEY-8', '0000');
    // Three wrong PINs from the trusted phone are its own (401, not the strangers' 429) ...
    for (let i = 0; i < 3; i++)
      expect((await from(t, '203.0.113.60', phone.pair).driver('JOCKEY-8', '1111')).status).toBe(401);
    // ... then the cookie is spent: the phone is a stranger, and strangers are locked out.
    expect((await from(t, '203.0.113.60', phone.pair).driver('JOCKEY-8', PIN)).status).toBe(429);
  });

  it('a cookie proves nothing for another account, nor once altered', async () => {
    const t = await start({ YARD_LOGIN_ATTEMPTS_PER_ACCOUNT: '3' });
    const admin = new Client(t.url, t.adminToken);
    await seed(admin).yardDriver({ driverCode: 'JOCKEY-A', pin: PIN });
    await seed(admin).yardDriver({ driverCode: 'JOCKEY-B', pin: PIN });
    const cookieA = deviceCookie(await from(t, '203.0.113.70').driver('JOCKEY-A', PIN));
    const nameB = deviceCookie(await from(t, '203.0.113.71').driver('JOCKEY-B', PIN)).pair.split('=')[0];
    for (let i = 1; i <= 3; i++) await from(t, `198.51.100.${i}`).driver('JOCKEY-B', '0000');
    // A's cookie under B's name, and a cookie with a changed signature: strangers.
    const [nameA, valueA] = cookieA.pair.split('=') as [string, string];
    expect((await from(t, '203.0.113.70', `${nameB}=${valueA}`).driver('JOCKEY-B', PIN)).status).toBe(429);
    for (let i = 1; i <= 3; i++) await from(t, `198.51.100.${i + 10}`).driver('JOCKEY-A', '0000');
    const altered = `${nameA}=${valueA.slice(0, -2)}${valueA.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await from(t, '203.0.113.70', altered).driver('JOCKEY-A', PIN)).status).toBe(429);
    expect((await from(t, '203.0.113.70', cookieA.pair).driver('JOCKEY-A', PIN)).status).toBe(200);
  });

  it('per-account limits count a name however its letters are cased: admin, ADMIN, Admin are one budget', async () => {
    const t = await start({ YARD_LOGIN_ATTEMPTS_PER_ACCOUNT: '4' });
    const names = ['admin', 'ADMIN', 'Admin', 'aDmIn'];
    for (const [i, name] of names.entries())
      expect((await from(t, `198.51.100.${i + 1}`).user(name, 'wrong')).status).toBe(401);
    expect((await from(t, '198.51.100.9').user('ADMIN', ADMIN.password)).status).toBe(429);
    // Driver codes are matched as written: another case is another account, with a budget of its own.
    await seed(new Client(t.url, t.adminToken)).yardDriver({ driverCode: 'CASE-1', pin: PIN });
    for (let i = 1; i <= 4; i++) await from(t, `198.51.100.${i + 20}`).driver('case-1', '0000');
    expect((await from(t, '198.51.100.30').driver('CASE-1', PIN)).status).toBe(200);
  });

  if (dialect === 'postgres') {
    it('every node of one cloud trusts the cookie another node issued: the key is in the database', async () => {
      const one = await start();
      const two = await start({}, one.postgresUrl);
      await seed(new Client(one.url, one.adminToken)).yardDriver({ driverCode: 'JOCKEY-9', pin: PIN });
      const phone = deviceCookie(await from(one, '203.0.113.80').driver('JOCKEY-9', PIN));
      for (let i = 1; i <= 30; i++) await from(two, `198.51.100.${i}`).driver('JOCKEY-9', '0000');
      expect((await from(two, '192.0.2.1').driver('JOCKEY-9', PIN)).status).toBe(429);
      expect((await from(two, '203.0.113.80', phone.pair).driver('JOCKEY-9', PIN)).status).toBe(200);
      const keys = await query(one.db, "SELECT count(*) AS n FROM server_secret WHERE name = 'login-device'");
      expect(Number(keys[0].n)).toBe(1);
    });
  }
});
