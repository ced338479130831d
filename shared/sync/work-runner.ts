import type Database from 'better-sqlite3';
import type { Dialect } from '../db/database.js';
import { PostgresWork, SqliteWork, type SqlWork } from '../db/sql-work.js';
import type { SyncDeps } from './deps.js';
import { exclusive } from './exclusive.js';

/**
 * Runs the sync engine's work (shared/db/sql-work.ts) on the app's database.
 * - SQLite: synchronously inside exclusive() (no Kysely transaction is open on the one connection,
 *   so reads see committed rows only), prepared statements cached per connection: as fast as the
 *   hand-written better-sqlite3 code it replaced.
 * - PostgreSQL: awaited on the pool, each statement its own transaction in `run`, one transaction
 *   for `transaction`.
 */
export interface WorkRunner {
  readonly dialect: Dialect;
  run<T>(work: () => SqlWork<T>): Promise<T>;
  /** All of the work or none of it. */
  transaction<T>(work: () => SqlWork<T>): Promise<T>;
}

/** One SqliteWork per connection: its prepared statements serve every store on it. */
const sqliteWorks = new WeakMap<Database.Database, SqliteWork>();

export function workRunnerOf(deps: Pick<SyncDeps, 'db'>): WorkRunner {
  const { db } = deps;
  if (db.dialect === 'sqlite') {
    let work = sqliteWorks.get(db.sqlite);
    if (!work) {
      work = new SqliteWork(db.sqlite);
      sqliteWorks.set(db.sqlite, work);
    }
    const driver = work;
    return {
      dialect: 'sqlite',
      run: (w) => exclusive(deps, () => driver.run(w())),
      transaction: (w) => exclusive(deps, () => db.sqlite.transaction(() => driver.run(w())).immediate()),
    };
  }
  const driver = new PostgresWork();
  return {
    dialect: 'postgres',
    run: (w) => driver.run(db.kysely, w()),
    transaction: (w) => db.kysely.transaction().execute((trx) => driver.run(trx, w())),
  };
}
