import type { RequestHandler } from 'express';
import type { Principal } from '../../auth/principal.js';
import type { Config } from '../../config.js';
import { rateLimiter } from '../../http/rate-limit.js';

/**
 * One budget per yard driver for all the driver routes (docs/api.md "Limits on the driver
 * routes"): auth.driverRequestsPerWindow requests per auth.driverRequestWindowSec (300 a minute by
 * default), then 429 `rate-limited` with Retry-After until the driver's window ends. Counted before
 * the Idempotency-Key is taken, so a refused request stores nothing.
 *
 * Why 300 a minute: a phone on shift sends a heartbeat and a location batch every 30 s and reads its
 * tasks on each change, a few requests a minute. After an outage the driver app replays its queue
 * one action at a time (shared/ui/driver/offline), each followed by a read of the tasks, and flushes
 * at most ten location batches: a whole shift of queued actions fits in one window. A longer
 * backlog is not refused for good: the app keeps a 429 queued and sends it again after Retry-After.
 */
export function driverRequestLimit(config: Pick<Config, 'auth'>): RequestHandler {
  return rateLimiter({
    limit: config.auth.driverRequestsPerWindow,
    windowSec: config.auth.driverRequestWindowSec,
    // The routes take drivers only (the role check runs first), so there is always a principal.
    key: (_req, res) => {
      const principal = res.locals.principal as Principal;
      return `${principal.kind}:${principal.id}`;
    },
  });
}
