import { once } from 'node:events';
import type { Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.js';
import { errorHandler } from '../../../shared/http/error-handler.js';
import { retryAfterSec } from '../../../shared/http/rate-limit.js';
import { silentLogger } from '../../../shared/log.js';
import { loginLimiters } from '../../../shared/modules/auth/login-limits.js';
import { Client } from '../../helpers/http.js';

/**
 * The login limits (login-limits.ts) in front of a stand-in login that accepts the password
 * "right", over real HTTP: which budget each attempt spends, and what a trusted device skips.
 */
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

/** Devices: the cookie `device=<nonce>` is trusted for any account; failures are recorded. */
function fakeDevices(options: { fail?: boolean } = {}) {
  const spent: string[] = [];
  const seen: Array<{ cookie: string | undefined; account: string }> = [];
  return {
    spent,
    seen,
    trusted: async (cookie: string | undefined, account: string) => {
      seen.push({ cookie, account });
      if (options.fail) throw new Error('no key');
      const m = /device=(\w+)/.exec(cookie ?? '');
      return m ? m[1] : undefined;
    },
    failed: (nonce: string) => {
      spent.push(nonce);
    },
  };
}

async function serve(env: Record<string, string>, devices = fakeDevices()) {
  const config = loadConfig({ YARD_TRUST_PROXY: '1', ...env });
  const limits = loginLimiters(config, devices);
  const app = express();
  app.set('trust proxy', 1);
  app.use(express.json());
  const login = (field: string) => (req: express.Request, res: express.Response) => {
    const body = req.body as Record<string, string>;
    if (body.secret === 'right') res.json({ ok: true, who: body[field] });
    else res.status(body.secret === 'bad-request' ? 400 : 401).json({ code: 'unauthenticated' });
  };
  app.post('/login', ...limits.username, login('username'));
  app.post('/driver-login', ...limits.driverCode, login('driverCode'));
  app.use(errorHandler(silentLogger()));
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  const client = new Client(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  const attempt =
    (path: string, field: string) => (name: string, secret: string, address: string, cookie?: string) =>
      client.post(
        path,
        { [field]: name, secret },
        { 'x-forwarded-for': address, ...(cookie ? { cookie } : {}) },
      );
  return {
    devices,
    user: attempt('/login', 'username'),
    driver: attempt('/driver-login', 'driverCode'),
  };
}

const statuses = async (n: number, run: (i: number) => Promise<{ status: number }>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await run(i)).status);
  return out;
};

describe('login limits', () => {
  it('one address and account: YARD_LOGIN_ATTEMPTS failures, then 429 rate-limited with Retry-After, right password or not', async () => {
    const { user } = await serve({ YARD_LOGIN_ATTEMPTS: '3', YARD_LOGIN_WINDOW_SEC: '120' });
    expect(await statuses(4, () => user('clerk', 'wrong', '198.51.100.1'))).toEqual([401, 401, 401, 429]);
    const limited = await user('clerk', 'right', '198.51.100.1');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate-limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(100);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(120);
    // The IETF draft's RateLimit headers, not the legacy X-RateLimit ones.
    expect(limited.headers.get('ratelimit-policy')).toBe('3;w=120');
    expect(limited.headers.get('x-ratelimit-limit')).toBeNull();
    // Another address, or another account from that address, is not held back by this one.
    expect((await user('clerk', 'right', '198.51.100.2')).status).toBe(200);
    expect((await user('other', 'wrong', '198.51.100.1')).status).toBe(401);
  });

  it('correct logins spend nothing, and neither do they reset what failed', async () => {
    const { user } = await serve({ YARD_LOGIN_ATTEMPTS: '2' });
    expect(await statuses(5, () => user('clerk', 'right', '198.51.100.1'))).toEqual([
      200, 200, 200, 200, 200,
    ]);
    expect(await statuses(3, () => user('clerk', 'wrong', '198.51.100.1'))).toEqual([401, 401, 429]);
  });

  it('one address, many accounts, both routes: YARD_LOGIN_ATTEMPTS_PER_ADDRESS', async () => {
    const { user, driver } = await serve({ YARD_LOGIN_ATTEMPTS_PER_ADDRESS: '4' });
    const run = (i: number) =>
      i % 2 ? driver(`D${i}`, 'wrong', '198.51.100.1') : user(`u${i}`, 'wrong', '198.51.100.1');
    expect(await statuses(5, run)).toEqual([401, 401, 401, 401, 429]);
    expect((await user('fresh', 'right', '198.51.100.9')).status).toBe(200);
  });

  it('one account, many addresses: YARD_LOGIN_ATTEMPTS_PER_ACCOUNT, one budget however the name is cased', async () => {
    const { user, driver } = await serve({ YARD_LOGIN_ATTEMPTS_PER_ACCOUNT: '4' });
    const names = ['admin', 'ADMIN', 'Admin', 'aDmIn', 'admiN'];
    expect(await statuses(5, (i) => user(names[i]!, 'wrong', `198.51.100.${i + 1}`))).toEqual([
      401, 401, 401, 401, 429,
    ]);
    // Usernames and driver codes are separate accounts; driver codes keep their case.
    expect((await driver('admin', 'right', '198.51.100.50')).status).toBe(200);
    expect(await statuses(4, (i) => driver('j101', 'wrong', `198.51.100.${i + 60}`))).toEqual([
      401, 401, 401, 401,
    ]);
    expect((await driver('J101', 'right', '198.51.100.70')).status).toBe(200);
    expect((await driver('j101', 'right', '198.51.100.71')).status).toBe(429);
  });

  it('a 400 counts as a failure too', async () => {
    const { user } = await serve({ YARD_LOGIN_ATTEMPTS: '1' });
    expect((await user('clerk', 'bad-request', '198.51.100.1')).status).toBe(400);
    expect((await user('clerk', 'right', '198.51.100.1')).status).toBe(429);
  });
});

