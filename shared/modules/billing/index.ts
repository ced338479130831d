import type { CoreParts } from '../../core-parts.js';
import { refusedAtLinkedEdge, servedHere } from '../../http/placed-routes.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { CarrierService } from '../carriers/service.js';
import type { SettingsService } from '../settings/service.js';
import type { IntegratorEvents } from '../webhooks/port.js';
import type { YardService } from '../yards/service.js';
import { registerAdjustmentRoutes } from './adjustment/routes.js';
import { AdjustmentService } from './adjustment/service.js';
import { BillingCalculator } from './calculator.js';
import { registerCarrierConfigRoutes } from './config/carrier-routes.js';
import { CarrierConfigService } from './config/carrier-service.js';
import { registerBillingConfigRoutes } from './config/routes.js';
import { BillingConfigService } from './config/service.js';
import { registerExportRoutes } from './export/routes.js';
import { InvoiceExportService } from './export/service.js';
import { BillingInputs } from './inputs.js';
import { InvoiceGeneration } from './invoice/generation.js';
import { InvoiceLifecycle } from './invoice/lifecycle.js';
import { InvoiceOverage } from './invoice/overage.js';
import { registerInvoiceRoutes } from './invoice/routes.js';
import type { SiteWait } from './invoice/waiting.js';
import { BILLING_AT_CLOUD, type BillingRoutes, type BillingServices } from './place.js';
import { AutoDrafts } from './schedule.js';
import { registerSummaryRoutes } from './summary/routes.js';
import { SummaryService } from './summary/service.js';

/**
 * Billing (docs/domain.md "Billing"), split by sub-domain: config/ (yard and carrier configs),
 * adjustment/, summary/ and invoice/ (generation, lifecycle, overage, exports), all computing
 * through calculator.ts and the pure compute/ (no I/O, no clock of its own). Billing records are
 * local to the node (never synced).
 *
 * Where billing is done is chosen once, at the composition root (shared/services.ts), as one of two
 * parts: billingHere (the cloud and a standalone edge) or billingAtCloud (an edge linked to a cloud).
 * Both register the same routes, so the OpenAPI document is the same on every node.
 */
export interface BillingPart {
  /** Where the billing routes go: served by the services, or refused as the cloud's (place.ts). */
  routes(registrar: Pick<RouteRegistrar, 'add'>): BillingRoutes;
  /** Automatic drafts of the previous period (schedule.ts); none where billing is the cloud's. */
  autoDrafts: AutoDrafts | null;
}

/** What billing reads outside its own tables: yards (time zone, code), carriers (name, SCAC), settings. */
export type BillingDeps = Pick<CoreParts, 'kysely' | 'clock' | 'log'> & {
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
  settings: Pick<SettingsService, 'get'>;
  /** Which yards wait for their site before a past period is invoiced (invoice/waiting.ts). */
  siteWait: SiteWait;
  /** Invoice issued / voided events for webhooks, written in the change's transaction. */
  events: IntegratorEvents;
};

/** The full part: billing is done here (the cloud, a standalone edge). */
export function billingHere(deps: BillingDeps): BillingPart {
  const { kysely, clock, log, settings, yards, carriers, events } = deps;
  const calculator = new BillingCalculator(new BillingInputs(kysely));
  const summaries = new SummaryService({ kysely, clock, yards, carriers, calculator });
  const generation = new InvoiceGeneration({
    kysely,
    clock,
    yards,
    carriers,
    calculator,
    summaries,
    siteWait: deps.siteWait,
  });
  const services: BillingServices = {
    config: new BillingConfigService({ kysely, clock, yards }),
    carrierConfigs: new CarrierConfigService({ kysely, clock, yards, carriers }),
    summaries,
    generation,
    invoices: new InvoiceLifecycle({ kysely, clock, yards, carriers, events }),
    overage: new InvoiceOverage({ kysely, clock, carriers, calculator, summaries }),
    adjustments: new AdjustmentService({ kysely, clock, yards, carriers }),
    exports: new InvoiceExportService({ kysely, yards }),
  };
  const autoDrafts = new AutoDrafts({
    kysely,
    clock,
    log,
    settings,
    yards,
    inputs: calculator.inputs,
    generation,
  });
  return { routes: (registrar) => servedHere(registrar, services, BILLING_AT_CLOUD), autoDrafts };
}

/**
 * The part of an edge linked to a cloud: billing is the cloud's. Every billing route answers 409
 * `cloud-owned`; no billing service and no automatic drafts exist here.
 */
export function billingAtCloud(): BillingPart {
  return {
    routes: (registrar) => refusedAtLinkedEdge<BillingServices>(registrar, BILLING_AT_CLOUD),
    autoDrafts: null,
  };
}

export function registerBillingRoutes(registrar: RouteRegistrar, billing: BillingPart): void {
  // Each sub-domain registers its routes here (tag 'Billing'), through the part.
  const r = billing.routes(registrar);
  registerBillingConfigRoutes(r);
  registerCarrierConfigRoutes(r);
  registerSummaryRoutes(r);
  registerExportRoutes(r);
  registerInvoiceRoutes(r);
  registerAdjustmentRoutes(r);
}
