import type Database from 'better-sqlite3';
import { PRUNE_LOCK_KEY } from '../db/postgres-ddl.js';
import { SqliteWork, type SqlWork, sqlRows, sqlRun, sqlValue, statement } from '../db/sql-work.js';
import type { SyncDeps } from './deps.js';
import { prunedKey, prunedUpToWork } from './outbox.js';
import { type WorkRunner, workRunnerOf } from './work-runner.js';

export { prunedKey };

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
/** Rows deleted per statement: each chunk is its own short write, so API writes are not held up. */
const CHUNK = 5_000;

const selectCursors = statement(
  'prune|cursors',
  'rows',
  'SELECT peer, acked_seq AS "ackedSeq" FROM sync_cursor',
);
const selectBoundary = statement(
  'prune|boundary',
  'value',
  'SELECT max(seq) FROM change_log WHERE peer = ? AND seq <= ? AND hlc < ?',
);
const deleteChunk = statement(
  'prune|delete',
  'changes',
  'DELETE FROM change_log WHERE seq IN (SELECT seq FROM change_log WHERE peer = ? AND seq <= ? ORDER BY seq LIMIT ?)',
);
const raisePruned = statement(
  'prune|record',
  'changes',
  `INSERT INTO sync_meta (name, value) VALUES (?, ?)
   ON CONFLICT (name) DO UPDATE SET value = CASE
     WHEN CAST(excluded.value AS BIGINT) > CAST(sync_meta.value AS BIGINT) THEN excluded.value ELSE sync_meta.value END`,
);
/**
 * Several cloud nodes on one PostgreSQL each run the pruner: a step goes ahead only on the node
 * that gets this transaction lock (the others skip the round; deleting twice would be harmless
 * anyway, but wasted). SQLite has one process per database: nothing to take.
 */
const tryPruneLock = statement('prune|lock', 'value', (dialect) =>
  dialect === 'postgres' ? `SELECT pg_try_advisory_xact_lock(${PRUNE_LOCK_KEY})` : 'SELECT 1',
);

/** Synchronous SQLite face of prunedUpToWork (tests; the runtime uses SendStore.prunedUpTo). */
export function prunedUpTo(sqlite: Database.Database, peer: string): number {
  return new SqliteWork(sqlite).run(prunedUpToWork(peer));
}

function* boundariesWork(cutoffHlc: string): SqlWork<Array<{ peer: string; boundary: number }>> {
  const cursors = yield* sqlRows(selectCursors, []);
  const out: Array<{ peer: string; boundary: number }> = [];
  for (const { peer, ackedSeq } of cursors) {
    const boundary = yield* sqlValue(selectBoundary, [peer, ackedSeq, cutoffHlc]);
    if (boundary !== null && boundary !== undefined && Number(boundary) > 0)
      out.push({ peer: String(peer), boundary: Number(boundary) });
  }
  return out;
}

/** One chunk of the peer's rows up to `boundary`; undefined when another node holds the prune lock. */
function* deleteChunkWork(peer: string, boundary: number): SqlWork<number | undefined> {
  if (!(yield* sqlValue(tryPruneLock, []))) return undefined;
  const changes = yield* sqlRun(deleteChunk, [peer, boundary, CHUNK]);
  // Recorded with the rows it describes: a crash leaves the two consistent.
  yield* sqlRun(raisePruned, [prunedKey(peer), String(boundary)]);
  return changes;
}

/**
 * Deletes change-log rows a peer has acknowledged once they are older than sync.retentionDays (by
 * the HLC time of the change), and remembers the highest pruned seq per peer in sync_meta
 * ('pruned:<peer>'): a peer that later needs rows from before that point cannot get them from the
 * log (the cloud then sends a snapshot). Runs hourly, on either database.
 */
export class LogPruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly runner: WorkRunner;

  constructor(
    private readonly deps: Pick<SyncDeps, 'db' | 'clock' | 'log' | 'config'>,
    private readonly intervalMs = HOUR_MS,
  ) {
    this.runner = workRunnerOf(deps);
  }

  async start(): Promise<void> {
    this.timer = setInterval(() => {
      this.running ??= this.runOnce()
        .catch((err: Error) => this.deps.log.error({ err: err.message }, 'change-log pruning failed'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Prunes every peer once; returns the rows deleted per peer. */
  async runOnce(): Promise<Record<string, number>> {
    const cutoffMs = this.deps.clock.now() - this.deps.config.sync.retentionDays * DAY_MS;
    // HLC strings start with 13-digit epoch ms: comparing with this prefix is comparing times.
    const cutoffHlc = String(Math.max(0, Math.floor(cutoffMs))).padStart(13, '0');
    const boundaries = await this.runner.run(() => boundariesWork(cutoffHlc));
    const deleted: Record<string, number> = {};
    for (const { peer, boundary } of boundaries) {
      const n = await this.deleteUpTo(peer, boundary);
      if (n === undefined) break; // another cloud node is pruning
      deleted[peer] = n;
    }
    if (Object.keys(deleted).length > 0)
      this.deps.log.info({ deleted }, 'acknowledged change-log rows pruned');
    return deleted;
  }

  /** Deletes the peer's rows up to `boundary` (all acknowledged) in chunks, recording the boundary. */
  private async deleteUpTo(peer: string, boundary: number): Promise<number | undefined> {
    let total = 0;
    for (;;) {
      const n = await this.runner.transaction(() => deleteChunkWork(peer, boundary));
      if (n === undefined) return total > 0 ? total : undefined;
      total += n;
      if (n < CHUNK) return total;
    }
  }
}
