/** What happened at the gate: actuations, movements, visits and their attachments. */
import type { ActuationResult, Direction, LoadStatus } from '../../enums.js';
import type { Synced } from './columns.js';

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
  /** The appointment this check-in matched (docs/domain.md "Appointments"); null for a walk-in. */
  appointmentId: string | null;
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
