import { ConflictError } from '../../http/errors.js';
import type { LinkedEdgeRefusal, PlacedRouteSpec, PlacedRoutes } from '../../http/placed-routes.js';
import type { AnyObject } from '../../http/route-spec.js';
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
 * The composition root picks one of the two registrars of shared/http/placed-routes.ts
 * (billing/index.ts: billingHere, billingAtCloud); nothing inside billing asks again.
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
> = PlacedRouteSpec<BillingServices, P, Q, B, R>;

/** Where every billing route is registered (billing/index.ts registers them all, in one order). */
export type BillingRoutes = PlacedRoutes<BillingServices>;

/** How a linked edge refuses every billing route (shared/http/placed-routes.ts). */
export const BILLING_AT_CLOUD: LinkedEdgeRefusal = {
  documented: 'billing is done at the cloud (nothing is changed)',
  error: () =>
    new ConflictError(
      'cloud-owned',
      'Billing is done at the cloud for a site linked to it. Use the cloud’s billing routes or its dashboard.',
    ),
};
