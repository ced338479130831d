import type { CoreParts } from '../../core-parts.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { CarrierService } from '../carriers/service.js';
import type { SettingsService } from '../settings/service.js';
import type { YardService } from '../yards/service.js';
import { registerBillingConfigRoutes } from './config/routes.js';
import { BillingConfigService } from './config/service.js';

/**
 * Billing (docs/domain.md "Billing"), split by sub-domain: config/ (yard and carrier configs),
 * adjustment/, summary/ and invoice/ (generation, lifecycle, exports), all computing through the
 * pure compute/ (no I/O, no clock of its own). Billing records are local to the node (never synced)
 * and exist only where billing lives (place.ts): the cloud and a standalone edge.
 */
export type BillingServices = {
  /** Yard and carrier billing configs, and the rates in force for a carrier (config/). */
  config: BillingConfigService;
};

/** What billing reads outside its own tables: yards (time zone, code), carriers (name, SCAC). */
export type BillingDeps = CoreParts & {
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
  settings: Pick<SettingsService, 'get'>;
};

export function createBillingServices(deps: BillingDeps): BillingServices {
  const config = new BillingConfigService(deps);
  return { config };
}

export function registerBillingRoutes(r: RouteRegistrar, billing: BillingServices): void {
  // Each sub-domain registers its routes here (tag 'Billing').
  registerBillingConfigRoutes(r, billing.config);
}
