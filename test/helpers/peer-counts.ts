import type Database from 'better-sqlite3';
import type { AppDatabase } from '../../shared/db/database.js';
import type { PeerFigures } from '../../shared/sync/peer-counts.js';
import { query } from './http.js';

const PEERS = `SELECT peer FROM sync_peer_count UNION SELECT peer FROM change_log
       UNION SELECT peer FROM sync_cursor UNION SELECT peer FROM dead_letter`;
const QUEUED =
  'SELECT count(*) AS n FROM change_log WHERE peer = ? AND seq > coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = ?), 0)';
const DEAD = 'SELECT count(*) AS n FROM dead_letter WHERE peer = ?';

/**
 * Each peer's queue and dead letters counted from the rows (what sync_peer_count must always
 * equal), for every peer that has a count row, a log row, a cursor or a dead letter.
 */
export function countsByRecount(sqlite: Database.Database): Record<string, PeerFigures> {
  const peers = sqlite.prepare(PEERS).pluck().all() as string[];
  const queued = sqlite.prepare(QUEUED).pluck();
  const dead = sqlite.prepare(DEAD).pluck();
  return Object.fromEntries(
    peers.map((peer) => [
      peer,
      { queued: Number(queued.get(peer, peer)), deadLetters: Number(dead.get(peer)) },
    ]),
  );
}

/** The same on either database (a cloud on PostgreSQL). */
export async function countsByRecountOn(db: AppDatabase): Promise<Record<string, PeerFigures>> {
  if (db.dialect === 'sqlite') return countsByRecount(db.sqlite);
  const out: Record<string, PeerFigures> = {};
  for (const { peer } of await query(db, PEERS)) {
    const [queued] = await query(db, QUEUED, peer, peer);
    const [dead] = await query(db, DEAD, peer);
    out[peer] = { queued: Number(queued.n), deadLetters: Number(dead.n) };
  }
  return out;
}
