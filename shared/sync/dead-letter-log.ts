import type { Logger } from '../log.js';

/** How many dead letters of one apply are named in its log line. */
const EXAMPLES = 5;

interface Letter {
  seq: number;
  entity: string;
  id: string;
}

interface Summary {
  count: number;
  entities: Record<string, number>;
  first: Array<Letter & { error: string }>;
}

/** Per logger: peer -> the dead letters noted since the last summary. */
const pending = new WeakMap<Logger, Map<string, Summary>>();

/**
 * Dead letters are logged in summary: one warning per peer for all the rows dead-lettered by one
 * synchronous apply (a batch, or the batches applied together in one transaction), written right
 * after it, with the count per entity and the first few errors. A batch whose 100,000 rows are all
 * refused costs one log line, not 100,000; every row is in dead_letter (GET /api/sync/dead-letter).
 */
export function noteDeadLetter(log: Logger, peer: string, row: Letter, error: string): void {
  let byPeer = pending.get(log);
  if (!byPeer) {
    byPeer = new Map();
    pending.set(log, byPeer);
    // Applies are synchronous: this runs once the current one (and its transaction) is done.
    setImmediate(() => flush(log));
  }
  let summary = byPeer.get(peer);
  if (!summary) {
    summary = { count: 0, entities: {}, first: [] };
    byPeer.set(peer, summary);
  }
  summary.count += 1;
  summary.entities[row.entity] = (summary.entities[row.entity] ?? 0) + 1;
  if (summary.first.length < EXAMPLES) {
    summary.first.push({ seq: row.seq, entity: row.entity, id: row.id, error });
  }
}

function flush(log: Logger): void {
  const byPeer = pending.get(log);
  pending.delete(log);
  for (const [peer, { count, entities, first }] of byPeer ?? []) {
    log.warn(
      { peer, count, entities, first },
      `${count} sync row(s) dead-lettered (the first ${first.length} here; all in GET /api/sync/dead-letter)`,
    );
  }
}
