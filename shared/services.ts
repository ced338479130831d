import type { CoreParts } from './core-parts.js';
import { SharedAnswers } from './http/shared-answers.js';
import { AttachmentService } from './modules/attachments/service.js';
import { AuthService } from './modules/auth/service.js';
import { type BillingServices, createBillingServices } from './modules/billing/index.js';
import { onvifOnLan, onvifThroughSite } from './modules/cameras/onvif-reach.js';
import { CameraService } from './modules/cameras/service.js';
import { CarrierService } from './modules/carriers/service.js';
import { dashboardRollups } from './modules/dashboard/rollups/observer.js';
import { DashboardService } from './modules/dashboard/service.js';
import { DriverAppService } from './modules/driver-app/service.js';
import { DriverRepo } from './modules/drivers/repo.js';
import { DriverService } from './modules/drivers/service.js';
import { HardwareService } from './modules/hardware/service.js';
import { IntegrationService } from './modules/integrations/service.js';
import { GateActuation } from './modules/movements/actuate.js';
import { movementRecorder } from './modules/movements/group-commit.js';
import { GatePictures } from './modules/movements/pictures.js';
import { MovementService } from './modules/movements/service.js';
import { MovementChecks } from './modules/movements/validate.js';
import { PushService } from './modules/push/service.js';
import { SearchService } from './modules/search/service.js';
import { SettingsService } from './modules/settings/service.js';
import { awaitSiteUpload, BlobFetcher } from './modules/sync/blob-fetch.js';
import { SyncBlobService } from './modules/sync/blob-service.js';
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
  /** Figure answers shared by dashboards polling together (http/shared-answers.ts). */
  figureAnswers: SharedAnswers;
  hardware: HardwareService;
  tasks: TaskService;
  driverApp: DriverAppService;
  push: PushService;
  cameras: CameraService;
  integrations: IntegrationService;
  billing: BillingServices;
  search: SearchService;
  /** The cloud's side of the sites' attachment bytes (/api/sync/blob); none at an edge. */
  siteBytes: SyncBlobService | undefined;
}

/**
 * Builds each module's service once, in dependency order: a service gets the parts it names and the
 * services it calls.
 */
export function createServices(core: CoreParts): Services {
  const settings = new SettingsService(core);
  const carriers = new CarrierService(core);
  // The edge/cloud differences below follow the side chosen at start (core.syncSide): the hub
  // awaits bytes from the sites and serves them; an edge fetches bytes from the cloud; drivers
  // (whom auto-dispatch assigns) work at edges; the hub is on no yard's LAN, so the edge of a
  // camera's site calls an ONVIF camera for it.
  const missingBytes = core.syncSide.hub ? awaitSiteUpload : new BlobFetcher(core);
  const attachments = new AttachmentService({ ...core, settings, missingBytes });
  const siteBytes = core.syncSide.hub ? new SyncBlobService({ ...core, attachments }) : undefined;
  const integrations = new IntegrationService({ ...core, settings });
  // A command to the edge of a yard's site (cloud); core.sync gets its command link after the
  // services are built, so it is read when a command is sent.
  const runAtSite: RunAtSiteOfYard = (yardId, kind, args, schema) =>
    commandAtSiteOfYard(core, yardId, kind, args, schema);
  const onvifReach = core.syncSide.hub ? onvifThroughSite(runAtSite) : onvifOnLan;
  const cameras = new CameraService({ ...core, integrations, attachments, onvifReach });
  const hardware = new HardwareService({ ...core, settings, runAtSite });
  const yards = new YardService({ ...core, cameras, hardware });
  // Auth reads drivers' credentials through its DriverCredentials interface (drivers call auth, so not the service).
  const auth = new AuthService({ ...core, yards, driverCredentials: new DriverRepo(core.kysely) });
  const drivers = new DriverService({ ...core, auth, carriers });
  const trucks = new TruckService({ ...core, carriers, yards, attachments });
  const trailers = new TrailerService({ ...core, yards, carriers });
  // A gate movement's steps, run in this order by MovementService.create (docs/architecture.md).
  const movements = new MovementService({
    ...core,
    checks: new MovementChecks({ ...core, attachments, settings, drivers }),
    pictures: new GatePictures({ ...core, settings, cameras }),
    recorder: movementRecorder({ ...core, trailers, trucks }),
    actuation: new GateActuation({ ...core, hardware }),
  });
  // The dashboard's rollups follow every write of the rows they count, in its transaction: local
  // writes (ChangeCapture) and rows from peers (the sync applier reads the same observer list).
  const figureAnswers = new SharedAnswers(core.clock);
  core.changes.observers.add(dashboardRollups(core.db, figureAnswers.changed));
  const dashboard = new DashboardService({ ...core, settings });
  const push = new PushService(core);
  const tasks = new TaskService({ ...core, settings, push, trailers, autoDispatch: !core.syncSide.hub });
  const driverApp = new DriverAppService({ ...core, yards, settings, tasks });
  const billing = createBillingServices({ ...core, yards, carriers, settings });
  const search = new SearchService({ trailers, trucks, drivers, carriers, movements, yards });
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
    figureAnswers,
    hardware,
    tasks,
    driverApp,
    push,
    cameras,
    integrations,
    billing,
    search,
    siteBytes,
  };
}
