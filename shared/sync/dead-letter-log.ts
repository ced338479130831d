import type { Logger } from '../log.js';

/** How many dead letters of one apply are named in its log line. */
const EXAMPLES = 5;

interface Letter {
  seq: number;
  entity: string;
  id: string;
}

/**
 * Dead letters are logged in summary: one warning per peer for all the rows dead-lettered by one
 * apply transaction (a batch, or the batches applied together), written after it commits, with the
 * count per entity and the first few errors. A batch whose 100,000 rows are all refused costs one
 * log line, not 100,000; every row is in dead_letter (GET /api/sync/dead-letter). Kept with the
 * transaction's other effects (apply-rows.ts Touched): a transaction rolled back, or run again
 * after a PostgreSQL deadlock, logs nothing of its own.
 */
export class DeadLetterSummary {
  private count = 0;
  private readonly entities: Record<string, number> = {};
  private readonly first: Array<Letter & { error: string }> = [];

  note(row: Letter, error: string): void {
    this.count += 1;
    this.entities[row.entity] = (this.entities[row.entity] ?? 0) + 1;
    if (this.first.length < EXAMPLES) {
      this.first.push({ seq: row.seq, entity: row.entity, id: row.id, error });
    }
  }

  /** The one warning, if anything was dead-lettered. */
  log(log: Logger, peer: string): void {
    if (this.count === 0) return;
    const { count, entities, first } = this;
    log.warn(
      { peer, count, entities, first },
      `${count} sync row(s) dead-lettered (the first ${first.length} here; all in GET /api/sync/dead-letter)`,
    );
  }
}
