import type { RequestHandler } from 'express';
import { ConflictError } from '../../http/errors.js';
import type { AnyObject, HandlerResult, RouteInput, RouteSpec } from '../../http/route-spec.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { z } from '../../http/zod.js';
import type { EmailService } from './service.js';

/**
 * Where the email routes are served (index.ts picks one part at the composition root, as billing
 * does): by the email service here, or refused as the cloud's at an edge linked to it.
 */

/** An email route: a route spec whose handler also gets the email service. */
export type EmailRouteSpec<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  R extends z.ZodType,
> = Omit<RouteSpec<P, Q, B, R>, 'handler' | 'cloudOwnedAtLinkedEdge'> & {
  handler: (
    input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>,
    email: EmailService,
  ) => Promise<HandlerResult<R>> | HandlerResult<R>;
};

export interface EmailRoutes {
  add<
    P extends AnyObject = z.ZodObject<Record<string, never>>,
    Q extends AnyObject = z.ZodObject<Record<string, never>>,
    B extends z.ZodType = z.ZodUndefined,
    R extends z.ZodType = z.ZodUnknown,
  >(spec: EmailRouteSpec<P, Q, B, R>): void;
}

/** Each email route's OpenAPI 409 names the refusal of a linked edge, whichever part serves it. */
const AT_LINKED_EDGE = 'email to carriers is sent by the cloud (nothing is changed)';

function emailIsTheClouds(): ConflictError {
  return new ConflictError(
    'cloud-owned',
    'Email to carriers is sent by the cloud for a site linked to it. Use the cloud’s email settings.',
  );
}

/** The full part: each route's handler gets the email service. */
export function servedHere(r: Pick<RouteRegistrar, 'add'>, email: EmailService): EmailRoutes {
  return {
    add: (spec) =>
      r.add({
        ...spec,
        cloudOwnedAtLinkedEdge: AT_LINKED_EDGE,
        handler: (input) => spec.handler(input, email),
      }),
  };
}

/** A linked edge: every route answers 409 `cloud-owned` right after the role check, before its input is read. */
export function cloudOwned(r: Pick<RouteRegistrar, 'add'>): EmailRoutes {
  const refuse: RequestHandler = () => {
    throw emailIsTheClouds();
  };
  return {
    add: ({ handler: _handler, ...spec }) =>
      r.add({
        ...spec,
        middleware: [refuse, ...(spec.middleware ?? [])],
        cloudOwnedAtLinkedEdge: AT_LINKED_EDGE,
        // Never reached (`refuse` answers first).
        handler: () => {
          throw emailIsTheClouds();
        },
      }),
  };
}
