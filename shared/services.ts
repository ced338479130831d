import type { Core } from './core.js';
import { AttachmentService } from './modules/attachments/service.js';
import { AuthService } from './modules/auth/service.js';
import { CameraService } from './modules/cameras/service.js';
import { CarrierService } from './modules/carriers/service.js';
import { DashboardService } from './modules/dashboard/service.js';
import { DriverAppService } from './modules/driver-app/service.js';
import { DriverService } from './modules/drivers/service.js';
import { HardwareService } from './modules/hardware/service.js';
import { IntegrationService } from './modules/integrations/service.js';
import { MovementService } from './modules/movements/service.js';
import { PushService } from './modules/push/service.js';
import { SettingsService } from './modules/settings/service.js';
import { TaskService } from './modules/tasks/service.js';
import { TrailerService } from './modules/trailers/service.js';
import { TruckService } from './modules/trucks/service.js';
import { YardService } from './modules/yards/service.js';

/** One instance of each module's service per app. Services reach each other through core.services. */
export interface Services {
  auth: AuthService;
  settings: SettingsService;
  yards: YardService;
  carriers: CarrierService;
  drivers: DriverService;
  trucks: TruckService;
  trailers: TrailerService;
  movements: MovementService;
  attachments: AttachmentService;
  dashboard: DashboardService;
  hardware: HardwareService;
  tasks: TaskService;
  driverApp: DriverAppService;
  push: PushService;
  cameras: CameraService;
  integrations: IntegrationService;
}

export function createServices(core: Core): Services {
  return {
    auth: new AuthService(core),
    settings: new SettingsService(core),
    yards: new YardService(core),
    carriers: new CarrierService(core),
    drivers: new DriverService(core),
    trucks: new TruckService(core),
    trailers: new TrailerService(core),
    movements: new MovementService(core),
    attachments: new AttachmentService(core),
    dashboard: new DashboardService(core),
    hardware: new HardwareService(core),
    tasks: new TaskService(core),
    driverApp: new DriverAppService(core),
    push: new PushService(core),
    cameras: new CameraService(core),
    integrations: new IntegrationService(core),
  };
}
