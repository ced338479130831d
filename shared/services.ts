import type { CoreParts } from './core-parts.js';
import { SharedAnswers } from './http/shared-answers.js';
import { GateArrivals } from './modules/appointments/arrivals.js';
import { AppointmentBooking } from './modules/appointments/booking.js';
import { SchedulingConfigService } from './modules/appointments/config-service.js';
import { GateAppointmentService } from './modules/appointments/gate-service.js';
import { AppointmentAnnouncer, type AppointmentViews } from './modules/appointments/gate-writes.js';
import { LoadTypeService } from './modules/appointments/load-type-service.js';
import { NoShowSweep } from './modules/appointments/no-show-sweep.js';
import { GatePassService } from './modules/appointments/pass/service.js';
import { ReportService } from './modules/appointments/report-service.js';
import { AppointmentService } from './modules/appointments/service.js';
import { SlotService } from './modules/appointments/slots-service.js';
import { YardEvents } from './modules/appointments/yard-events.js';
import type { MissingBytes } from './modules/attachments/missing-bytes.js';
import { AttachmentService } from './modules/attachments/service.js';
import { AuthService } from './modules/auth/service.js';
import { signOutsOnChange } from './modules/auth/sign-outs.js';
import type { BillingPart } from './modules/billing/index.js';
import type { OnvifReach } from './modules/cameras/onvif-reach.js';
import { CameraService } from './modules/cameras/service.js';
import { CarrierPortalService } from './modules/carrier-portal/service.js';
import { CarrierService } from './modules/carriers/service.js';
import { dashboardRollups } from './modules/dashboard/rollups/observer.js';
import { DashboardService } from './modules/dashboard/service.js';
import { DriverAppService } from './modules/driver-app/service.js';
import { DriverRepo } from './modules/drivers/repo.js';
import { DriverService } from './modules/drivers/service.js';
import type { PassFiles } from './modules/email/compose.js';
import type { EmailPart } from './modules/email/index.js';
import type { GateRelays } from './modules/hardware/relays.js';
import { HardwareService } from './modules/hardware/service.js';
import { IntegrationService } from './modules/integrations/service.js';
import { GateActuation } from './modules/movements/actuate.js';
import { movementRecorder } from './modules/movements/group-commit.js';
import { GatePictures } from './modules/movements/pictures.js';
import { MovementService } from './modules/movements/service.js';
import { MovementChecks } from './modules/movements/validate.js';
import { visitsOfMovements } from './modules/movements/visits.js';
import { PushService } from './modules/push/service.js';
import { SearchService } from './modules/search/service.js';
import { SettingsService } from './modules/settings/service.js';
import type { SyncBlobService } from './modules/sync/blob-service.js';
import { TaskService } from './modules/tasks/service.js';
import { taskEventsGoWithTask } from './modules/tasks/task-events-go.js';
import { TrailerService } from './modules/trailers/service.js';
import { TruckService } from './modules/trucks/service.js';
import type { WebhooksPart } from './modules/webhooks/index.js';
import type { IntegratorEvents } from './modules/webhooks/port.js';
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
  /** Billing done here, or the cloud's (modules/billing/index.ts). */
  billing: BillingPart;
  search: SearchService;
  /** The cloud's side of the sites' attachment bytes (/api/sync/blob); none at an edge. */
  siteBytes: SyncBlobService | undefined;
  /** Dock appointments (docs/domain.md "Appointments"): scheduling configs, load types, bookings. */
  appointments: AppointmentService;
  appointmentBooking: AppointmentBooking;
  appointmentSlots: SlotService;
  schedulingConfigs: SchedulingConfigService;
  loadTypes: LoadTypeService;
  /** Appointments: the detention report and the on-time / wait / turn summary. */
  appointmentReports: ReportService;
  /** Appointments at the gate: status by hand, by code (modules/appointments/gate-service.ts). */
  gateAppointments: GateAppointmentService;
  /** The no-show sweep where arrivals are known (an edge); none at the cloud. */
  noShowSweep: NoShowSweep | null;
  /** Gate passes (page, PDF, QR code, .ics) and their renderer, also for mail attachments. */
  gatePasses: GatePassService;
  /** What the carrier portal reads besides appointments (modules/carrier-portal). */
  carrierPortal: CarrierPortalService;
  /** Email to carriers, sent here, or the cloud's (modules/email/index.ts). */
  email: EmailPart;
  /** Signed webhooks here (the cloud, a standalone edge), or the cloud's (modules/webhooks/index.ts). */
  webhooks: WebhooksPart;
}

