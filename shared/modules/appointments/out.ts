/**
 * Rows -> the HTTP shapes of schema.ts (the one mapping: services, gate and report code use it).
 */
import { toIso, toIsoOrNull } from '../../clock.js';
import { changeUntil } from './change-cutoff.js';
import type { AppointmentEventRow, AppointmentView, LoadTypeRow, SchedulingConfigRow } from './repo.js';
import type { AppointmentOutT, LoadTypeOutT, SchedulingConfigOutT } from './schema.js';
import { appointmentStatus } from './status.js';
import { yardClock } from './wall-clock.js';

/** The defaults of a yard without a config row (migration 0016's column defaults). */
export const CONFIG_DEFAULTS = {
  enabled: false,
  openHours: {},
  closedDates: [],
  slotMinutes: 15,
  leadTimeMinMinutes: 120,
  leadTimeMaxDays: 30,
  changeCutoffMinutes: 240,
  lateGraceMinutes: 15,
  noShowAfterMinutes: 60,
  freeTimeMinutes: 120,
} as const satisfies Omit<SchedulingConfigOutT, 'yardId' | 'version'>;

export function configOut(yardId: string, row: SchedulingConfigRow | undefined): SchedulingConfigOutT {
  if (!row) return { yardId, ...CONFIG_DEFAULTS, openHours: {}, closedDates: [], version: 0 };
  return {
    yardId: row.yardId,
    enabled: row.enabled === 1,
    openHours: JSON.parse(row.openHours) as SchedulingConfigOutT['openHours'],
    closedDates: JSON.parse(row.closedDates) as string[],
    slotMinutes: row.slotMinutes,
    leadTimeMinMinutes: row.leadTimeMinMinutes,
    leadTimeMaxDays: row.leadTimeMaxDays,
    changeCutoffMinutes: row.changeCutoffMinutes,
    lateGraceMinutes: row.lateGraceMinutes,
    noShowAfterMinutes: row.noShowAfterMinutes,
    freeTimeMinutes: row.freeTimeMinutes,
    version: row.version,
  };
}

export function loadTypeOut(row: LoadTypeRow): LoadTypeOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    name: row.name,
    direction: row.direction,
    durationMinutes: row.durationMinutes,
    doorIds: JSON.parse(row.doorIds) as string[],
    carrierVisible: row.carrierVisible === 1,
    version: row.version,
  };
}

/**
 * How `overdue` is decided where this process runs: at the cloud, a scheduled appointment past its
 * no-show time whose site is not online (the site's edge decides the no-show and the cloud cannot
 * know whether the truck came: docs/domain.md "Appointments"); at an edge never (it runs the sweep).
 */
export interface OverdueRule {
  atCloud: boolean;
  now: number;
}

export function appointmentOut(row: AppointmentView, overdue: OverdueRule): AppointmentOutT {
  const status = appointmentStatus(row);
  const noShowAfter = (row.noShowAfterMinutes ?? CONFIG_DEFAULTS.noShowAfterMinutes) * 60_000;
  const until = changeUntil(
    { startAt: row.startAt, status },
    row.changeCutoffMinutes ?? CONFIG_DEFAULTS.changeCutoffMinutes,
  );
  return {
    id: row.id,
    yardId: row.yardId,
    doorId: row.doorId,
    doorName: row.doorName,
    loadTypeId: row.loadTypeId,
    loadTypeName: row.loadTypeName,
    startAt: toIso(row.startAt),
    endAt: toIso(row.endAt),
    carrierId: row.carrierId,
    carrierName: row.carrierName,
    refs: JSON.parse(row.refs) as string[],
    trailerNumber: row.trailerNumber,
    truckPlate: row.truckPlate,
    driverName: row.driverName,
    driverPhone: row.driverPhone,
    notes: row.notes,
    code: row.code,
    status,
    arrival: row.arrival,
    overdue:
      overdue.atCloud &&
      status === 'scheduled' &&
      overdue.now > row.startAt + noShowAfter &&
      (row.siteLink === 'offline' || row.siteLink === 'never'),
    movementId: row.movementId,
    overrideReason: row.overrideReason,
    createdBy: row.createdBy,
    cancelledAt: toIsoOrNull(row.cancelledAt),
    cancelReason: row.cancelReason,
    arrivedAt: toIsoOrNull(row.arrivedAt),
    dockedAt: toIsoOrNull(row.dockedAt),
    completedAt: toIsoOrNull(row.completedAt),
    departedAt: toIsoOrNull(row.departedAt),
    noShowAt: toIsoOrNull(row.noShowAt),
    changeUntil: until === null ? null : yardClock(row.timeZone).iso(until),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}

export function appointmentEventOut(row: AppointmentEventRow) {
  return {
    id: row.id,
    at: toIso(row.at),
    kind: row.kind,
    fromStatus: row.fromStatus,
    toStatus: row.toStatus,
    actorId: row.actorId,
    actorKind: row.actorKind,
    reason: row.reason,
    detail: row.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : null,
  };
}
