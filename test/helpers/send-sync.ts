import type Database from 'better-sqlite3';
import { SqliteWork } from '../../shared/db/sql-work.js';
import {
  type BatchLimits,
  buildBatch,
  cursorWork,
  type OutboxBatch,
  oldestQueuedHlcWork,
  prepareLogRows,
  probeBatch,
  rotateWork,
  type SendCursor,
  saveCursorWork,
  streamWork,
  topSeqWork,
} from '../../shared/sync/outbox.js';
import {
  allPeerFiguresWork,
  type PeerFigures,
  peerFiguresWork,
  totalFiguresWork,
} from '../../shared/sync/peer-counts.js';

/*
 * The send side's work (shared/sync/outbox.ts, peer-counts.ts) run synchronously on a SQLite
 * connection, for tests and benchmarks that read or set a log's state directly; the sync runtime
 * runs the same work through SendStore (send-store.ts).
 */

/** The log's stream id. */
export class StreamId {
  private value: string | undefined;
  private readonly work: SqliteWork;

  constructor(sqlite: Database.Database) {
    this.work = new SqliteWork(sqlite);
  }

  current(): string {
    this.value ??= this.work.run(streamWork());
    return this.value;
  }

  rotate(): string {
    const next = this.work.sqlite.transaction(() => this.work.run(rotateWork()))();
    this.value = next;
    return next;
  }
}

/** Reads peers' change logs into batches (synchronous SQLite face; see SendStore). */
export class Outbox {
  private readonly work: SqliteWork;
  private readonly logRows: ReturnType<typeof prepareLogRows>;

  constructor(
    sqlite: Database.Database,
    private readonly limits: BatchLimits,
    private readonly stream: StreamId,
  ) {
    this.work = new SqliteWork(sqlite);
    this.logRows = prepareLogRows(sqlite);
  }

  read(peer: string, site: string, from: number): OutboxBatch | undefined {
    const rows = this.logRows(peer, from, this.limits.batchRows);
    return buildBatch(this.limits, site, this.stream.current(), from, rows);
  }

  probe(site: string, from: number): string {
    return probeBatch(site, this.stream.current(), from);
  }

  oldestQueuedHlc(peer: string, after: number): string | undefined {
    return this.work.run(oldestQueuedHlcWork(peer, after));
  }

  topSeq(): number {
    return this.work.run(topSeqWork());
  }
}

/** The sender's side of sync_cursor (synchronous SQLite face; see SendStore). */
export class SendCursors {
  private readonly work: SqliteWork;

  constructor(sqlite: Database.Database) {
    this.work = new SqliteWork(sqlite);
  }

  /** Undefined when the peer never had a cursor row. */
  get(peer: string): SendCursor | undefined {
    return this.work.run(cursorWork(peer));
  }

  save(peer: string, ackedSeq: number, ackedAt: number | null, exact: boolean): void {
    this.work.run(saveCursorWork(peer, ackedSeq, ackedAt, exact));
  }
}

/** The peers' queue and dead-letter counts. */
export class PeerCounts {
  private readonly work: SqliteWork;

  constructor(sqlite: Database.Database) {
    this.work = new SqliteWork(sqlite);
  }

  of(peer: string): PeerFigures {
    return this.work.run(peerFiguresWork(peer));
  }

  all(): Map<string, PeerFigures> {
    return this.work.run(allPeerFiguresWork());
  }

  total(): PeerFigures {
    return this.work.run(totalFiguresWork());
  }
}
