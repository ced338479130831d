import type { Generated } from 'kysely';
import type {
  ActuationResult,
  CameraSource,
  Direction,
  LoadStatus,
  PartyStatus,
  StaffRole,
  TaskStatus,
  TaskType,
  TrailerType,
} from '../enums.js';

export type { LoadStatus, StaffRole, TaskStatus, TaskType, TrailerType };

/**
 * Kysely's view of the schema (camelCase; the CamelCasePlugin maps to snake_case columns).
 * Keep in step with the migrations. JSON columns are strings here; repos parse them.
 */
interface Synced {
  hlc: string;
  version: Generated<number>;
}
interface Timestamps {
  createdAt: number;
  updatedAt: number;
}
interface Shared {
  fieldHlc: Generated<string>;
}

export interface ChangeLogTable {
  seq: Generated<number>;
  peer: string;
  entity: string;
  entityId: string;
  op: 'upsert' | 'delete';
  hlc: string;
  origin: string;
  schemaV: number;
  data: string;
}

export interface SyncCursorTable {
  peer: string;
  ackedSeq: Generated<number>;
  appliedRemoteSeq: Generated<number>;
  remoteStream: string | null;
  ackedAt: number | null;
  appliedAt: number | null;
}

export interface SiteTable {
  id: string;
  name: string;
  mqttPasswordHash: string;
  createdAt: number;
  linkState: Generated<'never' | 'online' | 'offline'>;
  linkChangedAt: number | null;
  lastSeenAt: number | null;
  reportedQueued: Generated<number>;
  reportedSchemaV: number | null;
  reportedVersion: string | null;
  clockSkewMs: Generated<number>;
}

export interface SyncMetaTable {
  name: string;
  value: string;
}

export interface SyncTombstoneTable {
  entity: string;
  entityId: string;
  hlc: string;
}

export interface SyncPendingTable {
  id: Generated<number>;
  peer: string;
  seq: number;
  schemaV: number;
  entity: string;
  entityId: string;
  op: 'upsert' | 'delete';
  hlc: string;
  data: string;
}

export interface BlobUploadTable {
  sha256: string;
  uploadedAt: number | null;
  attempts: Generated<number>;
  nextAttemptAt: Generated<number>;
  lastError: string | null;
}

export interface DeadLetterTable {
  id: Generated<number>;
  peer: string;
  seq: number;
  entity: string;
  entityId: string;
  error: string;
  data: string;
  at: number;
}

export interface AppUserTable extends Synced, Timestamps {
  id: string;
  username: string;
  displayName: string | null;
  role: StaffRole;
  yardIds: string | null;
  passwordHash: string;
  disabled: Generated<number>;
}

export interface ApiKeyTable extends Synced, Timestamps {
  id: string;
  name: string;
  role: StaffRole;
  yardIds: string | null;
  secretHash: string;
  createdBy: string | null;
  revokedAt: number | null;
}