describe('a trusted device', () => {
  it('skips every stranger limit, and its own 401s are counted against it (not its 200s or 400s)', async () => {
    const { user, devices } = await serve({
      YARD_LOGIN_ATTEMPTS: '1',
      YARD_LOGIN_ATTEMPTS_PER_ADDRESS: '1',
      YARD_LOGIN_ATTEMPTS_PER_ACCOUNT: '1',
    });
    expect((await user('admin', 'wrong', '198.51.100.1')).status).toBe(401);
    expect((await user('admin', 'right', '198.51.100.1')).status).toBe(429);
    expect(await statuses(3, () => user('ADMIN', 'wrong', '198.51.100.1', 'device=phone1'))).toEqual([
      401, 401, 401,
    ]);
    expect((await user('admin', 'bad-request', '198.51.100.1', 'device=phone1')).status).toBe(400);
    expect((await user('admin', 'right', '198.51.100.1', 'device=phone1')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    expect(devices.spent).toEqual(['phone1', 'phone1', 'phone1']);
    // Its failures spent no stranger budget of another address.
    expect((await user('someone', 'right', '198.51.100.2')).status).toBe(200);
    // The device was asked about the account as the login matches it.
    expect(devices.seen.at(-3)).toEqual({ cookie: 'device=phone1', account: 'username:admin' });
  });

  it('a stranger failing is never counted against a device', async () => {
    const { driver, devices } = await serve({});
    expect((await driver('J1', 'wrong', '198.51.100.1')).status).toBe(401);
    await new Promise((r) => setTimeout(r, 20));
    expect(devices.spent).toEqual([]);
    expect(devices.seen).toEqual([{ cookie: undefined, account: 'driverCode:J1' }]);
  });

  it('a failure to check the cookie is a 500, not a login', async () => {
    const { user } = await serve({}, fakeDevices({ fail: true }));
    expect((await user('admin', 'right', '198.51.100.1')).status).toBe(500);
  });
});

describe('retryAfterSec', () => {
  const req = (reset?: number) =>
    ({ rateLimit: reset === undefined ? {} : { resetTime: new Date(reset) } }) as unknown as express.Request;

  it('whole seconds until the window ends, at least 1; the window when the end is not known', () => {
    expect(retryAfterSec(req(10_500), 60, 0)).toBe(11);
    expect(retryAfterSec(req(10_000), 60, 0)).toBe(10);
    expect(retryAfterSec(req(100), 60, 0)).toBe(1);
    expect(retryAfterSec(req(0), 60, 5_000)).toBe(1);
    expect(retryAfterSec(req(), 60, 0)).toBe(60);
    expect(retryAfterSec({} as express.Request, 30, 0)).toBe(30);
  });
});
