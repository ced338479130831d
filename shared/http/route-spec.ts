/** What a route declares: its method, path, access, schemas, documentation and handler. */
import type { Request, RequestHandler, Response } from 'express';
import type { Principal, Role } from '../auth/principal.js';
import type { RawJson } from './raw-json.js';
import type { z } from './zod.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type AnyObject = z.ZodType<Record<string, unknown>>;

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
  /**
   * Takes an optional Idempotency-Key header: a repeat of a request with the same key gets the first
   * answer and does not run again (shared/http/idempotency.ts has the rules).
   */
  idempotent?: boolean;
  /**
   * Express middleware run after the role check and the JSON body, before the Idempotency-Key is
   * taken and before validation (rate limits, multipart).
   */
  middleware?: RequestHandler[];
  /**
   * The route serves only where its records live (billing: the cloud or a standalone edge) and an
   * edge linked to a cloud answers it with 409 `cloud-owned`: why, for its OpenAPI 409 (the route
   * makes the check itself, e.g. in `middleware`).
   */
  cloudOwnedAtLinkedEdge?: string;
  handler: (
    input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>,
  ) => Promise<HandlerResult<R>> | HandlerResult<R>;
}

/** A body to send as JSON, JSON text, or undefined when the handler answered itself (or for 204). */
export type HandlerResult<R extends z.ZodType> = z.input<R> | RawJson | undefined;

export interface RouteInfo {
  method: Method;
  path: string;
  access: Access;
  tag: string;
  summary: string;
  /** The request body schema (JSON or multipart fields), e.g. for checking documented examples. */
  body?: z.ZodType | undefined;
  /** Takes an Idempotency-Key header (RouteSpec.idempotent). */
  idempotent?: boolean;
}
