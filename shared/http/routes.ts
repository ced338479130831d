import { getOpenApiMetadata, type OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import type { Principal, Role } from '../auth/principal.js';
import { STAFF } from '../auth/principal.js';
import { Problem } from './common-schemas.js';
import {
  AppError,
  BadRequestError,
  ForbiddenError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from './errors.js';
import { RawJson } from './raw-json.js';
import { routeOwnership } from './route-ownership.js';
import { zodIssuesToFieldErrors } from './validation.js';
import type { z } from './zod.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodType<Record<string, unknown>>;

/** Who may call: a list of roles, any authenticated principal, or anyone. */
export type Access = readonly Role[] | 'any' | 'public';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The caller; null only on public routes. */
  principal: Principal;
  /** Parsed If-Match version (`"v3"` -> 3); undefined when absent or `*`. */
  ifMatch: number | undefined;
  req: Request;
  res: Response;
}

export interface RouteSpec<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  R extends z.ZodType,
> {
  method: Method;
  /** OpenAPI-style path, e.g. /api/carrier/{id}. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** Body media type for docs; multipart routes parse their own body. */
  bodyType?: 'application/json' | 'multipart/form-data';
  /** Success response. Omit schema for 204 or for routes that stream their own answer. */
  response?: {
    status?: number;
    schema?: R;
    description?: string;
    contentType?: string;
    headers?: Record<string, string>;
  };
  /** Problem statuses this route can answer besides 400/401/403 (documented in OpenAPI). */
  errors?: number[];
  /** What a listed status means on this route, where the general text would mislead (e.g. 401 on a login). */
  errorText?: Partial<Record<number, string>>;
  /** Name of the path parameter that is a yard id (for per-yard error figures). */
  yardParam?: string;
  /**
   * For callers that are no principal (sites with HTTP Basic on a public route): checks their
   * credentials in the place of the role check, before anything of the request is read or parsed.
   */
  authenticate?: (req: Request, res: Response) => Promise<void> | void;
  /** Express middleware run after the role check and the JSON body, before validation (rate limits, multipart). */
  middleware?: RequestHandler[];
  handler: (
    input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>,
  ) => Promise<HandlerResult<R>> | HandlerResult<R>;
}

/** A body to send as JSON, JSON text, or undefined when the handler answered itself (or for 204). */
type HandlerResult<R extends z.ZodType> = z.input<R> | RawJson | undefined;

export interface RouteInfo {
  method: Method;
  path: string;
  access: Access;
  tag: string;
  summary: string;
  /** The request body schema (JSON or multipart fields), e.g. for checking documented examples. */
  body?: z.ZodType | undefined;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad input (problem+json, code validation-failed or more specific)',
  401: 'No valid token (unauthenticated)',
  403: 'Role or yard scope does not allow this (forbidden)',
  404: 'Not found',
  409: 'Conflict with the current state',
  412: 'If-Match does not match the current version (precondition-failed)',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Too many requests (rate-limited)',
  503: 'Hardware or dependency unavailable',
  504: 'Site offline',
  507: 'The disk is full; nothing was stored (storage-full)',
};

/** Set on every 429 (see setRetryAfter); the problem's `retryAfterSec` says the same. */
const RETRY_AFTER_HEADER = {
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer' as const, minimum: 0 },
  },
};

/**
 * Registers routes on an express router and, from the same zod schemas, in the OpenAPI registry.
 * Order of checks for every request: authenticate -> role -> JSON body (415 on another media type,
 * then read and parsed) -> route middleware -> validate params/query/body -> handler. Nothing of
 * the request is read before the caller is known, so an anonymous caller gets 401, never 400.
 */
export class RouteRegistrar {
  readonly table: RouteInfo[] = [];
  private readonly jsonBody: RequestHandler;

  constructor(
    private readonly router: Router,
    private readonly registry: OpenAPIRegistry,
    private readonly options: { validateResponses: boolean; jsonLimit: string },
  ) {
    this.jsonBody = jsonBodyParser(options.jsonLimit);
  }

