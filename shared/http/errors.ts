/**
 * Application errors, rendered as RFC 9457 problem+json by the error middleware.
 * `code` is the stable, kebab-case identifier clients branch on; `title` is for people.
 */
export interface FieldError {
  path: string;
  message: string;
  code?: string;
}

/**
 * The members every problem body has (RFC 9457's type, title, status, detail, instance, and ours:
 * code, requestId, errors). An error's own details (`extra`) may not reuse these names: `status`
 * is the HTTP status, so an invoice's status sent as `status` would tell clients the wrong one.
 */
export const PROBLEM_MEMBERS: ReadonlySet<string> = new Set([
  'type',
  'title',
  'status',
  'detail',
  'instance',
  'code',
  'requestId',
  'errors',
]);

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail?: string,
    readonly errors?: FieldError[],
    readonly extra?: Record<string, unknown>,
  ) {
    super(detail ?? title);
    this.name = 'AppError';
    const taken = Object.keys(extra ?? {}).filter((name) => PROBLEM_MEMBERS.has(name));
    // A programming error: fails the first test that reaches the call, never a client.
    if (taken.length > 0) {
      throw new TypeError(`problem ${code} reuses the problem member(s) ${taken.join(', ')} for its details`);
    }
  }

  get detail(): string {
    return this.message;
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[], detail = 'The request is not valid; see errors for each field.') {
    super(400, 'validation-failed', 'Validation failed', detail, errors);
  }
}

export class BadRequestError extends AppError {
  constructor(code: string, detail: string) {
    super(400, code, 'Bad request', detail);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(detail = 'A valid bearer token or API key is required.') {
    super(401, 'unauthenticated', 'Unauthenticated', detail);
  }
}

export class ForbiddenError extends AppError {
  constructor(detail = 'Your role may not use this operation.') {
    super(403, 'forbidden', 'Forbidden', detail);
  }
}

/**
 * The answer to a route that does not exist. A carrier user gets exactly this on every route its
 * role does not admit (request-steps.ts `authorize`), so it cannot tell which routes exist.
 */
export function routeNotFound(method: string, path: string): AppError {
  return new AppError(404, 'not-found', 'Not found', `No route ${method} ${path}.`);
}

export class NotFoundError extends AppError {
  constructor(what: string, id?: string) {
    super(
      404,
      'not-found',
      'Not found',
      id === undefined ? `${what} not found.` : `${what} ${id} not found.`,
    );
  }
}

export class ConflictError extends AppError {
  constructor(code: string, detail: string, extra?: Record<string, unknown>) {
    super(409, code, 'Conflict', detail, undefined, extra);
  }
}

export class InvalidTransitionError extends AppError {
  constructor(from: string, to: string, detail?: string) {
    super(
      409,
      'invalid-transition',
      'Invalid transition',
      detail ?? `Cannot go from ${from} to ${to}.`,
      undefined,
      {
        from,
        to,
      },
    );
  }
}

export class PreconditionFailedError extends AppError {
  constructor(current: number) {
    super(
      412,
      'precondition-failed',
      'Precondition failed',
      'The record changed since you read it (If-Match does not match its current ETag). Reload it and try again.',
      undefined,
      { currentVersion: current },
    );
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(detail: string) {
    super(413, 'payload-too-large', 'Payload too large', detail);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(detail: string) {
    super(415, 'unsupported-media-type', 'Unsupported media type', detail);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSec: number) {
    super(
      429,
      'rate-limited',
      'Too many requests',
      `Too many attempts. Try again in ${retryAfterSec} s.`,
      undefined,
      {
        retryAfterSec,
      },
    );
  }
}

/**
 * The disk is full (SQLITE_FULL from the database, ENOSPC / EDQUOT from a file write): nothing was
 * stored. 507 so clients and operators see the cause instead of a generic 500 or a blamed request.
 */
export class StorageFullError extends AppError {
  constructor() {
    super(
      507,
      'storage-full',
      'Insufficient storage',
      "The server's disk is full (on a site, the yard box's), so nothing was stored. " +
        'Free space on it (old attachments, logs, other files) and try again; reads still work.',
    );
  }
}

export class HardwareFaultError extends AppError {
  constructor(detail: string) {
    super(503, 'hardware-fault', 'Hardware fault', detail);
  }
}

export class SiteOfflineError extends AppError {
  constructor(detail: string) {
    super(504, 'site-offline', 'Site offline', detail);
  }
}
