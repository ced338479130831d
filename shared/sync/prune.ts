import type Database from 'better-sqlite3';
import { sqliteOf } from '../db/database.js';
import type { SyncDeps } from './deps.js';
import { exclusive } from './outbox.js';

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
/** Rows deleted per statement: each chunk is its own short write, so API writes are not held up. */
const CHUNK = 5_000;

/** sync_meta name of the highest seq pruned from a peer's log. */
export const prunedKey = (peer: string) => `pruned:${peer}`;

/** The highest seq pruned from `peer`'s log (0 if none). Synchronous: call inside exclusive(). */
export function prunedUpTo(sqlite: Database.Database, peer: string): number {
  const row = sqlite.prepare('SELECT value FROM sync_meta WHERE name = ?').get(prunedKey(peer)) as
    | { value: string }
    | undefined;
  return row ? Number(row.value) : 0;
}

/**
 * Deletes change-log rows a peer has acknowledged once they are older than sync.retentionDays (by
 * the HLC time of the change), and remembers the highest pruned seq per peer in sync_meta
 * ('pruned:<peer>'): a peer that later needs rows from before that point cannot get them from the
 * log (the cloud then sends a snapshot). Runs hourly.
 */
export class LogPruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly deps: Pick<SyncDeps, 'db' | 'clock' | 'log' | 'config'>,
    private readonly intervalMs = HOUR_MS,
  ) {}

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
    const sqlite = sqliteOf(this.deps.db, 'change-log pruning');
    const cutoffMs = this.deps.clock.now() - this.deps.config.sync.retentionDays * DAY_MS;
    // HLC strings start with 13-digit epoch ms: comparing with this prefix is comparing times.
    const cutoffHlc = String(Math.max(0, Math.floor(cutoffMs))).padStart(13, '0');
    const cursors = await exclusive(
      this.deps,
      () =>
        sqlite.prepare('SELECT peer, acked_seq AS ackedSeq FROM sync_cursor').all() as Array<{
          peer: string;
          ackedSeq: number;
        }>,
    );
    const deleted: Record<string, number> = {};
    for (const { peer, ackedSeq } of cursors) {
      const boundary = await exclusive(
        this.deps,
        () =>
          sqlite
            .prepare('SELECT max(seq) FROM change_log WHERE peer = ? AND seq <= ? AND hlc < ?')
            .pluck()
            .get(peer, ackedSeq, cutoffHlc) as number | null,
      );
      if (!boundary) continue;
      deleted[peer] = await this.deleteUpTo(peer, boundary);
    }
    if (Object.keys(deleted).length > 0)
      this.deps.log.info({ deleted }, 'acknowledged change-log rows pruned');
    return deleted;
  }

  /** Deletes the peer's rows up to `boundary` (all acknowledged) in chunks, recording the boundary. */
  private async deleteUpTo(peer: string, boundary: number): Promise<number> {
    const sqlite = sqliteOf(this.deps.db, 'change-log pruning');
    let total = 0;
    for (;;) {
      const n = await exclusive(this.deps, () =>
        sqlite.transaction(() => {
          const { changes } = sqlite
            .prepare(
              'DELETE FROM change_log WHERE seq IN (SELECT seq FROM change_log WHERE peer = ? AND seq <= ? ORDER BY seq LIMIT ?)',
            )
            .run(peer, boundary, CHUNK);
          // Recorded with the rows it describes: a crash leaves the two consistent.
          sqlite
            .prepare(
              `INSERT INTO sync_meta (name, value) VALUES (?, ?)
               ON CONFLICT (name) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`,
            )
            .run(prunedKey(peer), String(boundary));
          return changes;
        })(),
      );
      total += n;
      if (n < CHUNK) return total;
    }
  }
}
