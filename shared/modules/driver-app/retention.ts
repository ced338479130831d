import type { AppDatabase } from '../../db/database.js';
import { deleteLocationsBefore } from './repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per DELETE, so one prune never holds the write lock for long on a busy gate box. */
const PRUNE_CHUNK = 5000;

/**
 * Deletes location pings older than the retention window, in chunks, on either database.
 *
 * This deliberately bypasses ChangeCapture: pings are immutable and each site keeps them only for
 * a while. Dropping old ones is local housekeeping, not a change for peers: the cloud keeps
 * (or prunes) its own copy on its own schedule, so no tombstones are logged. Per-row deletes
 * through ChangeCapture would write a change_log row per ping: far too slow for millions of rows.
 */
export async function pruneOldLocations(
  db: AppDatabase,
  now: number,
  retentionDays: number,
): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  let total = 0;
  for (;;) {
    const changes = await deleteLocationsBefore(db, cutoff, PRUNE_CHUNK);
    total += changes;
    if (changes < PRUNE_CHUNK) return total;
  }
}
