import type { RequestHandler } from 'express';
import type { AppError } from './errors.js';
import type { AnyObject, HandlerResult, RouteInput, RouteSpec } from './route-spec.js';
import type { RouteRegistrar } from './routes.js';
import type { z } from './zod.js';

/**
 * Routes of a part that is done in one place (billing, email to carriers: the cloud or a standalone
 * edge; docs/domain.md "Billing"). The composition root picks one of the two registrars below once
 * and nothing in the module asks again: served here, each handler also gets the module's services;
 * at an edge linked to a cloud, each route answers the module's 409 `cloud-owned` right after the
 * role check, before its input is read (reads included), and changes nothing.
 */

/** A route spec whose handler also gets the services `S` of the part done here. */
export type PlacedRouteSpec<
  S,
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  R extends z.ZodType,
> = Omit<RouteSpec<P, Q, B, R>, 'handler' | 'cloudOwnedAtLinkedEdge'> & {
  handler: (
    input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>,
    services: S,
  ) => Promise<HandlerResult<R>> | HandlerResult<R>;
};

/** Where the routes of such a part are registered. */
export interface PlacedRoutes<S> {
  add<
    P extends AnyObject = z.ZodObject<Record<string, never>>,
    Q extends AnyObject = z.ZodObject<Record<string, never>>,
    B extends z.ZodType = z.ZodUndefined,
    R extends z.ZodType = z.ZodUnknown,
  >(spec: PlacedRouteSpec<S, P, Q, B, R>): void;
}

/** How a part names its refusal at a linked edge: the OpenAPI 409 line and the error itself. */
export interface LinkedEdgeRefusal {
  /** Each route's documented 409, whichever registrar serves it. */
  documented: string;
  error: () => AppError;
}

/** The part is done here: each route's handler gets the services. */
export function servedHere<S>(
  r: Pick<RouteRegistrar, 'add'>,
  services: S,
  refusal: LinkedEdgeRefusal,
): PlacedRoutes<S> {
  return {
    add: (spec) =>
      r.add({
        ...spec,
        cloudOwnedAtLinkedEdge: refusal.documented,
        handler: (input) => spec.handler(input, services),
      }),
  };
}

/** An edge linked to a cloud: every route refuses as the cloud's. No service of the part exists. */
export function refusedAtLinkedEdge<S>(
  r: Pick<RouteRegistrar, 'add'>,
  refusal: LinkedEdgeRefusal,
): PlacedRoutes<S> {
  const refuse: RequestHandler = () => {
    throw refusal.error();
  };
  return {
    add: ({ handler: _handler, ...spec }) =>
      r.add({
        ...spec,
        middleware: [refuse, ...(spec.middleware ?? [])],
        cloudOwnedAtLinkedEdge: refusal.documented,
        // Never reached (`refuse` answers first); refuses alike should the middleware ever move.
        handler: () => {
          throw refusal.error();
        },
      }),
  };
}