/** What a role's part is built from: the core, the settings and a command to a yard's site. */
export type RolePartDeps = CoreParts & { settings: SettingsService; runAtSite: RunAtSiteOfYard };

/**
 * The parts that differ between a standalone edge, a linked edge and the cloud, chosen by createApp
 * from the role profile (shared/role-parts.ts rolePlugs, shared/role-profile.ts) and built here once what
 * they need exists. The modules call them and never ask where they run.
 */
export interface RolePlugs {
  /** Attachment bytes this database lacks: fetched from the cloud, awaited from a site, or none. */
  missingBytes(deps: RolePartDeps): MissingBytes;
  /** The cloud's side of the sites' attachment uploads (/api/sync/blob); none at an edge. */
  siteBytes(deps: RolePartDeps & { attachments: AttachmentService }): SyncBlobService | undefined;
  /** ONVIF cameras on this yard's LAN, or reached through the edge of their site. */
  onvifReach(deps: RolePartDeps): OnvifReach;
  /** The gates' relays: wired here, or at the sites (an actuation is forwarded there). */
  relays(deps: RolePartDeps): GateRelays;
  /** Queued tasks are dispatched to drivers where drivers work (an edge). */
  autoDispatch: boolean;
  /** The no-show sweep runs where arrivals are known: an edge, linked or standalone, never the cloud. */
  noShowSweep: boolean;
  /** The cloud shows an overdue appointment of an offline site as such (docs/domain.md "Appointments"). */
  appointmentsAtCloud: boolean;
  /** Carrier users are served here (the cloud, a standalone edge); a linked edge has none. */
  carrierPortalHere: boolean;
  /** Billing done here (the cloud, a standalone edge), or the cloud's (a linked edge refuses it). */
  billing(
    deps: RolePartDeps & { yards: YardService; carriers: CarrierService; events: IntegratorEvents },
  ): BillingPart;
  /** Email to carriers sent here (the cloud, a standalone edge), or the cloud's (a linked edge refuses it). */
  email(deps: RolePartDeps & { pass: PassFiles }): EmailPart;
  /** Webhooks registered and delivered here (the cloud, a standalone edge), or at the cloud. */
  webhooks(deps: RolePartDeps & { yards: YardService; carriers: CarrierService }): WebhooksPart;
}

/**
 * Builds each module's service once, in dependency order: a service gets the parts it names and the
 * services it calls, and the role's parts as `plugs` chose them.
 */
