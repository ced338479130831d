import pLimit, { type LimitFunction } from 'p-limit';
import { AppError } from '../http/errors.js';

/**
 * Bounds the password and PIN hashes (scrypt: ~16 MiB and tens of ms each, on libuv's small thread
 * pool) computed at once, and how many may wait. Past that a request is refused at once with 503
 * `server-busy` and Retry-After instead of queueing behind a flood of wrong logins, so a real login
 * waits at most about queue x hash time / concurrency.
 */
export class HashGate {
  private readonly limit: LimitFunction;

  constructor(
    concurrency: number,
    private readonly maxQueued: number,
  ) {
    this.limit = pLimit(concurrency);
  }

  run<T>(hash: () => Promise<T>): Promise<T> {
    if (this.limit.activeCount >= this.limit.concurrency && this.limit.pendingCount >= this.maxQueued) {
      return Promise.reject(
        new AppError(
          503,
          'server-busy',
          'Server busy',
          'Too many password checks are running; try again in a moment.',
          undefined,
          { retryAfterSec: 1 },
        ),
      );
    }
    return this.limit(hash);
  }
}
