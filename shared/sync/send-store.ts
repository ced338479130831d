import type { Dialect } from '../db/database.js';
import type { SqlWork } from '../db/sql-work.js';
import type { SyncDeps } from './deps.js';
import { exclusive } from './exclusive.js';
import {
  type BatchLimits,
  buildBatch,
  cursorWork,
  deleteMetaWork,
  type LogRow,
  logRowsWork,
  metaWork,
  type OutboxBatch,
  oldestQueuedHlcWork,
  prepareLogRows,
  probeBatch,
  prunedUpToWork,
  putMetaWork,
  rotateWork,
  type SendCursor,
  saveCursorWork,
  streamWork,
  topSeqWork,
} from './outbox.js';
import { allPeerFiguresWork, type PeerFigures, peerFiguresWork, totalFiguresWork } from './peer-counts.js';
import { type WorkRunner, workRunnerOf } from './work-runner.js';

/**
 * The send side of sync on either database (docs/sync.md "Apply, ack, resume"): our change log
 * read into batches, our stream id, how far each peer acknowledged it, the per-peer counts and
 * sync_meta's small records. Every rule is written once (outbox.ts, peer-counts.ts, prune.ts) and
 * run by the WorkRunner of the database.
 *
 * Seq order on PostgreSQL: a sender reads `seq >= from` and a peer's ack of `to` means "everything
 * up to `to`". That is only true if no row below a visible seq can still appear: on SQLite one
 * writer at a time guarantees it; on PostgreSQL the change_log trigger of migration 0001's twin
 * makes every transaction take its seqs and commit under one advisory lock, so seqs become visible
 * in seq order (test/integration/sync/change-log-order.test.ts).
 */
export class SendStore {
  private streamValue: string | undefined;
  private readonly rotateListeners: Array<(stream: string) => void> = [];

  /**
   * @param sqliteRows SQLite's array-row read of the log (prepareLogRows inside exclusive()), for
   * the catch-up's speed; without it the log is read through the runner.
   */
  constructor(
    private readonly runner: WorkRunner,
    private readonly limits: BatchLimits,
    private readonly sqliteRows?: (peer: string, from: number, limit: number) => Promise<LogRow[]>,
  ) {}

  get dialect(): Dialect {
    return this.runner.dialect;
  }

  /**
   * This database's change-log stream id (sync_meta 'stream'). Rotating it tells every peer that
   * our seqs start over (a restored database): peers reset their applied position on the new
   * stream, and every send position here starts again from the beginning. Kept after the first
   * read on SQLite (one process per database); read each time on PostgreSQL, where another cloud
   * node may rotate it (a primary-key read, in the same round of work as the batch it goes with).
   */
  async stream(): Promise<string> {
    return this.runner.run(() => this.streamWork());
  }

  private *streamWork(): SqlWork<string> {
    if (this.streamValue !== undefined) return this.streamValue;
    const value = yield* streamWork();
    if (this.runner.dialect === 'sqlite') this.streamValue = value;
    return value;
  }

  /** A new stream id, and every peer's acknowledged position back to 0, in one transaction. */
  async rotateStream(): Promise<string> {
    const next = await this.runner.transaction(rotateWork);
    if (this.runner.dialect === 'sqlite') this.streamValue = next;
    for (const l of this.rotateListeners) l(next);
    return next;
  }

  onRotate(listener: (stream: string) => void): void {
    this.rotateListeners.push(listener);
  }

  /** The batch for `peer` from seq `from` (buildBatch), undefined when nothing is at or after it. */
  async read(peer: string, site: string, from: number): Promise<OutboxBatch | undefined> {
    const { limits } = this;
    if (this.sqliteRows && this.streamValue !== undefined) {
      const rows = await this.sqliteRows(peer, from, limits.batchRows);
      return buildBatch(limits, site, this.streamValue, from, rows);
    }
    const store = this;
    return this.runner.run(function* () {
      const stream = yield* store.streamWork();
      return buildBatch(limits, site, stream, from, yield* logRowsWork(peer, from, limits.batchRows));
    });
  }

  /** An empty batch `from..from - 1`: asks the peer where it is. */
  async probe(site: string, from: number): Promise<string> {
    return probeBatch(site, await this.stream(), from);
  }

  /**
   * The highest seq this database ever gave a change-log row (any peer; it survives pruning). A
   * peer acknowledging more than this saw a future we no longer have.
   */
  topSeq(): Promise<number> {
    return this.runner.run(topSeqWork);
  }

  /** HLC of the oldest row for `peer` after `after` (for lag): one step on the (peer, seq) index. */
  oldestQueuedHlc(peer: string, after: number): Promise<string | undefined> {
    return this.runner.run(() => oldestQueuedHlcWork(peer, after));
  }

  /** Undefined when the peer never had a cursor row. */
  cursor(peer: string): Promise<SendCursor | undefined> {
    return this.runner.run(() => cursorWork(peer));
  }

  /** Stores the acknowledged position: only ever raised, unless `exact` (the peer went back). */
  saveCursor(peer: string, cursor: SendCursor, exact: boolean): Promise<void> {
    return this.runner.run(() => saveCursorWork(peer, cursor.ackedSeq, cursor.ackedAt, exact));
  }

  /** Queue depth and dead letters of one peer (sync_peer_count, kept by triggers). */
  peerFigures(peer: string): Promise<PeerFigures> {
    return this.runner.run(() => peerFiguresWork(peer));
  }

  allPeerFigures(): Promise<Map<string, PeerFigures>> {
    return this.runner.run(allPeerFiguresWork);
  }

  totalFigures(): Promise<PeerFigures> {
    return this.runner.run(totalFiguresWork);
  }

  /** The highest seq pruned from `peer`'s log (0 if none). */
  prunedUpTo(peer: string): Promise<number> {
    return this.runner.run(() => prunedUpToWork(peer));
  }

  meta(name: string): Promise<string | undefined> {
    return this.runner.run(() => metaWork(name));
  }

  putMeta(name: string, value: string): Promise<void> {
    return this.runner.run(() => putMetaWork(name, value));
  }

  deleteMeta(name: string): Promise<void> {
    return this.runner.run(() => deleteMetaWork(name));
  }
}

/** The store of the app's database, with the configured batch limits. */
export function sendStoreOf(deps: Pick<SyncDeps, 'db' | 'config'>): SendStore {
  const { db } = deps;
  if (db.dialect !== 'sqlite') return new SendStore(workRunnerOf(deps), deps.config.sync);
  const logRows = prepareLogRows(db.sqlite);
  return new SendStore(workRunnerOf(deps), deps.config.sync, (peer, from, limit) =>
    exclusive(deps, () => logRows(peer, from, limit)),
  );
}
