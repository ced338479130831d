import type Database from 'better-sqlite3';

export interface PeerFigures {
  /** Rows of our log the peer has not acknowledged. */
  queued: number;
  /** Rows from the peer that could not be applied. */
  deadLetters: number;
}

const NONE: PeerFigures = { queued: 0, deadLetters: 0 };

/**
 * Queue depths and dead letters per peer, read from sync_peer_count: counts that triggers keep in
 * the transaction of every change_log, sync_cursor and dead_letter write (migration 0011), so a
 * status read is one primary-key lookup per peer however long the backlog. Synchronous: call it
 * inside exclusive() (or any read on the sync connection).
 */
export class PeerCounts {
  private readonly oneStmt: Database.Statement;
  private readonly allStmt: Database.Statement;
  private readonly totalStmt: Database.Statement;

  constructor(sqlite: Database.Database) {
    this.oneStmt = sqlite.prepare(
      'SELECT log_rows - acked_rows AS queued, dead_letters AS deadLetters FROM sync_peer_count WHERE peer = ?',
    );
    this.allStmt = sqlite.prepare(
      'SELECT peer, log_rows - acked_rows AS queued, dead_letters AS deadLetters FROM sync_peer_count',
    );
    this.totalStmt = sqlite.prepare(
      'SELECT coalesce(sum(log_rows - acked_rows), 0) AS queued, coalesce(sum(dead_letters), 0) AS deadLetters FROM sync_peer_count',
    );
  }

  of(peer: string): PeerFigures {
    return (this.oneStmt.get(peer) as PeerFigures | undefined) ?? NONE;
  }

  /** Every peer that ever had a log row, a cursor or a dead letter. */
  all(): Map<string, PeerFigures> {
    const rows = this.allStmt.all() as Array<PeerFigures & { peer: string }>;
    return new Map(rows.map(({ peer, ...figures }) => [peer, figures]));
  }

  /** Sums over every peer. */
  total(): PeerFigures {
    return this.totalStmt.get() as PeerFigures;
  }
}
