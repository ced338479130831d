import type Database from 'better-sqlite3';
import type { PeerFigures } from '../../shared/sync/peer-counts.js';

/**
 * Each peer's queue and dead letters counted from the rows (what sync_peer_count must always
 * equal), for every peer that has a count row, a log row, a cursor or a dead letter.
 */
export function countsByRecount(sqlite: Database.Database): Record<string, PeerFigures> {
  const peers = sqlite
    .prepare(
      `SELECT peer FROM sync_peer_count UNION SELECT peer FROM change_log
       UNION SELECT peer FROM sync_cursor UNION SELECT peer FROM dead_letter`,
    )
    .pluck()
    .all() as string[];
  const queued = sqlite.prepare(
    'SELECT count(*) FROM change_log WHERE peer = ? AND seq > coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = ?), 0)',
  );
  const dead = sqlite.prepare('SELECT count(*) FROM dead_letter WHERE peer = ?');
  return Object.fromEntries(
    peers.map((peer) => [
      peer,
      {
        queued: Number(queued.pluck().get(peer, peer)),
        deadLetters: Number(dead.pluck().get(peer)),
      },
    ]),
  );
}
