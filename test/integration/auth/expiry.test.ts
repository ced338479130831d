import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

// Short, distinct lifetimes so each test steps over exactly one of them.
const STAFF_TTL_HOURS = 2;
const DRIVER_TTL_HOURS = 3;
const HOUR = 3_600_000;
// The last check before expiry is a minute ahead of it: a resolved principal is cached for a few
// seconds (auth/service.ts), so a request in the token's last seconds may outlive it by as much.
const MINUTE = 60_000;

/** Token lifetimes at the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes"): expires_at is a bigint read back as a number. */
describe.each(TEST_DIALECTS)('token lifetime (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let anon: Client;
  const clock = new ManualClock(Date.parse('2026-05-04T06:00:00Z'));

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      clock,
      env: {
        YARD_ROLE: 'cloud',
        YARD_STAFF_TOKEN_TTL_HOURS: String(STAFF_TTL_HOURS),
        YARD_DRIVER_TOKEN_TTL_HOURS: String(DRIVER_TTL_HOURS),
      },
    });
    anon = new Client(t.url);
  });
  afterAll(() => t.close());

  it('a staff token works until its expiresAt and is 401 unauthenticated from then on', async () => {
    const login = await anon.post('/api/auth/login', ADMIN);
    expect(login.status, login.text).toBe(200);
    const issuedAt = clock.now();
    expect(Date.parse(login.body.expiresAt)).toBe(issuedAt + STAFF_TTL_HOURS * HOUR);
    const staff = anon.as(login.body.token);

    clock.set(issuedAt + STAFF_TTL_HOURS * HOUR - MINUTE);
    expect((await staff.get('/api/auth/me')).status).toBe(200);
    expect((await staff.get('/api/yard')).status).toBe(200);

    // Used in its last second, then just after: the principal cached by the first use must not
    // outlive the token.
    clock.set(issuedAt + STAFF_TTL_HOURS * HOUR - 1_000);
    expect((await staff.get('/api/auth/me')).status).toBe(200);
    clock.set(issuedAt + STAFF_TTL_HOURS * HOUR);
    for (const path of ['/api/auth/me', '/api/yard']) {
      const res = await staff.get(path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe('unauthenticated');
    }
    clock.advance(30 * 24 * HOUR);
    expect((await staff.get('/api/auth/me')).status).toBe(401);

    // Logging in again gives a fresh token that works.
    const again = await anon.post('/api/auth/login', ADMIN);
    expect(again.status).toBe(200);
    expect((await anon.as(again.body.token).get('/api/auth/me')).status).toBe(200);
  });

  it('a driver token works until its expiresAt and is 401 unauthenticated from then on', async () => {
    // The admin needs a token valid now (the first one has expired above).
    const adminLogin = await anon.post('/api/auth/login', ADMIN);
    const issuedAt = clock.now();
    const driver = await seed(anon.as(adminLogin.body.token)).yardDriver({
      firstName: 'Jo',
      lastName: 'Jockey',
      pin: '2468',
    });
    const tasks = '/api/yard-task/driver/tasks';
    expect((await driver.client.get(tasks)).status).toBe(200);

    // A staff token issued at the same moment has expired by now; the driver's lives longer.
    clock.set(issuedAt + DRIVER_TTL_HOURS * HOUR - MINUTE);
    expect((await driver.client.get(tasks)).status).toBe(200);
    expect((await driver.client.get('/api/auth/me')).body).toMatchObject({ kind: 'driver' });

    clock.set(issuedAt + DRIVER_TTL_HOURS * HOUR);
    for (const path of [tasks, '/api/auth/me']) {
      const res = await driver.client.get(path);
      expect(res.status, path).toBe(401);
      expect(res.body.code).toBe('unauthenticated');
    }
  });
});