export interface AuthTokenTable {
  tokenHash: string;
  principalKind: 'user' | 'driver';
  principalId: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export interface YardTable extends Synced, Timestamps {
  id: string;
  code: string;
  name: string;
  timeZone: string;
  address: string | null;
  capacity: number | null;
  status: Generated<'active' | 'inactive'>;
  siteId: string;
}

export interface LocationTable extends Synced, Timestamps {
  id: string;
  yardId: string;
  kind: 'spot' | 'door' | 'zone' | 'staging';
  name: string;
  capacity: Generated<number>;
  status: Generated<'active' | 'inactive'>;
}

export interface GateTable extends Synced, Timestamps {
  id: string;
  yardId: string;
  name: string;
  direction: 'in' | 'out' | 'both';
  relay: string | null;
  cameraIds: Generated<string>;
}

export interface IntegrationTable extends Synced, Timestamps {
  id: string;
  kind: string;
  name: string;
  /** JSON, secrets included (masked by the API). */
  config: string;
  enabled: Generated<0 | 1>;
}

export interface CameraTable extends Synced, Timestamps {
  id: string;
  yardId: string;
  name: string;
  gateId: string | null;
  source: CameraSource;
  onvifXaddr: string | null;
  onvifUsername: string | null;
  onvifPassword: string | null;
  onvifProfileToken: string | null;
  onvifSnapshotUri: string | null;
  /** JSON: manufacturer, model, firmware, serial as the device reported them. */
  deviceInfo: string | null;
  integrationId: string | null;
  providerCameraId: string | null;
  enabled: Generated<0 | 1>;
}

export interface CarrierTable extends Synced, Timestamps {
  id: string;
  name: string;
  scac: string | null;
  usdot: string | null;
  status: Generated<PartyStatus>;
  blockedReason: string | null;
  contact: string | null;
}

export interface DriverTable extends Synced, Timestamps, Shared {
  id: string;
  kind: 'yard' | 'carrier';
  carrierId: string | null;
  firstName: string;
  lastName: string;
  phone: string | null;
  licenseNumber: string | null;
  licenseRegion: string | null;
  licenseExpiresOn: string | null;
  status: Generated<PartyStatus>;
  blockedReason: string | null;
  driverCode: string | null;
  pinHash: string | null;
  notes: string | null;
}

export interface TruckTable extends Synced, Timestamps, Shared {
  id: string;
  carrierId: string | null;
  unitNumber: string | null;
  plate: string | null;
  plateRegion: string | null;
  vin: string | null;
  status: Generated<'active' | 'out_of_service' | 'retired'>;
  yardId: string | null;
}

export interface TruckInspectionTable extends Synced {
  id: string;
  truckId: string;
  yardId: string;
  inspectedAt: number;
  inspectorId: string | null;
  result: 'pass' | 'fail';
  items: string;
  odometer: number | null;
  attachmentIds: string;
  notes: string | null;
  createdAt: number;
}

export interface TrailerTable extends Synced, Timestamps, Shared {
  id: string;
  carrierId: string | null;
  number: string;
  plate: string | null;
  plateRegion: string | null;
  type: Generated<TrailerType>;
  lengthFt: number | null;
  loadStatus: Generated<LoadStatus>;
  sealNumber: string | null;
  yardId: string | null;
  locationId: string | null;
  arrivedAt: number | null;
  notes: string | null;
  /** Generated by SQLite: the API JSON of the row. Never written, never synced. */
  apiJson: Generated<string>;
}

export interface GateActuationTable extends Synced {
  id: string;
  gateId: string;
  yardId: string;
  requestedBy: string | null;
  requestedVia: 'local' | 'cloud';
  reason: string | null;
  at: number;
  result: ActuationResult;
  durationMs: number | null;
  error: string | null;
  /** Set when a gate movement asked for the actuation (the movement is written first). */
  movementId: string | null;
  createdAt: number;
}

export interface MovementTable extends Synced {
  id: string;
  yardId: string;
  gateId: string | null;
  direction: Direction;
  at: number;
  truckId: string | null;
  trailerId: string | null;
  driverId: string | null;
  carrierId: string | null;
  locationId: string | null;
  loadStatus: LoadStatus | null;
  sealNumber: string | null;
  plateRead: string | null;
  attachmentIds: string;
  actuationId: string | null;
  operatorId: string | null;
  notes: string | null;
  warnings: string;
  overrideReason: string | null;
  correctsId: string | null;
  createdAt: number;
}

export interface VisitTable {
  id: string;
  yardId: string;
  unitKind: 'trailer' | 'truck';
  trailerId: string | null;
  truckId: string | null;
  carrierId: string | null;
  inMovementId: string;
  outMovementId: string | null;
  inAt: number;
  outAt: number | null;
}

export interface AttachmentTable extends Synced {
  id: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  refType: string | null;
  refId: string | null;
  createdBy: string | null;
  createdByKind: string | null;
  createdAt: number;
}

export interface SettingTable extends Synced, Timestamps {
  name: string;
  value: string;
  scope: 'global' | 'site';
  updatedBy: string | null;
}

export interface HttpErrorStatTable {
  yardId: string;
  minute: number;
  status: number;
  count: number;
}

export interface YardTaskTable extends Synced, Timestamps, Shared {
  id: string;
  yardId: string;
  type: TaskType;
  trailerId: string | null;
  fromLocationId: string | null;
  toLocationId: string | null;
  priority: Generated<number>;
  status: Generated<TaskStatus>;
  driverId: string | null;
  notes: string | null;
  dueAt: number | null;
  createdBy: string | null;
  assignedAt: number | null;
  startedAt: number | null;
  completedAt: number | null;
  cancelledAt: number | null;
  cancelReason: string | null;
  billedCarrierId: string | null;
}

export interface TaskEventTable extends Synced {
  id: string;
  taskId: string;
  yardId: string;
  at: number;
  actorId: string | null;
  actorKind: 'user' | 'driver' | 'api-key' | 'system' | null;
  fromStatus: TaskStatus | null;
  toStatus: TaskStatus;
  driverId: string | null;
  reason: string | null;
  lat: number | null;
  lon: number | null;
  createdAt: number;
}

export interface DriverSessionTable extends Synced, Timestamps {
  id: string;
  driverId: string;
  yardId: string;
  deviceId: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  lastCheckAt: number | null;
  lastLat: number | null;
  lastLon: number | null;
  lastLocationAt: number | null;
}

export interface SessionLocationTable extends Synced {
  id: string;
  sessionId: string;
  at: number;
  lat: number;
  lon: number;
  accuracyM: number | null;
  speed: number | null;
  heading: number | null;
  createdAt: number;
}

export interface PushTokenTable extends Synced, Timestamps {
  id: string;
  driverId: string;
  deviceId: string;
  platform: 'web' | 'android' | 'ios';
  token: string;
}

export interface DB {
  changeLog: ChangeLogTable;
  syncCursor: SyncCursorTable;
  deadLetter: DeadLetterTable;
  site: SiteTable;
  syncMeta: SyncMetaTable;
  syncTombstone: SyncTombstoneTable;
  syncPending: SyncPendingTable;
  blobUpload: BlobUploadTable;
  appUser: AppUserTable;
  apiKey: ApiKeyTable;
  authToken: AuthTokenTable;
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
  yardTask: YardTaskTable;
  taskEvent: TaskEventTable;
  driverSession: DriverSessionTable;
  sessionLocation: SessionLocationTable;
  pushToken: PushTokenTable;
}
