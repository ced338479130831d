import { Duration } from 'luxon';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { MovementRow, VisitRow } from './repo.js';
import type { MovementOutT, VisitOutT } from './schema.js';

/* A movement and a visit as the API shows them (answers, lists, the movement.created event). */

export function movementOut(row: MovementRow, linkedActuationId: string | null): MovementOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    gateId: row.gateId,
    direction: row.direction,
    at: toIso(row.at),
    truckId: row.truckId,
    trailerId: row.trailerId,
    driverId: row.driverId,
    carrierId: row.carrierId,
    locationId: row.locationId,
    loadStatus: row.loadStatus,
    sealNumber: row.sealNumber,
    plateRead: row.plateRead,
    attachmentIds: JSON.parse(row.attachmentIds) as string[],
    actuationId: row.actuationId ?? linkedActuationId,
    operatorId: row.operatorId,
    notes: row.notes,
    warnings: JSON.parse(row.warnings) as string[],
    overrideReason: row.overrideReason,
    correctsId: row.correctsId,
    appointmentId: row.appointmentId,
    createdAt: toIso(row.createdAt),
    version: row.version,
  };
}

export function visitOut(row: VisitRow, now: number): VisitOutT {
  const dwellMs = Math.max(0, (row.outAt ?? now) - row.inAt);
  return {
    id: row.id,
    yardId: row.yardId,
    unitKind: row.unitKind,
    trailerId: row.trailerId,
    truckId: row.truckId,
    carrierId: row.carrierId,
    inMovementId: row.inMovementId,
    outMovementId: row.outMovementId,
    inAt: toIso(row.inAt),
    outAt: toIsoOrNull(row.outAt),
    open: row.outAt === null,
    dwellMs,
    dwell: isoDuration(dwellMs),
  };
}

/** Hours, minutes, seconds (no days: a day can be 23 or 25 hours in a yard's zone). */
export function isoDuration(ms: number): string {
  return Duration.fromMillis(Math.floor(ms / 1000) * 1000)
    .shiftTo('hours', 'minutes', 'seconds')
    .toISO();
}