  add<
    P extends AnyObject = z.ZodObject<Record<string, never>>,
    Q extends AnyObject = z.ZodObject<Record<string, never>>,
    B extends z.ZodType = z.ZodUndefined,
    R extends z.ZodType = z.ZodUnknown,
  >(spec: RouteSpec<P, Q, B, R>): void {
    this.table.push({
      method: spec.method,
      path: spec.path,
      access: spec.access,
      tag: spec.tag,
      summary: spec.summary,
      body: spec.body,
    });
    this.registry.registerPath(this.openApiConfig(spec));
    // First, so every answer of a route that names a yard counts for it, also 400, 401 and 403
    // (again before validation, for a yardId in a body read after the role check).
    const attributeStep = (req: Request, res: Response, next: NextFunction) => {
      attributeYard(res, spec, req.params, req.query as Record<string, unknown>, req.body);
      next();
    };
    const authorizeStep = async (req: Request, res: Response, next: NextFunction) => {
      authorize(spec.access, res.locals.principal as Principal | null, res.locals.authError);
      if (spec.authenticate) await spec.authenticate(req, res);
      next();
    };
    const takesJson = spec.body !== undefined && spec.bodyType !== 'multipart/form-data';
    this.router[spec.method](
      toExpressPath(spec.path),
      attributeStep,
      authorizeStep,
      ...(takesJson ? [this.jsonBody] : []),
      ...(spec.middleware ?? []),
      async (req: Request, res: Response) => {
        const principal = res.locals.principal as Principal | null;
        attributeYard(res, spec, req.params, req.query as Record<string, unknown>, req.body); // a body read by now
        const params = parsePart('params', spec.params, req.params);
        const query = parsePart('query', spec.query, req.query);
        const body =
          spec.body && spec.bodyType !== 'multipart/form-data'
            ? parsePart('body', spec.body, req.body)
            : req.body;
        let result: HandlerResult<R>;
        try {
          result = await spec.handler({
            params: params as z.output<P>,
            query: query as z.output<Q>,
            body: body as z.output<B>,
            principal: principal as Principal,
            ifMatch: parseIfMatch(req.get('if-match')),
            req,
            res,
          });
        } catch (err) {
          setRetryAfter(res, err);
          throw err;
        }
        if (res.headersSent || res.writableEnded) return;
        const status = spec.response?.status ?? (result === undefined ? 204 : 200);
        if (result === undefined || status === 204) {
          res.status(status).end();
          return;
        }
        const raw = result instanceof RawJson ? result.text : undefined;
        if (this.options.validateResponses && spec.response?.schema) {
          const check = spec.response.schema.safeParse(raw === undefined ? result : JSON.parse(raw));
          if (!check.success) {
            throw new Error(
              `Response of ${spec.method.toUpperCase()} ${spec.path} does not match its schema: ${check.error.message}`,
            );
          }
        }
        if (raw !== undefined) res.status(status).type('application/json').send(raw);
        else res.status(status).json(result);
      },
    );
  }

