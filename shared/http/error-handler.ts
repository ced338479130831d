import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../log.js';
import {
  AppError,
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from './errors.js';

/** Unknown routes: problem+json 404, not express's HTML page. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError(404, 'not-found', 'Not found', `No route ${req.method} ${req.path}.`));
};

/**
 * The one error middleware: AppError -> its problem+json; body-parser and SQLite errors -> the
 * matching problem; anything else -> 500 with no internals, logged with the request id.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const problem = toAppError(err);
    const requestId = String(req.id ?? '');
    if (problem.status >= 500 && problem.code === 'internal-error') {
      log.error({ err, requestId, method: req.method, url: req.originalUrl }, 'unhandled error');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res
      .status(problem.status)
      .type('application/problem+json')
      .json({
        type: `urn:yard:problem:${problem.code}`,
        title: problem.title,
        status: problem.status,
        detail: problem.detail,
        code: problem.code,
        instance: req.originalUrl,
        requestId,
        ...(problem.errors ? { errors: problem.errors } : {}),
        ...(problem.extra ?? {}),
      });
  };
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
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
  if (e?.status === 404) return new NotFoundError('Resource');
  // Express's router rejects a path it cannot percent-decode (e.g. %zz) with a 400 error.
  if (e?.status === 400 || err instanceof URIError) {
    return new BadRequestError('malformed-url', 'The URL has an invalid percent-encoding.');
  }
  return new AppError(
    500,
    'internal-error',
    'Internal server error',
    'Something went wrong on our side. It was logged with the request id.',
  );
}

/** Constraint violations the services did not pre-check (races) still answer clearly. */
function sqliteConstraint(code: string, message: string): AppError {
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new AppError(
      409,
      'in-use',
      'Conflict',
      'The record is referenced by other records, or refers to one that does not exist.',
    );
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new AppError(
      409,
      'duplicate',
      'Conflict',
      `A record with the same unique value already exists (${message.replace(/^UNIQUE constraint failed: /, '')}).`,
    );
  }
  return new AppError(409, 'constraint-violated', 'Conflict', 'The change breaks a data rule.');
}
