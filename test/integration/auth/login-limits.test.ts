import { afterEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../../../shared/auth/secrets.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { Client } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Login limits seen from outside: spraying account names from one address, guessing one account
 * from many addresses, forging X-Forwarded-For behind a proxy, and flooding the password hashing.
 * At the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes").
 */
const login = (
  app: TestApp<AppDatabase>,
  username: string,
  password: string,
  headers: Record<string, string> = {},
) => new Client(app.url).post('/api/auth/login', { username, password }, headers);

async function addDriver(app: TestApp<AppDatabase>, code: string) {
  const now = Date.now();
  await app.core.changes.insert(app.core.kysely, 'driver', {
    id: newId(),
    kind: 'yard',
    carrierId: null,
    firstName: 'Lim',
    lastName: 'It',
    phone: null,
    licenseNumber: null,
    licenseRegion: null,
    licenseExpiresOn: null,
    status: 'active',
    blockedReason: null,
    driverCode: code,
    pinHash: await hashSecret('1357'),
    notes: null,
    createdAt: now,
    updatedAt: now,
  });
}

describe.each(TEST_DIALECTS)('login limits (%s)', (dialect) => {
  let t: TestApp<AppDatabase> | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const start = (env: Record<string, string>) =>
    startTestApp({ dialect, env: { YARD_ROLE: 'cloud', ...env } });

  it('one address spraying many account names is limited, across both login routes', async () => {
    t = await start({ YARD_LOGIN_ATTEMPTS_PER_ADDRESS: '6' });
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) {
      const res =
        i % 2 === 0
          ? await login(t, `sprayed-${i}`, 'wrong-password')
          : await new Client(t.url).post('/api/auth/driver-login', { driverCode: `D${i}`, pin: '0000' });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429, 429]);
    const limited = await login(t, 'yet-another-name', 'wrong-password');
    expect(limited.body.code).toBe('rate-limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('one account guessed from many addresses is limited too', async () => {
    t = await start({
      YARD_TRUST_PROXY: '1',
      YARD_LOGIN_ATTEMPTS_PER_ACCOUNT: '5',
      YARD_LOGIN_ATTEMPTS_PER_ADDRESS: '100',
    });
    await addDriver(t, 'DRV-9');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      // Our proxy appends the address it saw: a different one each time.
      const res = await login(t, ADMIN.username, 'wrong-password', {
        'x-forwarded-for': `198.51.100.${i + 1}`,
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // Another account, and drivers, are not affected.
    expect(
      (await login(t, 'someone-else', 'wrong-password', { 'x-forwarded-for': '198.51.100.99' })).status,
    ).toBe(401);
    const driver = await new Client(t.url).post(
      '/api/auth/driver-login',
      { driverCode: 'DRV-9', pin: '1357' },
      { 'x-forwarded-for': '198.51.100.98' },
    );
    expect(driver.status).toBe(200);
  });

  it('behind a proxy, a client cannot pick its address with X-Forwarded-For (YARD_TRUST_PROXY=true is one hop)', async () => {
    t = await start({ YARD_TRUST_PROXY: 'true', YARD_LOGIN_ATTEMPTS: '3' });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      // The client sent a made-up address; the proxy appended the real one (always the same).
      const res = await login(t, 'target-user', 'wrong-password', {
        'x-forwarded-for': `10.${i}.${i}.${i}, 203.0.113.7`,
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Another real client behind the same proxy still gets through.
    const other = await login(t, 'target-user', 'wrong-password', { 'x-forwarded-for': '203.0.113.8' });
    expect(other.status).toBe(401);
  });

  it('a flood of wrong logins cannot queue without bound: the excess answers 503 server-busy at once', async () => {
    t = await start({
      YARD_HASH_CONCURRENCY: '1',
      YARD_HASH_QUEUE: '2',
      YARD_LOGIN_ATTEMPTS: '1000',
      YARD_LOGIN_ATTEMPTS_PER_ADDRESS: '1000',
      YARD_LOGIN_ATTEMPTS_PER_ACCOUNT: '1000',
    });
    const app = t;
    const flood = await Promise.all(
      Array.from({ length: 40 }, (_, i) => login(app, `flood-${i}`, 'wrong-password')),
    );
    const busy = flood.filter((r) => r.status === 503);
    expect(flood.filter((r) => r.status !== 503).every((r) => r.status === 401)).toBe(true);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]!.body.code).toBe('server-busy');
    expect(busy[0]!.headers.get('retry-after')).toBe('1');
    // Once the flood has passed, a real login goes through.
    expect((await login(app, ADMIN.username, ADMIN.password)).status).toBe(200);
  });
});
