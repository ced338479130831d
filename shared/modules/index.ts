import type { Core } from '../core.js';
import type { RouteRegistrar } from '../http/routes.js';
import { registerAppointmentRoutes } from './appointments/routes.js';
import { registerAttachmentRoutes } from './attachments/routes.js';
import { registerAuthRoutes } from './auth/routes.js';
import { registerBillingRoutes } from './billing/index.js';
import { registerCameraRoutes } from './cameras/routes.js';
import { registerCarrierRoutes } from './carriers/routes.js';
import { registerDashboardRoutes } from './dashboard/routes.js';
import { registerDriverAppRoutes } from './driver-app/routes.js';
import { registerDriverRoutes } from './drivers/routes.js';
import { registerHardwareRoutes } from './hardware/routes.js';
import { registerIntegrationRoutes } from './integrations/routes.js';
import { registerMovementRoutes } from './movements/routes.js';
import { registerPushKeyRoute } from './push/routes.js';
import { registerSearchRoutes } from './search/routes.js';
import { registerSettingsRoutes } from './settings/routes.js';
import { registerSyncBlobRoutes } from './sync/blob-routes.js';
import { registerTaskRoutes } from './tasks/routes.js';
import { registerTrailerRoutes } from './trailers/routes.js';
import { registerTruckRoutes } from './trucks/routes.js';
import { registerUiAssetRoutes, registerWebAppRoutes } from './ui-assets/routes.js';
import { registerYardRoutes } from './yards/routes.js';

/** Every domain module's routes (which one answers a path does not depend on this order: RouteRegistrar). */
export function registerModuleRoutes(r: RouteRegistrar, core: Core): void {
  registerAuthRoutes(r, { auth: core.services.auth, config: core.config });
  registerDashboardRoutes(r, { dashboard: core.services.dashboard, answers: core.services.figureAnswers });
  registerYardRoutes(r, { yards: core.services.yards });
  registerCarrierRoutes(r, { carriers: core.services.carriers });
  registerDriverRoutes(r, { drivers: core.services.drivers });
  registerTruckRoutes(r, { trucks: core.services.trucks });
  registerTrailerRoutes(r, { trailers: core.services.trailers });
  registerMovementRoutes(r, { movements: core.services.movements });
  registerSearchRoutes(r, { search: core.services.search });
  registerAttachmentRoutes(r, core.services);
  registerSyncBlobRoutes(r, core.services);
  registerSettingsRoutes(r, { settings: core.services.settings });
  registerUiAssetRoutes(r, core);
  registerHardwareRoutes(r, { hardware: core.services.hardware });
  registerCameraRoutes(r, { cameras: core.services.cameras, integrations: core.services.integrations });
  registerIntegrationRoutes(r, { integrations: core.services.integrations });
  registerDriverAppRoutes(r, { ...core, ...core.services });
  registerPushKeyRoute(r, core.services);
  registerTaskRoutes(r, core.services);
  registerBillingRoutes(r, core.services.billing);
  registerAppointmentRoutes(r, core.services);
  registerWebAppRoutes(r, core);
}
