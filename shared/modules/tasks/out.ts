import { toIso, toIsoOrNull } from '../../clock.js';
import type { TaskEventRow, TaskRow } from './repo.js';
import type { TaskEventOutT, TaskOutT } from './schema.js';

export function taskOut(row: TaskRow): TaskOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    type: row.type,
    trailerId: row.trailerId,
    fromLocationId: row.fromLocationId,
    toLocationId: row.toLocationId,
    priority: row.priority,
    status: row.status,
    driverId: row.driverId,
    notes: row.notes,
    dueAt: toIsoOrNull(row.dueAt),
    createdBy: row.createdBy,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    assignedAt: toIsoOrNull(row.assignedAt),
    startedAt: toIsoOrNull(row.startedAt),
    completedAt: toIsoOrNull(row.completedAt),
    cancelledAt: toIsoOrNull(row.cancelledAt),
    cancelReason: row.cancelReason,
    billedCarrierId: row.billedCarrierId,
    version: row.version,
  };
}

export function taskEventOut(row: TaskEventRow): TaskEventOutT {
  return {
    id: row.id,
    taskId: row.taskId,
    at: toIso(row.at),
    actorId: row.actorId,
    actorKind: row.actorKind,
    from: row.fromStatus,
    to: row.toStatus,
    driverId: row.driverId,
    reason: row.reason,
    lat: row.lat,
    lon: row.lon,
    tappedAt: toIsoOrNull(row.tappedAt),
  };
}
