import { type Selectable, sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { forWrite, likeContains, sqlDialectOf } from '../../db/sql-helpers.js';
import type {
  AppointmentEventTable,
  AppointmentTable,
  LoadTypeTable,
  SchedulingConfigTable,
} from '../../db/tables.js';
import { type Intervals, parsePackedIntervals } from './door-load.js';
import { LONGEST_DURATION_MINUTES } from './schema.js';
import { APPOINTMENT_STATUS_SQL, type AppointmentStatus, HOLDS_CAPACITY_SQL } from './status.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

export type SchedulingConfigRow = Selectable<SchedulingConfigTable>;
export type LoadTypeRow = Selectable<LoadTypeTable>;
export type AppointmentRow = Selectable<AppointmentTable>;
export type AppointmentEventRow = Selectable<AppointmentEventTable>;

/** An appointment with the names it shows and what `overdue` needs (out.ts). */
export type AppointmentView = AppointmentRow & {
  doorName: string;
  loadTypeName: string;
  carrierName: string;
  /** The yard's noShowAfterMinutes (null: the yard has no config row; the default applies). */
  noShowAfterMinutes: number | null;
  /** The yard's changeCutoffMinutes (null: the yard has no config row; the default applies). */
  changeCutoffMinutes: number | null;
  /** The yard's time zone (changeUntil is shown with its offset). */
  timeZone: string;
  /** The link state of the yard's site as the cloud last saw it (null: no such site row). */
  siteLink: 'never' | 'online' | 'offline' | null;
};

export interface DoorRow {
  id: string;
  name: string;
  capacity: number;
}

export interface AppointmentFilter {
  yardIds: string[] | null;
  carrierId?: string | undefined;
  statuses?: AppointmentStatus[] | undefined;
  from?: number | undefined;
  to?: number | undefined;
  q?: string | undefined;
  limit: number;
  after?: { startAt: number; id: string } | undefined;
}

/**
 * SQL of the appointments module: reads, and the per-day booking lock. Writes of the synced rows
 * go through ChangeCapture in the services.
 */
export class AppointmentRepo {
  constructor(private readonly db: Kdb) {}

  configOf(yardId: string, db: Kdb = this.db): Promise<SchedulingConfigRow | undefined> {
    return db.selectFrom('schedulingConfig').selectAll().where('yardId', '=', yardId).executeTakeFirst();
  }

  loadTypeById(id: string, db: Kdb = this.db): Promise<LoadTypeRow | undefined> {
    return db.selectFrom('loadType').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Load types of the yards (null = every yard), by yard then name. */
  loadTypes(yardIds: string[] | null, opts: { carrierVisibleOnly?: boolean } = {}): Promise<LoadTypeRow[]> {
    let q = this.db
      .selectFrom('loadType')
      .selectAll()
      .orderBy('yardId')
      .orderBy(sql`lower(name)`)
      .orderBy('id');
    if (yardIds !== null) q = q.where('yardId', 'in', scopeInList(yardIds));
    if (opts.carrierVisibleOnly) q = q.where('carrierVisible', '=', 1);
    return q.execute();
  }

  /**
   * The yards (of `yardIds`; null = every yard) a carrier user can book: scheduling on and at
   * least one carrier-visible load type.
   */
  async carrierBookableYardIds(yardIds: string[] | null): Promise<string[]> {
    let q = this.db
      .selectFrom('schedulingConfig as sc')
      .select('sc.yardId')
      .where('sc.enabled', '=', 1)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('loadType as lt')
            .select('lt.id')
            .whereRef('lt.yardId', '=', 'sc.yardId')
            .where('lt.carrierVisible', '=', 1),
        ),
      );
    if (yardIds !== null) q = q.where('sc.yardId', 'in', scopeInList(yardIds));
    return (await q.execute()).map((r) => r.yardId);
  }

  loadTypeByName(yardId: string, name: string): Promise<LoadTypeRow | undefined> {
    return this.db
      .selectFrom('loadType')
      .selectAll()
      .where('yardId', '=', yardId)
      .where(sql`lower(name)`, '=', sql`lower(${name})`)
      .executeTakeFirst();
  }

  async loadTypeInUse(id: string): Promise<boolean> {
    const hit = await this.db
      .selectFrom('appointment')
      .select('id')
      .where('loadTypeId', '=', id)
      .limit(1)
      .executeTakeFirst();
    return hit !== undefined;
  }

  /** The yard's active doors (location kind door) with their capacity. */
  doorsOf(yardId: string, db: Kdb = this.db): Promise<DoorRow[]> {
    return db
      .selectFrom('location')
      .select(['id', 'name', 'capacity'])
      .where('yardId', '=', yardId)
      .where('kind', '=', 'door')
      .where('status', '=', 'active')
      .execute();
  }

  /** Which of `ids` are doors of the yard (any status). */
  async doorIdsOf(yardId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('location')
      .select('id')
      .where('yardId', '=', yardId)
      .where('kind', '=', 'door')
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Appointments that hold a door's capacity and overlap [from, to) (half-open), without
   * `exceptId` (the one being rescheduled), per door. Read inside the booking transaction, under the lock.
   * One row per door with its intervals as text ("start,end,start,end,..."): a busy yard's month
   * is tens of thousands of bookings, and a row object each cost most of the availability answer
   * (test/bench/appointments.ts). string_agg is both SQLite's (3.44+) and PostgreSQL's.
   */
  async holdingCapacity(
    db: Kdb,
    yardId: string,
    from: number,
    to: number,
    exceptId?: string,
  ): Promise<Map<string, Intervals>> {
    // Both bounds on start_at (none is longer than the longest load type), so a day's read is a
    // range of the yard's bookings, never its whole history. On SQLite the index is named: its
    // planner has no statistics on an edge, and guessed plans cost three to four times as much.
    // A long window reads appointment_capacity (covering, in door order: no sort for the grouping);
    // a short one the yard's bookings by start.
    const hint =
      sqlDialectOf(db) !== 'sqlite'
        ? sql``
        : to - from > 2 * DAY
          ? sql`INDEXED BY appointment_capacity`
          : sql`INDEXED BY appointment_yard_start`;
    const base = Math.floor(from - LONGEST_DURATION_MINUTES * MINUTE);
    const rows = await sql<{ doorId: string; spans: string }>`
      SELECT a.door_id AS "doorId",
        string_agg((a.start_at - CAST(${base} AS BIGINT)) || ',' || (a.end_at - a.start_at), ',') AS spans
      FROM appointment AS a ${hint}
      WHERE a.yard_id = ${yardId}
        AND a.start_at < ${to} AND a.start_at > ${base}
        AND a.end_at > ${from}
        AND ${sql.raw(HOLDS_CAPACITY_SQL)}
        ${exceptId ? sql`AND a.id <> ${exceptId}` : sql``}
      GROUP BY a.door_id`.execute(db);
    const byDoor = new Map<string, Intervals>();
    for (const row of rows.rows) byDoor.set(row.doorId, parsePackedIntervals(row.spans, base));
    return byDoor;
  }

  /**
   * Takes the booking lock of each yard-local day for the rest of the transaction, in the order
   * given (callers pass dates in order, so two bookings across midnight never wait on each other in
   * a cycle). PostgreSQL: a transaction advisory lock per yard and day, so cloud nodes sharing the
   * database book one after the other; SQLite: the app's one write transaction at a time already
   * serialises every booking (docs/domain.md "Booking rules").
   */
  async lockDays(trx: Kdb, yardId: string, days: readonly string[]): Promise<void> {
    if (sqlDialectOf(trx) !== 'postgres') return;
    for (const day of days) {
      await sql`SELECT pg_advisory_xact_lock(hashtext(${'appointment-day'}), hashtext(${`${yardId}:${day}`}))`.execute(
        trx,
      );
    }
  }

  async codeTaken(db: Kdb, yardId: string, code: string): Promise<boolean> {
    const hit = await db
      .selectFrom('appointment')
      .select('id')
      .where('yardId', '=', yardId)
      .where('code', '=', code)
      .executeTakeFirst();
    return hit !== undefined;
  }

  byId(id: string, db: Kdb = this.db): Promise<AppointmentRow | undefined> {
    return db.selectFrom('appointment').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The row for a write transaction that decides on it (locked until commit on PostgreSQL). */
  byIdForWrite(trx: Kdb, id: string): Promise<AppointmentRow | undefined> {
    return forWrite(trx, trx.selectFrom('appointment').selectAll().where('id', '=', id)).executeTakeFirst();
  }

  viewById(id: string, db: Kdb = this.db): Promise<AppointmentView | undefined> {
    return this.views(db).where('a.id', '=', id).executeTakeFirst() as Promise<AppointmentView | undefined>;
  }

  /** Ordered by startAt, then id; keyset paging after `after`. */
  list(f: AppointmentFilter): Promise<AppointmentView[]> {
    let q = this.views(this.db)
      .orderBy('a.startAt')
      .orderBy('a.id')
      .limit(f.limit + 1);
    if (f.yardIds !== null) q = q.where('a.yardId', 'in', scopeInList(f.yardIds));
    if (f.carrierId) q = q.where('a.carrierId', '=', f.carrierId);
    if (f.from !== undefined) q = q.where('a.startAt', '>=', f.from);
    if (f.to !== undefined) q = q.where('a.startAt', '<', f.to);
    if (f.statuses && f.statuses.length > 0) {
      q = q.where(sql.raw(`(${APPOINTMENT_STATUS_SQL})`), 'in', f.statuses);
    }
    if (f.q) {
      const text = f.q;
      // Code and trailer number as typed (any case); a ref anywhere in the JSON list of refs.
      q = q.where((eb) =>
        eb.or([
          eb(sql`upper(a.code)`, '=', text.toUpperCase()),
          eb(sql`lower(a.trailer_number)`, '=', text.toLowerCase()),
          eb(sql`lower(a.refs)`, 'like', sql`${likeContains(`"${text.toLowerCase()}"`)} escape '\\'`),
        ]),
      );
    }
    if (f.after) {
      const { startAt, id } = f.after;
      q = q.where((eb) =>
        eb.or([eb('a.startAt', '>', startAt), eb.and([eb('a.startAt', '=', startAt), eb('a.id', '>', id)])]),
      );
    }
    return q.execute() as Promise<AppointmentView[]>;
  }

  events(appointmentId: string): Promise<AppointmentEventRow[]> {
    return this.db
      .selectFrom('appointmentEvent')
      .selectAll()
      .where('appointmentId', '=', appointmentId)
      .orderBy('at')
      .orderBy('id')
      .execute();
  }

  private views(db: Kdb) {
    return db
      .selectFrom('appointment as a')
      .innerJoin('location as d', 'd.id', 'a.doorId')
      .innerJoin('loadType as lt', 'lt.id', 'a.loadTypeId')
      .innerJoin('carrier as c', 'c.id', 'a.carrierId')
      .innerJoin('yard as y', 'y.id', 'a.yardId')
      .leftJoin('schedulingConfig as sc', 'sc.yardId', 'a.yardId')
      .leftJoin('site as s', 's.id', 'y.siteId')
      .selectAll('a')
      .select([
        'd.name as doorName',
        'lt.name as loadTypeName',
        'c.name as carrierName',
        'sc.noShowAfterMinutes as noShowAfterMinutes',
        'sc.changeCutoffMinutes as changeCutoffMinutes',
        'y.timeZone as timeZone',
        's.linkState as siteLink',
      ]);
  }
}
