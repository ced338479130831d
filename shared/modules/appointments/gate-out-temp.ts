// TEMPORARY until the booking side's out.ts is merged: row -> AppointmentOut.
import { toIso, toIsoOrNull } from '../../clock.js';
import type { Kdb } from '../../db/database.js';
import type { AppointmentOutT } from './schema.js';
import { appointmentStatus } from './status.js';

export async function tempOutOf(db: Kdb, ids: string[]): Promise<AppointmentOutT[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('appointment as a')
    .innerJoin('location as l', 'l.id', 'a.doorId')
    .innerJoin('loadType as t', 't.id', 'a.loadTypeId')
    .innerJoin('carrier as c', 'c.id', 'a.carrierId')
    .selectAll('a')
    .select(['l.name as doorName', 't.name as loadTypeName', 'c.name as carrierName'])
    .where('a.id', 'in', ids)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    yardId: r.yardId,
    doorId: r.doorId,
    doorName: r.doorName,
    loadTypeId: r.loadTypeId,
    loadTypeName: r.loadTypeName,
    startAt: toIso(r.startAt),
    endAt: toIso(r.endAt),
    carrierId: r.carrierId,
    carrierName: r.carrierName,
    refs: JSON.parse(r.refs) as string[],
    trailerNumber: r.trailerNumber,
    truckPlate: r.truckPlate,
    driverName: r.driverName,
    driverPhone: r.driverPhone,
    notes: r.notes,
    code: r.code,
    status: appointmentStatus(r),
    arrival: r.arrival,
    overdue: false,
    movementId: r.movementId,
    overrideReason: r.overrideReason,
    createdBy: r.createdBy,
    cancelledAt: toIsoOrNull(r.cancelledAt),
    cancelReason: r.cancelReason,
    arrivedAt: toIsoOrNull(r.arrivedAt),
    dockedAt: toIsoOrNull(r.dockedAt),
    completedAt: toIsoOrNull(r.completedAt),
    departedAt: toIsoOrNull(r.departedAt),
    noShowAt: toIsoOrNull(r.noShowAt),
    createdAt: toIso(r.createdAt),
    updatedAt: toIso(r.updatedAt),
    version: r.version,
  }));
}
