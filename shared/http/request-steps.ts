/**
 * The steps every route's request goes through around its handler: the role check, the JSON body,
 * validation of params, query and body, If-Match, the yard the request names (for the per-yard error
 * figures) and Retry-After on a problem that names a wait.
 */
import express, { type RequestHandler, type Response } from 'express';
import type { Principal } from '../auth/principal.js';
import {
  AppError,
  BadRequestError,
  ForbiddenError,
  routeNotFound,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from './errors.js';
import type { Access } from './route-spec.js';
import { zodIssuesToFieldErrors } from './validation.js';
import type { z } from './zod.js';

/**
 * Public routes ignore a credential that is not valid (authenticate() left its reason in
 * `authError`): a client holding an expired token must still reach login, health and docs.
 */
export function authorize(
  access: Access,
  principal: Principal | null,
  authError: unknown,
  route: { method: string; path: string },
): Principal | null {
  if (access === 'public') return principal;
  if (!principal) throw authError instanceof UnauthenticatedError ? authError : new UnauthenticatedError();
  if (access !== 'any' && !access.includes(principal.role)) {
    // A carrier user is outside the yard: a route it may not use answers as if it did not exist
    // (docs/api.md "Roles and access"), where staff and drivers learn it is their role.
    if (principal.role === 'carrier') throw routeNotFound(route.method, route.path);
    throw new ForbiddenError(`Role ${principal.role} may not use this operation.`);
  }
  return principal;
}

const JSON_TYPES = ['application/json', '+json'];

/**
 * The body of a route that takes JSON: another media type is 415 (a body-less request passes, and
 * its validation names the missing body); JSON is read up to `limit` and parsed (malformed: 400).
 */
export function jsonBodyParser(limit: string): RequestHandler {
  const parse = express.json({ limit, type: JSON_TYPES });
  return (req, res, next) => {
    const hasBody = req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;
    if (hasBody && !req.is(JSON_TYPES)) {
      next(
        new UnsupportedMediaTypeError(
          `Send the body as application/json (Content-Type was ${req.get('content-type') ?? 'missing'}).`,
        ),
      );
      return;
    }
    parse(req, res, next);
  };
}

export function parsePart(
  part: 'params' | 'query' | 'body',
  schema: z.ZodType | undefined,
  value: unknown,
): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value ?? (part === 'body' ? undefined : {}));
  if (!result.success) throw new ValidationError(zodIssuesToFieldErrors(result.error.issues, part));
  return result.data;
}

export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const m = /^\s*(?:W\/)?"v(\d+)"\s*$/.exec(header);
  if (!m) throw new BadRequestError('invalid-if-match', 'If-Match must be an ETag this API sent, like "v3".');
  return Number(m[1]);
}

/**
 * A problem that names a wait (`retryAfterSec`: a rate limit here, or one an edge answered a cloud
 * command with) also sets Retry-After, on every route, not only where a handler remembers to.
 */
export function setRetryAfter(res: Response, err: unknown): void {
  if (!(err instanceof AppError) || res.headersSent) return;
  const sec = err.extra?.retryAfterSec;
  if (typeof sec === 'number' && Number.isFinite(sec)) {
    res.setHeader('Retry-After', String(Math.max(0, Math.ceil(sec))));
  }
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The yard a request names (path, query or JSON body), for the per-yard error figures. */
export function attributeYard(
  res: Response,
  spec: { yardParam?: string },
  params: Record<string, unknown>,
  query: Record<string, unknown>,
  body: unknown,
): void {
  const fromBody =
    body && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).yardId
      : undefined;
  const candidate =
    (spec.yardParam ? params[spec.yardParam] : undefined) ?? params.yardId ?? query.yardId ?? fromBody;
  // Raw input (before validation): only a well-formed id; ErrorStats counts an id of no yard as unattributed.
  if (typeof candidate === 'string' && UUID_SHAPE.test(candidate)) res.locals.yardId = candidate;
}
