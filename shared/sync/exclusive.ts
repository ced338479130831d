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

/** Per database: the apply that has the turn, or last had it (settled). */
const turns = new WeakMap<object, Promise<unknown>>();

/**
 * A turn of the event loop that took longer than this ran other work (a request, a read worker's
 * answer): the next slice waits another turn, since that work often needs one more (its answer).
 */
const BUSY_TURN_MS = 0.5;
/** At most this long between two slices, however busy the loop: the drain goes on under load. */
const MAX_YIELD_MS = 10;

/**
 * A long apply (SlicedApply) slice by slice: `slice` runs inside exclusive() until it answers true,
 * and between two slices the event loop is let go (letGo), so what is ready runs: requests read
 * from their sockets, their Kysely queries (which queue for the connection ahead of the next
 * slice), the read workers' answers. Applies take turns per database in the order they asked, each
 * whole: sites' groups finish (and are acknowledged) one after the other, as when each group was
 * one transaction; taking turns slice by slice instead made 20 sites' groups all finish at the end,
 * past the senders' ack timeout (test/bench/sync-drain-answers.ts: 304 of 1,000 batches resent).
 */
export function applySlices(deps: Pick<SyncDeps, 'db'>, slice: () => boolean): Promise<void> {
  const key = deps.db;
  const before = turns.get(key) ?? Promise.resolve();
  const run = before.then(async () => {
    while (!(await exclusive(deps, slice))) await letGo();
  });
  turns.set(key, run.then(letGo, letGo));
  return run;
}

/**
 * Turns of the event loop until one passes with nothing else to do, or MAX_YIELD_MS: a request
 * takes a few turns (its query, then its answer; a read worker's reply), and each turn the apply
 * took would cost it a whole slice. With nothing else to do, one turn.
 */
async function letGo(): Promise<void> {
  const until = performance.now() + MAX_YIELD_MS;
  for (;;) {
    const t0 = performance.now();
    await new Promise((resolve) => setImmediate(resolve));
    const now = performance.now();
    if (now - t0 < BUSY_TURN_MS || now >= until) return;
  }
}
