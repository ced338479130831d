import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { Principal } from '../auth/principal.js';
import { AppError } from './errors.js';
import { type IdempotencyKeys, markHandlerBegan } from './idempotency.js';
import { RawJson } from './raw-json.js';
import {
  attributeYard,
  authorize,
  jsonBodyParser,
  parseIfMatch,
  parsePart,
  setRetryAfter,
} from './request-steps.js';
import { openApiRoute } from './route-docs.js';
import type { AnyObject, HandlerResult, RouteInfo, RouteSpec } from './route-spec.js';
import type { z } from './zod.js';

export type { Access, RouteInfo, RouteInput, RouteSpec } from './route-spec.js';

/**
 * Registers routes on an express router and, from the same zod schemas, in the OpenAPI registry.
 * Order of checks for every request: authenticate -> role -> JSON body (415 on another media type,
 * then read and parsed) -> route middleware (rate limits) -> Idempotency-Key (routes with
 * `idempotent`) -> validate params/query/body -> handler. Nothing of
 * the request is read before the caller is known, so an anonymous caller gets 401, never 400.
 */
export class RouteRegistrar {
  readonly table: RouteInfo[] = [];
  private readonly jsonBody: RequestHandler;

  constructor(
    private readonly router: Router,
    private readonly registry: OpenAPIRegistry,
    private readonly options: {
      validateResponses: boolean;
      jsonLimit: string;
      /** The store of routes with `idempotent: true` (required by them). */
      idempotency?: IdempotencyKeys;
    },
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
      ...(spec.idempotent ? { idempotent: true } : {}),
    });
    if (spec.idempotent && !this.options.idempotency) {
      throw new Error(
        `${spec.method.toUpperCase()} ${spec.path} is idempotent, but no Idempotency-Key store was given`,
      );
    }
    this.registry.registerPath(openApiRoute(spec));
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
      // Route middleware first: a request a rate limit refuses never takes (and stores) a key.
      ...(spec.middleware ?? []),
      ...(spec.idempotent && this.options.idempotency ? [this.options.idempotency.step(spec)] : []),
      async (req: Request, res: Response) => {
        const principal = res.locals.principal as Principal | null;
        attributeYard(res, spec, req.params, req.query as Record<string, unknown>, req.body); // a body read by now
        const params = parsePart('params', spec.params, req.params);
        const query = parsePart('query', spec.query, req.query);
        const body =
          spec.body && spec.bodyType !== 'multipart/form-data'
            ? parsePart('body', spec.body, req.body)
            : req.body;
        const ifMatch = parseIfMatch(req.get('if-match'));
        let result: HandlerResult<R>;
        // From here the answer is the handler's: an Idempotency-Key keeps it (idempotency.ts).
        markHandlerBegan(res);
        try {
          result = await spec.handler({
            params: params as z.output<P>,
            query: query as z.output<Q>,
            body: body as z.output<B>,
            principal: principal as Principal,
            ifMatch,
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
}

/** The ETag of a record version. */
export function etagOf(version: number): string {
  return `"v${version}"`;
}

/** /api/x/{id} -> /api/x/:id; a trailing {fullPath} matches the rest of the path. */
export function toExpressPath(path: string): string {
  return path.replace(/\{fullPath\}$/, '*fullPath').replace(/\{(\w+)\}/g, ':$1');
}

export { AppError };
