import type { CoreParts } from '../../core-parts.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { CarrierService } from '../carriers/service.js';
import type { SettingsService } from '../settings/service.js';
import type { YardService } from '../yards/service.js';
import { registerAdjustmentRoutes } from './adjustment/routes.js';
import { AdjustmentService } from './adjustment/service.js';
import { registerBillingConfigRoutes } from './config/routes.js';
import { BillingConfigService } from './config/service.js';
import { registerExportRoutes } from './export/routes.js';
import { InvoiceExportService } from './export/service.js';
import { BillingCalculator, BillingInputs } from './inputs.js';
import { registerInvoiceRoutes } from './invoice/routes.js';
import { InvoiceService } from './invoice/service.js';
import { SiteSyncCheck } from './invoice/waiting.js';
import { billingRoutes } from './place.js';
import { AutoDrafts } from './schedule.js';
import { registerSummaryRoutes } from './summary/routes.js';
import { SummaryService } from './summary/service.js';

/**
 * Billing (docs/domain.md "Billing"), split by sub-domain: config/ (yard and carrier configs),
 * adjustment/, summary/ and invoice/ (generation, lifecycle, exports), all computing through the
 * pure compute/ (no I/O, no clock of its own). Billing records are local to the node (never synced)
 * and exist only where billing lives (place.ts): the cloud and a standalone edge.
 */
export type BillingServices = {
  /** Yard and carrier billing configs, and the rates in force for a carrier (config/). */
  config: BillingConfigService;
  summaries: SummaryService;
  invoices: InvoiceService;
  adjustments: AdjustmentService;
  /** The invoice PDF and the accounting CSVs (export/). */
  exports: InvoiceExportService;
  /** Automatic drafts of the previous period (schedule.ts); null at a linked edge (billing is the cloud's). */
  autoDrafts: AutoDrafts | null;
};

/** What billing reads outside its own tables: yards (time zone, code), carriers (name, SCAC). */
export type BillingDeps = CoreParts & {
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
  settings: Pick<SettingsService, 'get'>;
};

export function createBillingServices(deps: BillingDeps): BillingServices {
  const config = new BillingConfigService(deps);
  const calculator = new BillingCalculator(new BillingInputs(deps.kysely));
  const summaries = new SummaryService({ ...deps, calculator });
  // Only the cloud waits for sites; a standalone edge holds all its own activity.
  const siteSync = deps.sync.mode === 'cloud' ? new SiteSyncCheck(deps.kysely) : null;
  const invoices = new InvoiceService({ ...deps, calculator, summaries, siteSync });
  const adjustments = new AdjustmentService(deps);
  const exports = new InvoiceExportService(deps);
  const autoDrafts =
    deps.sync.mode === 'linked' ? null : new AutoDrafts({ ...deps, inputs: calculator.inputs, invoices });
  return { config, summaries, invoices, adjustments, exports, autoDrafts };
}

export function registerBillingRoutes(
  registrar: RouteRegistrar,
  billing: BillingServices,
  changes: CoreParts['changes'],
): void {
  // Each sub-domain registers its routes here (tag 'Billing'), each one refused at a linked edge.
  const r = billingRoutes(registrar, changes);
  registerBillingConfigRoutes(r, billing.config);
  registerSummaryRoutes(r, billing);
  registerExportRoutes(r, billing);
  registerInvoiceRoutes(r, billing);
  registerAdjustmentRoutes(r, billing);
}