  private openApiConfig(spec: RouteSpec<AnyObject, AnyObject, z.ZodType, z.ZodType>): RouteConfig {
    // A route that streams its own answer (bytes, text, events) still answers 200 with a body.
    const status = spec.response?.status ?? (spec.response?.schema || spec.response?.contentType ? 200 : 204);
    const responses: RouteConfig['responses'] = {
      [status]: {
        description: spec.response?.description ?? (status === 204 ? 'Done, no content' : 'OK'),
        ...(spec.response?.schema
          ? {
              content: {
                [spec.response.contentType ?? 'application/json']: { schema: spec.response.schema },
              },
            }
          : spec.response?.contentType
            ? { content: { [spec.response.contentType]: { schema: { type: 'string', format: 'binary' } } } }
            : {}),
      },
    };
    const errorStatuses = new Set(spec.errors ?? []);
    // Writes of owned records answer 409 cloud-owned / edge-owned on the side that does not own them.
    const ownership = routeOwnership(spec.method, spec.path);
    if (ownership) errorStatuses.add(409);
    if (spec.params || spec.query || spec.body) errorStatuses.add(400);
    // Any write can meet a full disk (see StorageFullError).
    if (spec.method !== 'get') errorStatuses.add(507);
    if (spec.access !== 'public') {
      errorStatuses.add(401);
      errorStatuses.add(403);
    }
    for (const code of [...errorStatuses].sort()) {
      const text = spec.errorText?.[code] ?? ERROR_TEXT[code] ?? 'Error';
      responses[code] = {
        description: code === 409 && ownership ? `${text}. Also ${ownership.text}` : text,
        content: { 'application/problem+json': { schema: Problem } },
        ...(code === 429 ? { headers: RETRY_AFTER_HEADER } : {}),
      };
    }
    const roles = spec.access === 'public' ? [] : spec.access === 'any' ? ['any'] : [...spec.access];
    return {
      method: spec.method,
      path: spec.path,
      tags: [spec.tag],
      summary: spec.summary,
      description: [spec.description, rolesText(spec.access)].filter(Boolean).join('\n\n'),
      security: spec.access === 'public' ? [] : [{ bearerAuth: [] }, { apiKey: [] }],
      request: {
        ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
        ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
        ...(spec.body
          ? {
              body: {
                description: getOpenApiMetadata(spec.body).description,
                required: true,
                content: { [spec.bodyType ?? 'application/json']: { schema: spec.body } },
              },
            }
          : {}),
      },
      responses,
      'x-roles': roles,
      ...(ownership ? { 'x-ownership': { entities: ownership.entities, codes: ownership.codes } } : {}),
    } as RouteConfig;
  }
}

function rolesText(access: Access): string {
  if (access === 'public') return 'Access: public (no token).';
  if (access === 'any') return 'Access: any signed-in principal.';
  const isStaff = STAFF.every((r) => access.includes(r));
  return `Access: ${isStaff ? ['staff', ...access.filter((r) => !STAFF.includes(r))].join(', ') : access.join(', ')}.`;
}

/**
 * Public routes ignore a credential that is not valid (authenticate() left its reason in
 * `authError`): a client holding an expired token must still reach login, health and docs.
 */
function authorize(access: Access, principal: Principal | null, authError: unknown): Principal | null {
  if (access === 'public') return principal;
  if (!principal) throw authError instanceof UnauthenticatedError ? authError : new UnauthenticatedError();
  if (access !== 'any' && !access.includes(principal.role)) {
    throw new ForbiddenError(`Role ${principal.role} may not use this operation.`);
  }
  return principal;
}

const JSON_TYPES = ['application/json', '+json'];

/**
 * The body of a route that takes JSON: another media type is 415 (a body-less request passes, and
 * its validation names the missing body); JSON is read up to `limit` and parsed (malformed: 400).
 */
function jsonBodyParser(limit: string): RequestHandler {
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

function parsePart(
  part: 'params' | 'query' | 'body',
  schema: z.ZodType | undefined,
  value: unknown,
): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value ?? (part === 'body' ? undefined : {}));
  if (!result.success) throw new ValidationError(zodIssuesToFieldErrors(result.error.issues, part));
  return result.data;
}

function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const m = /^\s*(?:W\/)?"v(\d+)"\s*$/.exec(header);
  if (!m) throw new BadRequestError('invalid-if-match', 'If-Match must be an ETag this API sent, like "v3".');
  return Number(m[1]);
}

/**
 * A problem that names a wait (`retryAfterSec`: a rate limit here, or one an edge answered a cloud
 * command with) also sets Retry-After, on every route, not only where a handler remembers to.
 */
function setRetryAfter(res: Response, err: unknown): void {
  if (!(err instanceof AppError) || res.headersSent) return;
  const sec = err.extra?.retryAfterSec;
  if (typeof sec === 'number' && Number.isFinite(sec)) {
    res.setHeader('Retry-After', String(Math.max(0, Math.ceil(sec))));
  }
}

/** The ETag of a record version. */
export function etagOf(version: number): string {
  return `"v${version}"`;
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The yard a request names (path, query or JSON body), for the per-yard error figures. */
function attributeYard(
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

/** /api/x/{id} -> /api/x/:id; a trailing {fullPath} matches the rest of the path. */
export function toExpressPath(path: string): string {
  return path.replace(/\{fullPath\}$/, '*fullPath').replace(/\{(\w+)\}/g, ':$1');
}

export { AppError };
