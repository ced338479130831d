import { ConflictError } from '../../http/errors.js';
import type { LinkedEdgeRefusal, PlacedRouteSpec, PlacedRoutes } from '../../http/placed-routes.js';
import type { AnyObject } from '../../http/route-spec.js';
import type { z } from '../../http/zod.js';
import type { EmailService } from './service.js';

/**
 * Where the email routes are served (index.ts picks one part at the composition root, as billing
 * does, through shared/http/placed-routes.ts): by the email service here, or refused as the cloud's
 * at an edge linked to it.
 */

/** An email route: a route spec whose handler also gets the email service. */
export type EmailRouteSpec<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  R extends z.ZodType,
> = PlacedRouteSpec<EmailService, P, Q, B, R>;

export type EmailRoutes = PlacedRoutes<EmailService>;

/** How a linked edge refuses every email route. */
export const EMAIL_AT_CLOUD: LinkedEdgeRefusal = {
  documented: 'email to carriers is sent by the cloud (nothing is changed)',
  error: () =>
    new ConflictError(
      'cloud-owned',
      'Email to carriers is sent by the cloud for a site linked to it. Use the cloud’s email settings.',
    ),
};
