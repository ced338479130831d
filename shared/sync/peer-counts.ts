import { type SqlWork, sqlRow, sqlRows, statement } from '../db/sql-work.js';

export interface PeerFigures {
  /** Rows of our log the peer has not acknowledged. */
  queued: number;
  /** Rows from the peer that could not be applied. */
  deadLetters: number;
}

const NONE: PeerFigures = { queued: 0, deadLetters: 0 };

/*
 * Queue depths and dead letters per peer, read from sync_peer_count: counts that triggers keep in
 * the transaction of every change_log, sync_cursor and dead_letter write (migration 0011 and its
 * PostgreSQL twin), so a status read is one primary-key lookup per peer however long the backlog.
 */
const selectOne = statement(
  'counts|one',
  'row',
  'SELECT log_rows - acked_rows AS queued, dead_letters AS "deadLetters" FROM sync_peer_count WHERE peer = ?',
);
const selectAll = statement(
  'counts|all',
  'rows',
  'SELECT peer, log_rows - acked_rows AS queued, dead_letters AS "deadLetters" FROM sync_peer_count',
);
const selectTotal = statement(
  'counts|total',
  'row',
  'SELECT coalesce(sum(log_rows - acked_rows), 0) AS queued, coalesce(sum(dead_letters), 0) AS "deadLetters" FROM sync_peer_count',
);

const figures = (row: Record<string, unknown>): PeerFigures => ({
  queued: Number(row.queued),
  deadLetters: Number(row.deadLetters),
});

export function* peerFiguresWork(peer: string): SqlWork<PeerFigures> {
  const row = yield* sqlRow(selectOne, [peer]);
  return row ? figures(row) : NONE;
}

/** Every peer that ever had a log row, a cursor or a dead letter. */
export function* allPeerFiguresWork(): SqlWork<Map<string, PeerFigures>> {
  const rows = yield* sqlRows(selectAll, []);
  return new Map(rows.map((row) => [String(row.peer), figures(row)]));
}

/** Sums over every peer. */
export function* totalFiguresWork(): SqlWork<PeerFigures> {
  const row = yield* sqlRow(selectTotal, []);
  return row ? figures(row) : NONE;
}
