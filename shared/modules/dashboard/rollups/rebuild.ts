import type Database from 'better-sqlite3';
import { sql } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import { EVERY_YARD_GRAINS, everyYardScopeSql, FIGURE, NO_CARRIER, YARD_GRAINS } from './rules.js';

/**
 * Recomputes every dashboard rollup from the rows they count (rules.ts), in one transaction: for a
 * database whose rows were written without the observers (a benchmark seeded with plain SQL, a
 * repair). Counts the same sums as the backfill of migration 0010
 * (test/integration/dashboard/rollups.test.ts compares the two). The statements, plain SQL that
 * SQLite and PostgreSQL both run, are below once; each database has its runner.
 */
const movementCounts = (scope: string, grain: number) =>
  'INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n) ' +
  `SELECT ${scope}, ${grain}, (at / ${grain}) * ${grain}, direction, count(*) FROM movement ` +
  `GROUP BY ${scope}, (at / ${grain}), direction`;

/** The recount; the every-yard shards' scope is written in each database's SQL (rules.ts). */
const rebuild = (dialect: 'sqlite' | 'postgres'): readonly string[] => [
  'DELETE FROM dashboard_movement_count',
  'DELETE FROM dashboard_yard_figure',
  'DELETE FROM dashboard_truck_arrival',
  ...YARD_GRAINS.map((grain) => movementCounts('yard_id', grain)),
  ...EVERY_YARD_GRAINS.map((grain) => movementCounts(everyYardScopeSql('yard_id', dialect), grain)),
  'INSERT INTO dashboard_truck_arrival (truck_id, yard_id, at) ' +
    'SELECT truck_id, yard_id, max(in_at) FROM visit WHERE truck_id IS NOT NULL GROUP BY truck_id, yard_id',
  'INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total) ' +
    `SELECT yard_id, '${FIGURE.trailerLoad}', load_status, count(*), 0 FROM trailer ` +
    'WHERE yard_id IS NOT NULL GROUP BY yard_id, load_status',
  'INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total) ' +
    `SELECT yard_id, '${FIGURE.trailerCarrier}', coalesce(carrier_id, '${NO_CARRIER}'), count(*), 0 FROM trailer ` +
    `WHERE yard_id IS NOT NULL GROUP BY yard_id, coalesce(carrier_id, '${NO_CARRIER}')`,
  'INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total) ' +
    `SELECT yard_id, '${FIGURE.trailerVisit}', '', count(*), sum(in_at) FROM visit ` +
    "WHERE unit_kind = 'trailer' AND out_at IS NULL GROUP BY yard_id",
  'INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total) ' +
    `SELECT yard_id, '${FIGURE.truck}', '', count(*), 0 FROM truck WHERE yard_id IS NOT NULL GROUP BY yard_id`,
  'INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total) ' +
    `SELECT truck.yard_id, '${FIGURE.truckArrival}', '', count(*), sum(dashboard_truck_arrival.at) ` +
    'FROM truck JOIN dashboard_truck_arrival ' +
    'ON dashboard_truck_arrival.truck_id = truck.id AND dashboard_truck_arrival.yard_id = truck.yard_id ' +
    'GROUP BY truck.yard_id',
];
const REBUILD_SQLITE = rebuild('sqlite');
const REBUILD_POSTGRES = rebuild('postgres');

/**
 * On SQLite: takes the better-sqlite3 Database (not Kysely): it runs beside bulk inserts made on
 * that handle, synchronously, and nothing can interleave with it.
 */
export function rebuildDashboardRollups(sqlite: Database.Database): void {
  sqlite.transaction(() => {
    for (const text of REBUILD_SQLITE) sqlite.prepare(text).run();
  })();
}

/**
 * On PostgreSQL: in its own transaction, or the caller's (read committed). Other nodes may be
 * writing: the rollup tables are locked first (EXCLUSIVE lets readers through but no writer), so a
 * write either committed before the recount, which sees it, or adds its change after the recount
 * commits; none is counted twice or lost.
 */
export async function rebuildDashboardRollupsPostgres(db: Kdb): Promise<void> {
  const work = async (trx: Kdb) => {
    const tables = 'dashboard_movement_count, dashboard_yard_figure, dashboard_truck_arrival';
    await sql.raw(`LOCK TABLE ${tables} IN EXCLUSIVE MODE`).execute(trx);
    for (const text of REBUILD_POSTGRES) await sql.raw(text).execute(trx);
  };
  if (db.isTransaction) await work(db);
  else await db.transaction().execute(work);
}
