import type { Request, RequestHandler } from 'express';
import { type AugmentedRequest, ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Config } from '../../config.js';
import { RateLimitedError } from '../../http/errors.js';

type AccountField = 'username' | 'driverCode';

/**
 * Failed login attempts, counted three ways in one window (only failures count, so a clerk who
 * logs in correctly is never locked out by a busy gate house):
 * - per address and account (auth.loginAttemptsPerWindow): one client guessing one password;
 * - per address, across accounts and both login routes (auth.loginAttemptsPerAddress): one client
 *   spraying many account names;
 * - per account, across addresses (auth.loginAttemptsPerAccount): many clients guessing one
 *   account. This one can keep the real owner out for up to a window; that is the price of
 *   bounding a distributed guess.
 * The address is req.ip: the peer, or with http.trustProxy = N the address N proxies saw.
 */
export function loginLimiters(config: Pick<Config, 'auth'>): Record<AccountField, RequestHandler[]> {
  const { loginAttemptsPerWindow, loginAttemptsPerAddress, loginAttemptsPerAccount, loginWindowSec } =
    config.auth;
  const limiter = (limit: number, key: (req: Request) => string): RequestHandler =>
    rateLimit({
      windowMs: loginWindowSec * 1000,
      limit,
      skipSuccessfulRequests: true,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      keyGenerator: key,
      handler: (req, _res, next) => {
        const resetTime = (req as AugmentedRequest).rateLimit?.resetTime?.getTime();
        const waitSec = resetTime ? Math.ceil((resetTime - Date.now()) / 1000) : loginWindowSec;
        next(new RateLimitedError(Math.max(1, waitSec)));
      },
    });
  const address = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');
  const account = (req: Request, field: AccountField) =>
    `${field}:${String((req.body as Record<string, unknown> | undefined)?.[field] ?? '').toLowerCase()}`;
  const perAddress = limiter(loginAttemptsPerAddress, address);
  const routeLimiters = (field: AccountField) => [
    limiter(loginAttemptsPerWindow, (req) => `${address(req)}|${account(req, field)}`),
    perAddress,
    limiter(loginAttemptsPerAccount, (req) => account(req, field)),
  ];
  return { username: routeLimiters('username'), driverCode: routeLimiters('driverCode') };
}
