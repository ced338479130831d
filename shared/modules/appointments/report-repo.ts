import { sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { attachmentIdsOfMovements } from '../../db/movement-attachments.js';
import type { Direction } from '../../enums.js';
import { APPOINTMENT_STATUS_SQL, type AppointmentStatus } from './status.js';

/**
 * The reads of the detention report and the summary (report-service.ts): appointments with the
 * names they show, the yard's time zone and free time, and the gate movements of each arrival with
 * their photo attachments. Reads only; the module's writes are elsewhere.
 */

/** Free time when a yard has no scheduling config row (SchedulingConfigPut's default). */
export const DEFAULT_FREE_TIME_MINUTES = 120;

export interface ReportRow {
  id: string;
  yardId: string;
  yardCode: string;
  timeZone: string;
  code: string;
  doorId: string;
  doorName: string;
  loadTypeName: string;
  carrierId: string;
  carrierName: string;
  refs: string;
  trailerNumber: string | null;
  truckPlate: string | null;
  status: AppointmentStatus;
  arrival: 'early' | 'on_time' | 'late' | null;
  startAt: number;
  endAt: number;
  arrivedAt: number | null;
  dockedAt: number | null;
  completedAt: number | null;
  departedAt: number | null;
  noShowAt: number | null;
  cancelledAt: number | null;
  movementId: string | null;
  freeTimeMinutes: number | null;
}

export interface ReportFilter {
  /** null: every yard. */
  yardIds: string[] | null;
  carrierId?: string | undefined;
  /** startAt in [from, to). */
  from: number;
  to: number;
}

export interface GateMovement {
  id: string;
  /** The appointment's check-in (or a correction naming the appointment) this movement belongs to. */
  appointmentId: string;
  direction: Direction;
  at: number;
  gateName: string | null;
  trailerNumber: string | null;
  truckPlate: string | null;
  attachmentIds: string[];
}

/** Ids per `IN (...)` list: far below SQLite's and PostgreSQL's bound parameters. */
const CHUNK = 500;

export class ReportRepo {
  constructor(private readonly db: Kdb) {}

  /** The appointments booked to start in the window, by start then id. */
  async appointments(filter: ReportFilter): Promise<ReportRow[]> {
    let q = this.db
      .selectFrom('appointment as a')
      .innerJoin('yard as y', 'y.id', 'a.yardId')
      .innerJoin('location as d', 'd.id', 'a.doorId')
      .innerJoin('loadType as lt', 'lt.id', 'a.loadTypeId')
      .innerJoin('carrier as c', 'c.id', 'a.carrierId')
      .leftJoin('schedulingConfig as sc', 'sc.yardId', 'a.yardId')
      .select([
        'a.id',
        'a.yardId',
        'y.code as yardCode',
        'y.timeZone',
        'a.code',
        'a.doorId',
        'd.name as doorName',
        'lt.name as loadTypeName',
        'a.carrierId',
        'c.name as carrierName',
        'a.refs',
        'a.trailerNumber',
        'a.truckPlate',
        sql<AppointmentStatus>`${sql.raw(APPOINTMENT_STATUS_SQL)}`.as('status'),
        'a.arrival',
        'a.startAt',
        'a.endAt',
        'a.arrivedAt',
        'a.dockedAt',
        'a.completedAt',
        'a.departedAt',
        'a.noShowAt',
        'a.cancelledAt',
        'a.movementId',
        'sc.freeTimeMinutes',
      ])
      .where('a.startAt', '>=', filter.from)
      .where('a.startAt', '<', filter.to)
      .orderBy('a.startAt')
      .orderBy('a.id');
    if (filter.yardIds !== null) q = q.where('a.yardId', 'in', scopeInList(filter.yardIds));
    if (filter.carrierId) q = q.where('a.carrierId', '=', filter.carrierId);
    const rows = await q.execute();
    return rows.map((r) => ({ ...r, startAt: Number(r.startAt), endAt: Number(r.endAt) }) as ReportRow);
  }

  /**
   * The gate movements of the appointments' arrivals: each check-in (the appointment's movementId,
   * and any movement naming the appointment, such as a correction) and the check-outs that ended
   * the visits those check-ins began (the truck's and the trailer's), with their photos: the ids a
   * movement lists and the attachments uploaded against it later.
   */
  async gateMovements(rows: ReadonlyArray<Pick<ReportRow, 'id' | 'movementId'>>): Promise<GateMovement[]> {
    const owner = new Map<string, string>();
    for (const r of rows) if (r.movementId) owner.set(r.movementId, r.id);
    const appointmentIds = rows.map((r) => r.id);
    for (const ids of chunks(appointmentIds)) {
      const named = await this.db
        .selectFrom('movement')
        .select(['id', 'appointmentId'])
        .where('appointmentId', 'in', ids)
        .execute();
      for (const m of named) if (m.appointmentId && !owner.has(m.id)) owner.set(m.id, m.appointmentId);
    }
    for (const ids of chunks([...owner.keys()])) {
      const visits = await this.db
        .selectFrom('visit')
        .select(['inMovementId', 'outMovementId'])
        .where('inMovementId', 'in', ids)
        .where('outMovementId', 'is not', null)
        .execute();
      for (const v of visits) {
        const appointmentId = owner.get(v.inMovementId);
        if (v.outMovementId && appointmentId && !owner.has(v.outMovementId))
          owner.set(v.outMovementId, appointmentId);
      }
    }
    const movements: GateMovement[] = [];
    for (const ids of chunks([...owner.keys()])) {
      const found = await this.db
        .selectFrom('movement as m')
        .leftJoin('gate as g', 'g.id', 'm.gateId')
        .leftJoin('trailer as t', 't.id', 'm.trailerId')
        .leftJoin('truck as k', 'k.id', 'm.truckId')
        .select([
          'm.id',
          'm.direction',
          'm.at',
          'm.attachmentIds',
          'g.name as gateName',
          't.number as trailerNumber',
          'k.plate as truckPlate',
        ])
        .where('m.id', 'in', ids)
        .execute();
      const linked = await attachmentIdsOfMovements(this.db, ids);
      for (const m of found) {
        movements.push({
          id: m.id,
          appointmentId: owner.get(m.id) as string,
          direction: m.direction,
          at: Number(m.at),
          gateName: m.gateName,
          trailerNumber: m.trailerNumber,
          truckPlate: m.truckPlate,
          attachmentIds: [...new Set([...parseIds(m.attachmentIds), ...(linked.get(m.id) ?? [])])].sort(),
        });
      }
    }
    return movements.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

function parseIds(json: string | null): string[] {
  if (!json) return [];
  try {
    const ids = JSON.parse(json) as unknown;
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
