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

/** Per database: the slice that has the turn, or last had it (settled). */
const turns = new WeakMap<object, Promise<unknown>>();

/**
 * One slice of a long apply (SlicedApply.step), run inside exclusive() when the slices before it,
 * of any peer, are done: then the event loop is let go once (setImmediate) before the next slice
 * may start. So between two slices everything that is ready runs: requests read from their sockets,
 * their Kysely queries (which queue for the connection ahead of the next slice), answers of the
 * read workers. Without the turn, the slices of 20 sites catching up at once would follow each
 * other on the connection's mutex with nothing else in between.
 */
export function applyTurn<T>(deps: Pick<SyncDeps, 'db'>, work: () => T): Promise<T> {
  const key = deps.db;
  const before = turns.get(key) ?? Promise.resolve();
  const run = before.then(() => exclusive(deps, work));
  const handedOn = run.then(letGo, letGo);
  turns.set(key, handedOn);
  return run;
}

function letGo(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
