import type { Request, RequestHandler, Response } from 'express';
import { type AugmentedRequest, rateLimit } from 'express-rate-limit';
import { RateLimitedError } from './errors.js';

export interface LimiterOptions {
  /** Requests (or, with onlyFailures, failed requests) allowed per window and key. */
  limit: number;
  windowSec: number;
  /** Whose budget a request spends (an address, an account, a principal). */
  key: (req: Request, res: Response) => string;
  /** Count only answers of 400 and above (the login limits: a correct login never spends). */
  onlyFailures?: boolean;
  /** Requests this limiter leaves alone (not counted, never refused). */
  skip?: (req: Request, res: Response) => boolean;
}

/**
 * A fixed-window limit (express-rate-limit, in this process's memory) whose refusal is 429
 * `rate-limited` problem+json with Retry-After: the seconds until this key's window ends.
 * The one home of that answer for the login limits and the drivers' request limit.
 */
export function rateLimiter(options: LimiterOptions): RequestHandler {
  return rateLimit({
    windowMs: options.windowSec * 1000,
    limit: options.limit,
    skipSuccessfulRequests: options.onlyFailures === true,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: options.key,
    ...(options.skip ? { skip: options.skip } : {}),
    handler: (req, _res, next) => {
      next(new RateLimitedError(retryAfterSec(req, options.windowSec, Date.now())));
    },
  });
}

/** Whole seconds until the request's window ends (at least 1), or the window when it is not known. */
export function retryAfterSec(req: Request, windowSec: number, now: number): number {
  const resetTime = (req as AugmentedRequest).rateLimit?.resetTime?.getTime();
  const waitSec = resetTime === undefined ? windowSec : Math.ceil((resetTime - now) / 1000);
  return Math.max(1, waitSec);
}
