import { sqliteOf } from '../db/database.js';
import type { SyncDeps } from './deps.js';

/**
 * Runs synchronous better-sqlite3 work while no Kysely transaction is open on the shared connection.
 * Kysely's SQLite driver hands its one connection out under a mutex, so holding it means every
 * transaction opened through Kysely has committed or rolled back: reads see committed rows only, and
 * writes cannot land inside someone else's transaction.
 */
export async function exclusive<T>(deps: Pick<SyncDeps, 'db'>, work: () => T): Promise<T> {
  return deps.db.kysely.connection().execute(async () => {
    if (sqliteOf(deps.db, 'the sync outbox').inTransaction) {
      throw new Error('a transaction outside Kysely is open on the sync connection');
    }
    return work();
  });
}
