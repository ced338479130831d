import { type Selectable, sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { forWrite } from '../../db/sql-helpers.js';
import type { AppointmentTable } from '../../db/tables.js';

export type AppointmentRow = Selectable<AppointmentTable>;

/** The scheduling numbers the gate side needs, with the defaults of a yard that has no config. */
export interface GateRules {
  lateGraceMinutes: number;
  noShowAfterMinutes: number;
}

const DEFAULT_RULES: GateRules = { lateGraceMinutes: 15, noShowAfterMinutes: 60 };
const DEFAULT_MINUTES = DEFAULT_RULES.noShowAfterMinutes;

/**
 * SQL of the gate side of appointments (arrivals, yard events, the no-show sweep, finding by code).
 * The booking side has its own repo (repo.ts); both read the same table. Writes go through
 * core.changes (gate-writes.ts).
 */
export const arrivalRepo = {
  /** One appointment, locked until commit on PostgreSQL: the caller decides on it and writes. */
  async forWrite(db: Kdb, id: string): Promise<AppointmentRow | undefined> {
    return forWrite(db, db.selectFrom('appointment').selectAll().where('id', '=', id)).executeTakeFirst();
  },

  async rules(db: Kdb, yardId: string): Promise<GateRules> {
    const row = await db
      .selectFrom('schedulingConfig')
      .select(['lateGraceMinutes', 'noShowAfterMinutes'])
      .where('yardId', '=', yardId)
      .executeTakeFirst();
    return row ?? DEFAULT_RULES;
  },

  async locationKind(db: Kdb, id: string): Promise<string | undefined> {
    const row = await db.selectFrom('location').select('kind').where('id', '=', id).executeTakeFirst();
    return row?.kind;
  },

  /**
   * The appointments of a yard that a unit arrived for and that are not done yet: those whose
   * check-in movement carried this trailer or truck, arrived, and not both completed and departed.
   * Found through the unit's movements (trailer: movement_trailer_at) or truck visits (visit_truck).
   */
  async openOfUnit(db: Kdb, yardId: string, unit: { kind: 'trailer' | 'truck'; id: string }) {
    const checkIns =
      unit.kind === 'trailer'
        ? db
            .selectFrom('movement')
            .select('id')
            .where('trailerId', '=', unit.id)
            .where('direction', '=', 'in')
        : db.selectFrom('visit').select('inMovementId as id').where('truckId', '=', unit.id);
    return db
      .selectFrom('appointment as a')
      .innerJoin('movement as m', 'm.id', 'a.movementId')
      .selectAll('a')
      .select(['m.trailerId as checkInTrailerId', 'm.truckId as checkInTruckId'])
      .where('a.movementId', 'in', checkIns)
      .where('a.yardId', '=', yardId)
      .where('a.arrivedAt', 'is not', null)
      .where((eb) => eb.or([eb('a.completedAt', 'is', null), eb('a.departedAt', 'is', null)]))
      .orderBy('a.arrivedAt')
      .execute();
  },

  /**
   * Scheduled appointments (nothing happened to them yet) whose no-show time (startAt +
   * noShowAfterMinutes of their yard) is at or before `now`, oldest first (appointment_open_start).
   * One whose no-show staff undid is never due again: they decided.
   */
  async dueNoShows(db: Kdb, now: number, limit: number) {
    const rows = await db
      .selectFrom('appointment as a')
      .leftJoin('schedulingConfig as c', 'c.yardId', 'a.yardId')
      .select(['a.id', 'a.startAt', 'c.noShowAfterMinutes'])
      .where('a.arrivedAt', 'is', null)
      .where('a.cancelledAt', 'is', null)
      .where('a.noShowAt', 'is', null)
      .where('a.dockedAt', 'is', null)
      .where('a.completedAt', 'is', null)
      // No appointment's no-show time is before its start: the index bounds the scan.
      .where('a.startAt', '<=', now)
      .where(
        sql<number>`a.start_at + COALESCE(c.no_show_after_minutes, ${DEFAULT_MINUTES}) * 60000`,
        '<=',
        now,
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('appointmentEvent as e')
              .select('e.id')
              .whereRef('e.appointmentId', '=', 'a.id')
              .where('e.kind', '=', 'no_show_undone'),
          ),
        ),
      )
      .orderBy('a.startAt')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      dueAt: r.startAt + (r.noShowAfterMinutes ?? DEFAULT_MINUTES) * 60_000,
    }));
  },

  /** Appointments with this code in these yards (null: every yard), with their yard's time zone. */
  async byCode(db: Kdb, code: string, yardIds: string[] | null) {
    let q = db
      .selectFrom('appointment as a')
      .innerJoin('yard as y', 'y.id', 'a.yardId')
      .selectAll('a')
      .select('y.timeZone')
      .where('a.code', '=', code);
    if (yardIds !== null) q = q.where('a.yardId', 'in', scopeInList(yardIds));
    return q.orderBy('a.startAt').execute();
  },
};