export function createServices(core: CoreParts, plugs: RolePlugs): Services {
  const settings = new SettingsService(core);
  const carriers = new CarrierService(core);
  // A command to the edge of a yard's site (cloud); core.sync gets its command link after the
  // services are built, so it is read when a command is sent.
  const runAtSite: RunAtSiteOfYard = (yardId, kind, args, schema) =>
    commandAtSiteOfYard(core, yardId, kind, args, schema);
  const part = { ...core, settings, runAtSite };
  const attachments = new AttachmentService({ ...core, settings, missingBytes: plugs.missingBytes(part) });
  const siteBytes = plugs.siteBytes({ ...part, attachments });
  const integrations = new IntegrationService({ ...core, settings });
  const onvifReach = plugs.onvifReach(part);
  const cameras = new CameraService({ ...core, integrations, attachments, onvifReach });
  const hardware = new HardwareService({ kysely: core.kysely, relays: plugs.relays(part) });
  const yards = new YardService({ ...core, cameras, hardware });
  // Auth reads drivers' credentials through its DriverCredentials interface (drivers call auth, so not the service).
  const auth = new AuthService({ ...core, yards, carriers, driverCredentials: new DriverRepo(core.kysely) });
  const drivers = new DriverService({ ...core, auth, carriers });
  const trucks = new TruckService({ ...core, carriers, yards, attachments });
  const trailers = new TrailerService({ ...core, yards, carriers });
  // The gate side of appointments (docs/domain.md "Appointments"): the arrival a check-in records,
  // docked / completed / departed from yard events (the trailer observer covers moves inside the
  // yard: tasks, moves by hand), the no-show sweep at the edge.
  // The booking side's AppointmentService (built below) shows them and publishes their event.
  const views: AppointmentViews = {
    outOf: async (ids) => {
      const found = await Promise.all(ids.map((id) => appointments.view(id).catch(() => undefined)));
      return found.filter((out) => out !== undefined);
    },
    publishChanged: (out) => appointments.publishChanged(out),
  };
  const announcer = new AppointmentAnnouncer({ ...core, views });
  const yardEvents = new YardEvents({ ...core, announcer });
  core.changes.observers.add(yardEvents.trailerObserver());
  const gateArrivals = new GateArrivals({ ...core, yardEvents, announcer });
  const gateAppointments = new GateAppointmentService({ ...core, announcer, views });
  const noShowSweep = plugs.noShowSweep ? new NoShowSweep({ ...core, announcer }) : null;
  // A gate movement's steps, run in this order by MovementService.create (docs/architecture.md).
  const movements = new MovementService({
    ...core,
    checks: new MovementChecks({ ...core, attachments, settings, drivers }),
    pictures: new GatePictures({ ...core, settings, cameras }),
    recorder: movementRecorder({ ...core, trailers, trucks, appointments: gateArrivals }),
    actuation: new GateActuation({ ...core, hardware }),
    appointments: gateArrivals,
  });
  // The dashboard's rollups follow every write of the rows they count, in its transaction: local
  // writes (ChangeCapture) and rows from peers (the sync applier reads the same observer list).
  const figureAnswers = new SharedAnswers(core.clock);
  core.changes.observers.add(dashboardRollups(core.db, figureAnswers.changed));
  // Rules derived from other rows, each its module's, run the same way on both write paths
  // (docs/sync.md "Derived state"): visits from gate movements, sign-outs from user and driver
  // changes, a deleted yard task's events.
  core.changes.observers.add(visitsOfMovements(core.db, core.changes.observers));
  core.changes.observers.add(signOutsOnChange(core.db, core.clock));
  core.changes.observers.addBeforeDelete(taskEventsGoWithTask(core.db));
  const dashboard = new DashboardService({ ...core, settings });
  const push = new PushService(core);
  const tasks = new TaskService({ ...core, settings, push, trailers, autoDispatch: plugs.autoDispatch });
  const driverApp = new DriverAppService({ ...core, yards, settings, tasks });
  // Signed webhooks: the outbox is written in the transaction of each appointment history row and
  // gate movement, local or from a site, and of each invoice issued or voided (docs/webhooks.md).
  const webhooks = plugs.webhooks({ ...part, yards, carriers });
  if (webhooks.outbox) core.changes.observers.add(webhooks.outbox);
  const billing = plugs.billing({ ...part, yards, carriers, events: webhooks.events });
  // Appointments: `overdue` is the cloud's view of an offline site's late trucks (out.ts).
  const appointments = new AppointmentService({ ...core, yards, atCloud: plugs.appointmentsAtCloud });
  const search = new SearchService({ trailers, trucks, drivers, carriers, movements, yards, appointments });
  const appointmentBooking = new AppointmentBooking({ ...core, appointments, yards, carriers });
  const appointmentSlots = new SlotService({ ...core, appointments, yards });
  const schedulingConfigs = new SchedulingConfigService({ ...core, yards });
  const loadTypes = new LoadTypeService({ ...core, yards });
  const appointmentReports = new ReportService(core);
  const gatePasses = new GatePassService(core);
  const carrierPortal = new CarrierPortalService({
    carriers,
    yards,
    loadTypes,
    // A carrier user's own record, read as the user it is (its scope is within itself).
    users: {
      namesOf: async (p) => {
        const user = await auth.getUser(p, p.id);
        return { username: user.username, displayName: user.displayName };
      },
    },
    here: plugs.carrierPortalHere,
  });
  // Email to carriers, with the gate pass attached: the outbox queues a mail in the transaction of
  // each appointment change a carrier is told of (docs/configuration.md "Email to carriers").
  const email = plugs.email({ ...part, pass: gatePasses.passes });
  if (email.outbox) core.changes.observers.add(email.outbox);
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
    appointments,
    appointmentBooking,
    appointmentSlots,
    schedulingConfigs,
    loadTypes,
    appointmentReports,
    gateAppointments,
    noShowSweep,
    gatePasses,
    carrierPortal,
    email,
    webhooks,
  };
}
