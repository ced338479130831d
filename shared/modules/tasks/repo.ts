import type { Selectable } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { forWrite } from '../../db/sql-helpers.js';
import type {
  DriverSessionTable,
  DriverTable,
  LocationTable,
  TaskEventTable,
  TaskStatus,
  TrailerTable,
  YardTaskTable,
} from '../../db/tables.js';

export type TaskRow = Selectable<YardTaskTable>;
export type TaskEventRow = Selectable<TaskEventTable>;
export type SessionRow = Selectable<DriverSessionTable>;
export type YardDriverRow = Pick<Selectable<DriverTable>, 'id' | 'firstName' | 'lastName' | 'driverCode'>;

export const OPEN_STATUSES: readonly TaskStatus[] = ['ASSIGNED', 'IN_PROGRESS'];

export interface TaskListFilter {
  limit: number;
  afterId?: string | undefined;
  yardIds?: string[] | null | undefined;
  statuses?: TaskStatus[] | undefined;
  driverId?: string | undefined;
}

/**
 * Reads for yard tasking. Every method takes the database (or the open transaction) to read
 * from: inside a transaction the single SQLite connection is taken, so reads must use `trx`.
 */
export const taskRepo = {
  byId(db: Kdb, id: string): Promise<TaskRow | undefined> {
    return db.selectFrom('yardTask').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The task for a write transaction that decides on it (locked until commit where that is needed: forWrite). */
  byIdToWrite(db: Kdb, id: string): Promise<TaskRow | undefined> {
    return forWrite(db, db.selectFrom('yardTask').selectAll().where('id', '=', id)).executeTakeFirst();
  },

  byIds(db: Kdb, ids: string[]): Promise<Array<Pick<TaskRow, 'id'>>> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.selectFrom('yardTask').select('id').where('id', 'in', ids).execute();
  },

  /** Ordered by id (UUIDv7: creation order); keyset paging after `afterId`. */
  list(db: Kdb, f: TaskListFilter): Promise<TaskRow[]> {
    let q = db
      .selectFrom('yardTask')
      .selectAll()
      .orderBy('id')
      .limit(f.limit + 1);
    if (f.afterId) q = q.where('id', '>', f.afterId);
    if (f.yardIds) q = q.where('yardId', 'in', f.yardIds);
    if (f.statuses) q = q.where('status', 'in', f.statuses);
    if (f.driverId) q = q.where('driverId', '=', f.driverId);
    return q.execute();
  },

  /** A driver's open tasks: most urgent first, then oldest. */
  openForDriver(db: Kdb, driverId: string): Promise<TaskRow[]> {
    return db
      .selectFrom('yardTask')
      .selectAll()
      .where('driverId', '=', driverId)
      .where('status', 'in', OPEN_STATUSES)
      .orderBy('priority', 'desc')
      .orderBy('createdAt')
      .orderBy('id')
      .execute();
  },

  /** The next QUEUED task of a yard to hand out: highest priority, then oldest, then id. */
  nextQueued(db: Kdb, yardId: string): Promise<TaskRow | undefined> {
    return db
      .selectFrom('yardTask')
      .selectAll()
      .where('yardId', '=', yardId)
      .where('status', '=', 'QUEUED')
      .orderBy('priority', 'desc')
      .orderBy('createdAt')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  },

  events(db: Kdb, taskId: string, limit: number, after?: { at: number; id: string }) {
    let q = db
      .selectFrom('taskEvent')
      .selectAll()
      .where('taskId', '=', taskId)
      .orderBy('at')
      .orderBy('id')
      .limit(limit + 1);
    if (after) {
      q = q.where((eb) =>
        eb.or([eb('at', '>', after.at), eb.and([eb('at', '=', after.at), eb('id', '>', after.id)])]),
      );
    }
    return q.execute();
  },

  eventIdsOf(db: Kdb, taskId: string): Promise<Array<Pick<TaskEventRow, 'id'>>> {
    return db.selectFrom('taskEvent').select('id').where('taskId', '=', taskId).execute();
  },

  yard(db: Kdb, id: string) {
    return db.selectFrom('yard').select(['id', 'code', 'timeZone']).where('id', '=', id).executeTakeFirst();
  },

  yardsIn(db: Kdb, ids: string[] | null) {
    let q = db.selectFrom('yard').select(['id', 'code', 'timeZone']).orderBy('code');
    if (ids !== null) q = q.where('id', 'in', scopeInList(ids));
    return q.execute();
  },

  location(db: Kdb, id: string): Promise<Pick<Selectable<LocationTable>, 'id' | 'yardId'> | undefined> {
    return db.selectFrom('location').select(['id', 'yardId']).where('id', '=', id).executeTakeFirst();
  },

  trailer(
    db: Kdb,
    id: string,
  ): Promise<Pick<Selectable<TrailerTable>, 'id' | 'yardId' | 'carrierId' | 'locationId'> | undefined> {
    return db
      .selectFrom('trailer')
      .select(['id', 'yardId', 'carrierId', 'locationId'])
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** Trailer numbers, carriers' names and spots, for the driver's task card (drivers may not read trailers). */
  trailerLabels(
    db: Kdb,
    ids: string[],
  ): Promise<{ id: string; number: string; carrierName: string | null; locationId: string | null }[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('trailer')
      .leftJoin('carrier', 'carrier.id', 'trailer.carrierId')
      .select([
        'trailer.id as id',
        'trailer.number as number',
        'carrier.name as carrierName',
        'trailer.locationId as locationId',
      ])
      .where('trailer.id', 'in', ids)
      .execute();
  },

  driver(db: Kdb, id: string) {
    return db
      .selectFrom('driver')
      .select(['id', 'kind', 'status', 'firstName', 'lastName', 'driverCode'])
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** Active yard drivers: every one, or those among `ids`. */
  activeYardDrivers(db: Kdb, ids?: readonly string[]): Promise<YardDriverRow[]> {
    if (ids?.length === 0) return Promise.resolve([]);
    let q = db
      .selectFrom('driver')
      .select(['id', 'firstName', 'lastName', 'driverCode'])
      .where('kind', '=', 'yard')
      .where('status', '=', 'active')
      .orderBy('id');
    if (ids) q = q.where('id', 'in', [...ids]);
    return q.execute();
  },

  /** Open sessions (endedAt null), of one yard or all; the newest first per driver. */
  openSessions(db: Kdb, yardId?: string): Promise<SessionRow[]> {
    let q = db
      .selectFrom('driverSession')
      .selectAll()
      .where('endedAt', 'is', null)
      .orderBy('startedAt', 'desc');
    if (yardId) q = q.where('yardId', '=', yardId);
    return q.execute();
  },

  /**
   * The trailer's open visit (still in a yard), with the carrier recorded on its in-movement; the
   * newest if a data slip left two open.
   */
  openVisitOf(db: Kdb, trailerId: string): Promise<{ carrierId: string | null } | undefined> {
    return db
      .selectFrom('visit')
      .select('carrierId')
      .where('trailerId', '=', trailerId)
      .where('unitKind', '=', 'trailer')
      .where('outAt', 'is', null)
      .orderBy('inAt', 'desc')
      .limit(1)
      .executeTakeFirst();
  },

  openSessionOf(db: Kdb, driverId: string): Promise<SessionRow | undefined> {
    return db
      .selectFrom('driverSession')
      .selectAll()
      .where('driverId', '=', driverId)
      .where('endedAt', 'is', null)
      .orderBy('startedAt', 'desc')
      .limit(1)
      .executeTakeFirst();
  },

  /** Per driver: open tasks (ASSIGNED or IN_PROGRESS) and how many of them are IN_PROGRESS. */
  async openTaskCounts(db: Kdb, driverIds: string[]) {
    const counts = new Map<string, { open: number; inProgress: number }>();
    if (driverIds.length === 0) return counts;
    const rows = await db
      .selectFrom('yardTask')
      .select(['driverId', 'status'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('driverId', 'in', driverIds)
      .where('status', 'in', OPEN_STATUSES)
      .groupBy(['driverId', 'status'])
      .execute();
    for (const r of rows) {
      if (!r.driverId) continue;
      const c = counts.get(r.driverId) ?? { open: 0, inProgress: 0 };
      c.open += Number(r.n);
      if (r.status === 'IN_PROGRESS') c.inProgress += Number(r.n);
      counts.set(r.driverId, c);
    }
    return counts;
  },

  /** Per driver, the latest completion in the yard since `since` (yard_task_completed index). */
  async lastCompletions(db: Kdb, yardId: string, since: number): Promise<Map<string, number>> {
    const rows = await db
      .selectFrom('yardTask')
      .select('driverId')
      .select((eb) => eb.fn.max<number>('completedAt').as('last'))
      .where('yardId', '=', yardId)
      .where('completedAt', '>=', since)
      .groupBy('driverId')
      .execute();
    return new Map(rows.filter((r) => r.driverId).map((r) => [r.driverId as string, Number(r.last)]));
  },
};
