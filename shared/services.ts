import type { Core } from './core.js';
import { AttachmentService } from './modules/attachments/service.js';
import { AuthService } from './modules/auth/service.js';
import { onvifOnLan, onvifThroughSite } from './modules/cameras/onvif-reach.js';
import { CameraService } from './modules/cameras/service.js';
import { CarrierService } from './modules/carriers/service.js';
import { DashboardService } from './modules/dashboard/service.js';
import { DriverAppService } from './modules/driver-app/service.js';
import { DriverService } from './modules/drivers/service.js';
import { HardwareService } from './modules/hardware/service.js';
import { IntegrationService } from './modules/integrations/service.js';
import { GateStation } from './modules/movements/gate-station.js';
import { MovementService } from './modules/movements/service.js';
import { PushService } from './modules/push/service.js';
import { SettingsService } from './modules/settings/service.js';
import { TaskService } from './modules/tasks/service.js';
import { TrailerService } from './modules/trailers/service.js';
import { TruckService } from './modules/trucks/service.js';
import { YardService } from './modules/yards/service.js';
import { commandAtSiteOfYard, type RunAtSiteOfYard } from './sync/commands.js';

/** One instance of each module's service per app. */
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

/**
 * Builds each module's service once, in dependency order: a service gets the parts it names and the
 * services it calls. (Services still taking the whole core reach others through core.services.)
 */
export function createServices(core: Core): Services {
  const auth = new AuthService(core);
  const settings = new SettingsService(core);
  const yards = new YardService(core);
  const carriers = new CarrierService(core);
  const drivers = new DriverService(core);
  const trucks = new TruckService(core);
  const trailers = new TrailerService(core);
  const attachments = new AttachmentService(core);
  const dashboard = new DashboardService(core);
  // A command to the edge of a yard's site (cloud); core.sync gets its command link after the
  // services are built, so it is read when a command is sent.
  const runAtSite: RunAtSiteOfYard = (yardId, kind, args, schema) =>
    commandAtSiteOfYard(core, yardId, kind, args, schema);
  const hardware = new HardwareService({ ...core, settings, runAtSite });
  const tasks = new TaskService(core);
  const driverApp = new DriverAppService(core);
  const push = new PushService(core);
  const integrations = new IntegrationService({ ...core, settings });
  // The cloud is on no yard's LAN: it has the edge of a camera's site call an ONVIF camera for it.
  const onvifReach = core.config.role === 'cloud' ? onvifThroughSite(runAtSite) : onvifOnLan;
  const cameras = new CameraService({ ...core, integrations, attachments, onvifReach });
  const gateStation = new GateStation({ ...core, settings, drivers, cameras, hardware });
  const movements = new MovementService({ ...core, gateStation });
  return {
    auth,
    settings,
    yards,
    carriers,
    drivers,
    trucks,
    trailers,
    movements,
    attachments,
    dashboard,
    hardware,
    tasks,
    driverApp,
    push,
    cameras,
    integrations,
  };
}
