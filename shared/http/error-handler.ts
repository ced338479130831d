import type { ErrorRequestHandler, RequestHandler } from 'express';
import { postgresErrorCode } from '../db/postgres-errors.js';
import type { Logger } from '../log.js';
import {
  AppError,
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  routeNotFound,
  StorageFullError,
  UnsupportedMediaTypeError,
} from './errors.js';
import { setRetryAfter } from './request-steps.js';

/** Unknown routes: problem+json 404, not express's HTML page. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(routeNotFound(req.method, req.path));
};

/**
 * The one error middleware: AppError -> its problem+json; body-parser and SQLite errors -> the
 * matching problem; a full disk -> 507 storage-full; anything else -> 500 with no internals,
 * logged with the request id.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const problem = toAppError(err);
    const requestId = String(req.id ?? '');
    if (problem.status >= 500 && problem.code === 'internal-error') {
      log.error({ err, requestId, method: req.method, url: req.originalUrl }, 'unhandled error');
    } else if (problem instanceof StorageFullError) {
      // The operator has to act (free space); every refused write says so in the log.
      log.error({ err, requestId, method: req.method, url: req.originalUrl }, 'disk full: write refused');
    } else if (problem.code.startsWith('database-')) {
      // The database refused or could not be reached: the operator's to see, with the cause.
      log.warn({ err, requestId, method: req.method, url: req.originalUrl }, problem.detail);
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    setRetryAfter(res, problem);
    res
      .status(problem.status)
      .type('application/problem+json')
      .json({
        // Details first: the members every problem has always win (errors.ts PROBLEM_MEMBERS).
        ...(problem.extra ?? {}),
        type: `urn:yard:problem:${problem.code}`,
        title: problem.title,
        status: problem.status,
        detail: problem.detail,
        code: problem.code,
        instance: req.originalUrl,
        requestId,
        ...(problem.errors ? { errors: problem.errors } : {}),
      });
  };
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isStorageFull(err)) return new StorageFullError();
  const e = err as { type?: string; status?: number; code?: string; message?: string; limit?: number };
  if (e?.type === 'entity.too.large') {
    return new PayloadTooLargeError(`The request body is larger than the limit of ${e.limit} bytes.`);
  }
  if (e?.type === 'entity.parse.failed')
    return new BadRequestError('malformed-json', 'The request body is not valid JSON.');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new UnsupportedMediaTypeError(e.message ?? 'Unsupported body encoding.');
  }
  if (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT'))
    return sqliteConstraint(e.code, e.message ?? '');
  const fromPostgres = postgresError(err);
  if (fromPostgres) return fromPostgres;
  if (e?.status === 404) return new NotFoundError('Resource');
  // Express's router rejects a path it cannot percent-decode (e.g. %zz) with a URIError.
  if (err instanceof URIError) {
    return new BadRequestError('malformed-url', 'The URL has an invalid percent-encoding.');
  }
  // body-parser's other 400s: the body stream could not be read (bad gzip/deflate/br data, a body
  // shorter than its Content-Length, an aborted upload).
  if (e?.status === 400) return malformedBody(e.code, e.message);
  return new AppError(
    500,
    'internal-error',
    'Internal server error',
    'Something went wrong on our side. It was logged with the request id.',
  );
}

/** SQLITE_FULL (or PostgreSQL's disk_full) from the database, ENOSPC / EDQUOT from a file write, also as the cause of a wrapper. */
export function isStorageFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    // 53100: PostgreSQL's disk_full.
    if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === '53100') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function malformedBody(code: string | undefined, message: string | undefined): AppError {
  // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR, ...) and Brotli's (ERR__ERROR_FORMAT_...).
  if (code?.startsWith('Z_') || code?.startsWith('ERR__ERROR')) {
    return new BadRequestError(
      'malformed-body',
      'The request body could not be decompressed: it is not valid data for its Content-Encoding.',
    );
  }
  return new BadRequestError(
    'malformed-body',
    `The request body could not be read: ${message ?? 'unknown'}.`,
  );
}

/** Constraint violations the services did not pre-check (races) still answer clearly. */
function sqliteConstraint(code: string, message: string): AppError {
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return inUse();
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return duplicate(message.replace(/^UNIQUE constraint failed: /, ''));
  return constraintViolated();
}

function inUse(): AppError {
  return new AppError(
    409,
    'in-use',
    'Conflict',
    'The record is referenced by other records, or refers to one that does not exist.',
  );
}

function duplicate(what: string): AppError {
  return new AppError(
    409,
    'duplicate',
    'Conflict',
    `A record with the same unique value already exists (${what}).`,
  );
}

function constraintViolated(what?: string): AppError {
  return new AppError(
    409,
    'constraint-violated',
    'Conflict',
    `The change breaks a data rule${what ? ` (${what})` : ''}.`,
  );
}

/**
 * PostgreSQL's answers (node-postgres' DatabaseError: a SQLSTATE `code` and a `severity`) the same
 * way as SQLite's: constraint violations the services did not pre-check are 409s; a write that lost
 * a serialization race or a deadlock, a statement past its timeout and a database that cannot be
 * reached are 503s with Retry-After (retrying is what fixes them). Undefined for anything else.
 */
function postgresError(err: unknown): AppError | undefined {
  const e = err as { code?: unknown; constraint?: unknown };
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ETIMEDOUT') return databaseUnavailable();
  const code = postgresErrorCode(err);
  if (code === undefined) return undefined;
  // On PostgreSQL a race is real: requests run on several connections, so two can pass a service's
  // "is it free?" check and the unique index decides (SQLite's one connection runs them in turn).
  const constraint = typeof e.constraint === 'string' ? e.constraint : undefined;
  switch (code) {
    case '23503': // foreign_key_violation
      return inUse();
    case '23505': // unique_violation
      return duplicate(constraint ?? 'a unique index');
    case '23502': // not_null_violation
    case '23514': // check_violation
      return constraintViolated(constraint);
    case '40001':
    case '40P01':
    case '57014':
      return new AppError(
        503,
        'database-busy',
        'Service Unavailable',
        'The database could not finish this request in time, or it collided with another one. Nothing was changed: try again.',
        undefined,
        { retryAfterSec: 1 },
      );
    case '57P01':
    case '57P03':
    case '08006':
    case '08001':
      return databaseUnavailable();
    default:
      return undefined;
  }
}

function databaseUnavailable(): AppError {
  return new AppError(
    503,
    'database-unavailable',
    'Service Unavailable',
    'The database cannot be reached right now. Try again shortly; if it lasts, the operator should check the database server.',
    undefined,
    { retryAfterSec: 5 },
  );
}
