import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../log.js';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

/**
 * Request id (honours a sane X-Request-Id, else a new UUID, echoed back) and one log line per
 * request when it finishes: method, URL, status, duration. Errors at warn/error level.
 * Kept minimal on purpose: it runs on every request of a small edge box.
 */
export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    req.id = typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const started = performance.now();
    res.on('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!log.isLevelEnabled(level) || (status < 400 && (req.url === '/healthz' || req.url === '/metrics')))
        return;
      log[level](
        {
          requestId: req.id,
          method: req.method,
          url: req.originalUrl,
          status,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    });
    next();
  };
}
