import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
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
 *
 * Which route answers a path that several match does not depend on the order of registration
 * (`matchingOrder`); the route table and the OpenAPI document keep the order of registration.
 */
export class RouteRegistrar {
  readonly table: RouteInfo[] = [];
  private readonly jsonBody: RequestHandler;
  /** Every route's express path and steps, in matching order. */
  private readonly routes: ExpressRoute[] = [];
  /** An express router holding `routes` in that order; made again after a route is added. */
  private inOrder: Router | undefined;

  constructor(
    router: Router,
    private readonly registry: OpenAPIRegistry,
    private readonly options: {
      validateResponses: boolean;
      jsonLimit: string;
      /** The store of routes with `idempotent: true` (required by them). */
      idempotency?: IdempotencyKeys;
    },
  ) {
    this.jsonBody = jsonBodyParser(options.jsonLimit);
    // Express tries routes in the order they were added to a router: the routes go to one of our
    // own, rebuilt in matching order, that takes the place of all of them on the given router.
    router.use((req, res, next) => {
      this.inOrder ??= routerOf(this.routes);
      this.inOrder(req, res, next);
    });
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
      authorize(spec.access, res.locals.principal as Principal | null, res.locals.authError, req);
      if (spec.authenticate) await spec.authenticate(req, res);
      next();
    };
    const takesJson = spec.body !== undefined && spec.bodyType !== 'multipart/form-data';
    this.insert(spec.method, spec.path, [
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
          const check = spec.response.schema.safeParse(
            raw === undefined ? result : JSON.parse(raw.toString()),
          );
          if (!check.success) {
            throw new Error(
              `Response of ${spec.method.toUpperCase()} ${spec.path} does not match its schema: ${check.error.message}`,
            );
          }
        }
        if (raw !== undefined) res.status(status).type('application/json').send(raw);
        else res.status(status).json(result);
      },
    ]);
  }

  /** Before the first route that comes after it in matching order (after the ones it ties with). */
  private insert(method: RouteInfo['method'], path: string, steps: RequestHandler[]): void {
    const at = this.routes.findIndex((r) => matchingOrder(path, r.path) < 0);
    this.routes.splice(at < 0 ? this.routes.length : at, 0, { method, path, steps });
    this.inOrder = undefined;
  }
}

interface ExpressRoute {
  method: RouteInfo['method'];
  /** As in the spec (`/api/x/{id}`). */
  path: string;
  steps: RequestHandler[];
}

function routerOf(routes: readonly ExpressRoute[]): Router {
  const router = express.Router();
  for (const r of routes) router[r.method](toExpressPath(r.path), ...r.steps);
  return router;
}

/**
 * The order two routes are tried in, for a path both match: at the first segment where they
 * differ in kind, a static segment before a parameter, and a parameter before a trailing
 * {fullPath} (so `/api/x/summary` beats `/api/x/{id}`, and `/api/x/{id}/items` beats `/{fullPath}`).
 * Routes of the same shape keep their order of registration.
 */
export function matchingOrder(a: string, b: string): number {
  const ka = segmentKinds(a);
  const kb = segmentKinds(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    if (ka[i] !== kb[i]) return ka[i]! - kb[i]!;
  }
  return ka.length - kb.length;
}

/** 0 for a static segment, 1 for a parameter, 2 for a trailing {fullPath}. */
function segmentKinds(path: string): number[] {
  const segments = path.split('/').filter((s) => s !== '');
  return segments.map((s, i) => {
    if (!s.includes('{')) return 0;
    return s === '{fullPath}' && i === segments.length - 1 ? 2 : 1;
  });
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
