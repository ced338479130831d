import type { Generated } from 'kysely';

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

export type StaffRole = 'admin' | 'dispatcher' | 'gate' | 'billing' | 'viewer';

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

export interface CarrierTable extends Synced, Timestamps {
  id: string;
  name: string;
  scac: string | null;
  usdot: string | null;
  status: Generated<'active' | 'blocked'>;
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
  status: Generated<'active' | 'blocked'>;
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

export type TrailerType = 'dry_van' | 'reefer' | 'flatbed' | 'container' | 'chassis' | 'tanker' | 'other';
export type LoadStatus = 'empty' | 'loaded' | 'unknown';

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
}

export interface GateActuationTable extends Synced {
  id: string;
  gateId: string;
  yardId: string;
  requestedBy: string | null;
  requestedVia: 'local' | 'cloud';
  reason: string | null;
  at: number;
  result: 'ok' | 'fault' | 'refused';
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
  direction: 'in' | 'out';
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

export interface DB {
  changeLog: ChangeLogTable;
  syncCursor: SyncCursorTable;
  deadLetter: DeadLetterTable;
  appUser: AppUserTable;
  apiKey: ApiKeyTable;
  authToken: AuthTokenTable;
  yard: YardTable;
  location: LocationTable;
  gate: GateTable;
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
}
