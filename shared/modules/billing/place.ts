import type { RequestHandler } from 'express';
import { ConflictError } from '../../http/errors.js';
import type { AnyObject, HandlerResult, RouteInput, RouteSpec } from '../../http/route-spec.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { z } from '../../http/zod.js';
import type { AdjustmentService } from './adjustment/service.js';
import type { CarrierConfigService } from './config/carrier-service.js';
import type { BillingConfigService } from './config/service.js';
import type { InvoiceExportService } from './export/service.js';
import type { InvoiceGeneration } from './invoice/generation.js';
import type { InvoiceLifecycle } from './invoice/lifecycle.js';
import type { InvoiceOverage } from './invoice/overage.js';
import type { SummaryService } from './summary/service.js';

/**
 * Where billing is done (docs/domain.md "Billing"): where every site's movements meet and the master
 * data is written, the cloud or a standalone edge. An edge linked to a cloud leaves it to the cloud.
 * The composition root picks one of the two registrars below (billing/index.ts: billingHere,
 * billingAtCloud); nothing inside billing asks again.
 */

/** What a billing route's handler is given besides its request: the services of billing done here. */
export interface BillingServices {
  /** Yard billing configs (config/service.ts). */
  config: BillingConfigService;
  /** Carrier billing configs within a yard's (config/carrier-service.ts). */
  carrierConfigs: CarrierConfigService;
  summaries: SummaryService;
  /** Drafts computed from the period's activity (invoice/generation.ts). */
  generation: InvoiceGeneration;
  /** Reading, issuing, voiding and deleting invoices (invoice/lifecycle.ts). */
  invoices: InvoiceLifecycle;
  /** A period's per-day table, from its invoice or computed now (invoice/overage.ts). */
  overage: InvoiceOverage;
  adjustments: AdjustmentService;
  /** The invoice PDF and the accounting CSVs (export/). */
  exports: InvoiceExportService;
}

/** A billing route: a route spec whose handler also gets the billing services. */
export type BillingRouteSpec<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  R extends z.ZodType,
> = Omit<RouteSpec<P, Q, B, R>, 'handler' | 'cloudOwnedAtLinkedEdge'> & {
  handler: (
    input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>,
    billing: BillingServices,
  ) => Promise<HandlerResult<R>> | HandlerResult<R>;
};

/** Where every billing route is registered (billing/index.ts registers them all, in one order). */
export interface BillingRoutes {
  add<
    P extends AnyObject = z.ZodObject<Record<string, never>>,
    Q extends AnyObject = z.ZodObject<Record<string, never>>,
    B extends z.ZodType = z.ZodUndefined,
    R extends z.ZodType = z.ZodUnknown,
  >(spec: BillingRouteSpec<P, Q, B, R>): void;
}

/** Each billing route's OpenAPI 409 names the refusal of a linked edge, whichever part serves it. */
const AT_LINKED_EDGE = 'billing is done at the cloud (nothing is changed)';

/** The full part: each route's handler gets the services. */
export function servedHere(r: Pick<RouteRegistrar, 'add'>, billing: BillingServices): BillingRoutes {
  return {
    add: (spec) =>
      r.add({
        ...spec,
        cloudOwnedAtLinkedEdge: AT_LINKED_EDGE,
        handler: (input) => spec.handler(input, billing),
      }),
  };
}

/**
 * The part of an edge linked to a cloud: every route answers 409 `cloud-owned` right after the role
 * check, before its input is read (so every billing route, reads included, refuses alike), and
 * changes nothing. No billing service exists there.
 */
export function cloudOwned(r: Pick<RouteRegistrar, 'add'>): BillingRoutes {
  const refuse: RequestHandler = () => {
    throw billingIsTheClouds();
  };
  return {
    add: ({ handler: _handler, ...spec }) =>
      r.add({
        ...spec,
        middleware: [refuse, ...(spec.middleware ?? [])],
        cloudOwnedAtLinkedEdge: AT_LINKED_EDGE,
        // Never reached (`refuse` answers first); refuses alike should the middleware ever move.
        handler: () => {
          throw billingIsTheClouds();
        },
      }),
  };
}

function billingIsTheClouds(): ConflictError {
  return new ConflictError(
    'cloud-owned',
    'Billing is done at the cloud for a site linked to it. Use the cloud’s billing routes or its dashboard.',
  );
}
