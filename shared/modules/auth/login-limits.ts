import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { Config } from '../../config.js';
import { rateLimiter } from '../../http/rate-limit.js';
import type { LoginDevices } from './login-devices.js';

export type AccountField = 'username' | 'driverCode';

/** res.locals: the nonce of the request's trusted device cookie (login-devices.ts), if any. */
const DEVICE = 'loginDevice';

/**
 * The account a login names, as the login looks it up: a username ASCII-case-insensitively
 * (lower() on both sides in SQL, as its unique index: `admin` and `ADMIN` are one account, `É` and
 * `é` two), a driver code exactly (its index is on the code as written). Limits and device cookies
 * are kept per this key, so each account has one budget however its name is typed.
 */
export function accountKey(field: AccountField, value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  return field === 'username'
    ? `username:${text.replace(/[A-Z]/g, (c) => c.toLowerCase())}`
    : `driverCode:${text}`;
}

/**
 * Failed login attempts (only failures count, so a clerk who logs in correctly is never locked
 * out by a busy gate house). A login from a trusted device (a valid device cookie for that account,
 * login-devices.ts) spends only that device's own budget. Every other login is a stranger's,
 * counted three ways in one window:
 * - per address and account (auth.loginAttemptsPerWindow): one client guessing one password;
 * - per address, across accounts and both login routes (auth.loginAttemptsPerAddress): one client
 *   spraying many account names;
 * - per account, across addresses (auth.loginAttemptsPerAccount): many clients guessing one
 *   account. This one keeps strangers out of that account for up to a window; the owner's own
 *   devices still log in.
 * The address is req.ip: the peer, or with http.trustProxy = N the address N proxies saw.
 */
export function loginLimiters(
  config: Pick<Config, 'auth'>,
  devices: Pick<LoginDevices, 'trusted' | 'failed'>,
): Record<AccountField, RequestHandler[]> {
  const { loginAttemptsPerWindow, loginAttemptsPerAddress, loginAttemptsPerAccount, loginWindowSec } =
    config.auth;
  const trustedDevice = (_req: Request, res: Response) => res.locals[DEVICE] !== undefined;
  const limiter = (limit: number, key: (req: Request) => string) =>
    rateLimiter({ limit, windowSec: loginWindowSec, key, onlyFailures: true, skip: trustedDevice });
  const address = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');
  const account = (req: Request, field: AccountField) =>
    accountKey(field, (req.body as Record<string, unknown> | undefined)?.[field]);
  const perAddress = limiter(loginAttemptsPerAddress, address);
  const routeLimiters = (field: AccountField) => [
    deviceStep(devices, (req) => account(req, field)),
    limiter(loginAttemptsPerWindow, (req) => `${address(req)}|${account(req, field)}`),
    perAddress,
    limiter(loginAttemptsPerAccount, (req) => account(req, field)),
  ];
  return { username: routeLimiters('username'), driverCode: routeLimiters('driverCode') };
}

/** Marks a login from a trusted device, and counts its wrong credentials (401) against that device. */
function deviceStep(
  devices: Pick<LoginDevices, 'trusted' | 'failed'>,
  account: (req: Request) => string,
): RequestHandler {
  return async (req, res, next) => {
    try {
      const nonce = await devices.trusted(req.get('cookie'), account(req));
      if (nonce !== undefined) {
        res.locals[DEVICE] = nonce;
        res.on('finish', () => {
          if (res.statusCode === 401) devices.failed(nonce);
        });
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
