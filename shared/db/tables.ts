import type { LoadStatus, StaffRole, TaskStatus, TaskType, TrailerType } from '../enums.js';
import type {
  ApiKeyTable,
  AppUserTable,
  AuthTokenTable,
  CarrierUserTable,
  ServerSecretTable,
} from './tables/access.js';
import type {
  AppointmentEventTable,
  AppointmentTable,
  LoadTypeTable,
  SchedulingConfigTable,
} from './tables/appointments.js';
import type {
  BillingAutoRunTable,
  BillingCarrierConfigTable,
  BillingSummaryTable,
  BillingYardConfigTable,
  InvoiceAdjustmentTable,
  InvoiceTable,
} from './tables/billing.js';
import type {
  DashboardMovementCountTable,
  DashboardTruckArrivalTable,
  DashboardYardFigureTable,
} from './tables/dashboard.js';
import type { DriverSessionTable, PushTokenTable, SessionLocationTable } from './tables/driver-app.js';
import type { EmailMessageTable, EmailSettingsTable } from './tables/email.js';
import type {
  CarrierTable,
  DriverTable,
  TrailerTable,
  TruckInspectionTable,
  TruckTable,
} from './tables/fleet.js';
import type { AttachmentTable, GateActuationTable, MovementTable, VisitTable } from './tables/movements.js';
import type { HttpErrorStatTable, IdempotencyKeyTable, SettingTable } from './tables/platform.js';
import type {
  BlobUploadTable,
  ChangeLogTable,
  DeadLetterTable,
  SiteTable,
  SyncCursorTable,
  SyncMetaTable,
  SyncPeerCountTable,
  SyncPendingTable,
  SyncTombstoneTable,
} from './tables/sync.js';
import type { TaskEventTable, YardTaskTable } from './tables/tasks.js';
import type {
  JobLeaseTable,
  WebhookAttemptTable,
  WebhookDeliveryTable,
  WebhookEndpointTable,
  WebhookEventTable,
} from './tables/webhooks.js';
import type { CameraTable, GateTable, IntegrationTable, LocationTable, YardTable } from './tables/yard.js';

export type * from './tables/access.js';
export type * from './tables/appointments.js';
export type * from './tables/billing.js';
export type * from './tables/dashboard.js';
export type * from './tables/driver-app.js';
export type * from './tables/email.js';
export type * from './tables/fleet.js';
export type * from './tables/movements.js';
export type * from './tables/platform.js';
export type * from './tables/sync.js';
export type * from './tables/tasks.js';
export type * from './tables/webhooks.js';
export type * from './tables/yard.js';
export type { LoadStatus, StaffRole, TaskStatus, TaskType, TrailerType };

/**
 * Kysely's view of the schema (camelCase; the CamelCasePlugin maps to snake_case columns), one file
 * per area under tables/. Keep in step with the migrations (test/unit/tables-schema.test.ts checks
 * every table's columns against a migrated database). JSON columns are strings here; repos parse them.
 */
export interface DB {
  changeLog: ChangeLogTable;
  syncCursor: SyncCursorTable;
  deadLetter: DeadLetterTable;
  site: SiteTable;
  syncMeta: SyncMetaTable;
  syncTombstone: SyncTombstoneTable;
  syncPending: SyncPendingTable;
  syncPeerCount: SyncPeerCountTable;
  blobUpload: BlobUploadTable;
  appUser: AppUserTable;
  carrierUser: CarrierUserTable;
  apiKey: ApiKeyTable;
  authToken: AuthTokenTable;
  serverSecret: ServerSecretTable;
  yard: YardTable;
  location: LocationTable;
  gate: GateTable;
  camera: CameraTable;
  integration: IntegrationTable;
  carrier: CarrierTable;
  driver: DriverTable;
  truck: TruckTable;
  truckInspection: TruckInspectionTable;
  trailer: TrailerTable;
  gateActuation: GateActuationTable;
  movement: MovementTable;
  visit: VisitTable;
  attachment: AttachmentTable;
  setting: SettingTable;
  httpErrorStat: HttpErrorStatTable;
  idempotencyKey: IdempotencyKeyTable;
  yardTask: YardTaskTable;
  dashboardMovementCount: DashboardMovementCountTable;
  dashboardYardFigure: DashboardYardFigureTable;
  dashboardTruckArrival: DashboardTruckArrivalTable;
  taskEvent: TaskEventTable;
  schedulingConfig: SchedulingConfigTable;
  loadType: LoadTypeTable;
  appointment: AppointmentTable;
  appointmentEvent: AppointmentEventTable;
  driverSession: DriverSessionTable;
  sessionLocation: SessionLocationTable;
  pushToken: PushTokenTable;
  billingYardConfig: BillingYardConfigTable;
  billingCarrierConfig: BillingCarrierConfigTable;
  billingSummary: BillingSummaryTable;
  invoice: InvoiceTable;
  invoiceAdjustment: InvoiceAdjustmentTable;
  billingAutoRun: BillingAutoRunTable;
  jobLease: JobLeaseTable;
  webhookEndpoint: WebhookEndpointTable;
  webhookEvent: WebhookEventTable;
  webhookDelivery: WebhookDeliveryTable;
  webhookAttempt: WebhookAttemptTable;
  emailSettings: EmailSettingsTable;
  emailMessage: EmailMessageTable;
}
