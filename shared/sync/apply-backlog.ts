import type { Clock } from '../clock.js';
import { type SqlWork, sqlRows, sqlRun, sqlValue, statement } from '../db/sql-work.js';
import { chosenRows, planAdoption } from './adoption.js';
import type { RowApplier } from './apply-rows.js';
import type { DeadLetterPayload, Received } from './row-change.js';
import { Touched } from './touched.js';

/**
 * Received rows that could not be applied when they arrived: dead letters (a row that failed) and
 * pending rows (a newer schema than ours). Runs inside the caller's transaction; the caller
 * publishes each peer's Touched after commit.
 */
export class Backlog {
  constructor(
    private readonly rows: RowApplier,
    private readonly clock: Clock,
    private readonly schemaVersion: number,
  ) {}

  /**
   * Re-applies dead letters (all, or those of one peer / ids), in their order, until a pass applies
   * no more. The ones that now apply are removed, and so are those a newer change of the same row
   * has replaced meanwhile (`applied` counts both); the others keep their letter with the new error.
   */
  *retryDeadLetters(
    filter: { peer?: string; ids?: number[] },
    byPeer: Map<string, Touched>,
  ): SqlWork<{ retried: number; applied: number }> {
    if (filter.ids?.length === 0) return { retried: 0, applied: 0 };
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.peer !== undefined) {
      where.push('peer = ?');
      params.push(filter.peer);
    }
    if (filter.ids !== undefined) {
      where.push(`id IN (${filter.ids.map(() => '?').join(', ')})`);
      params.push(...filter.ids);
    }
    const select = `SELECT id, peer, seq, entity, entity_id, data FROM dead_letter${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id`;
    const letters = (yield* sqlRows(
      statement(`dead|select|${select}`, 'rows', select),
      params,
    )) as unknown as LetterRow[];
    let applied = 0;
    let open = letters;
    for (let progress = open.length > 0; progress; ) {
      progress = false;
      const failed: LetterRow[] = [];
      for (const letter of open) {
        const touched = byPeer.get(letter.peer) ?? new Touched();
        byPeer.set(letter.peer, touched);
        const outcome = yield* this.rows.tryRow(letter.peer, fromLetter(letter), touched, true);
        if (outcome.ok) {
          yield* sqlRun(DEAD_LETTER_REMOVE, [letter.id]);
          applied += 1;
          progress = true;
        } else {
          failed.push(letter);
          yield* sqlRun(DEAD_LETTER_NOTE, [outcome.error, this.clock.now(), letter.id]);
        }
      }
      open = failed;
    }
    return { retried: letters.length, applied };
  }

  /**
   * An admin adopts a formerly standalone edge's own master data (adoption.ts): the chosen dead
   * letters, each one a row the preview showed as adoptable (checked again here, in this
   * transaction: 409 and nothing applied otherwise), are inserted where absent as the cloud's own
   * records from now on; then the site's other dead letters, which may have waited for them (a gate
   * of an adopted yard), are retried.
   */
  *adopt(
    peer: string,
    ids: readonly number[],
    byPeer: Map<string, Touched>,
  ): SqlWork<{ adopted: number; applied: number }> {
    const chosen = chosenRows(yield* planAdoption(peer), ids);
    const select = `SELECT id, peer, seq, entity, entity_id, data FROM dead_letter WHERE id IN (${ids.map(() => '?').join(', ')})`;
    const letters = (yield* sqlRows(statement(`dead|adopt|${ids.length}`, 'rows', select), [
      ...ids,
    ])) as unknown as LetterRow[];
    const byId = new Map(letters.map((l) => [Number(l.id), l]));
    const touched = byPeer.get(peer) ?? new Touched();
    byPeer.set(peer, touched);
    let adopted = 0;
    for (const row of chosen) {
      const letter = byId.get(row.deadLetterId)!;
      const outcome = yield* this.rows.tryRow(peer, fromLetter(letter), touched, true, true);
      if (!outcome.ok) continue; // keeps its letter (e.g. a reference not adopted yet); retry below
      yield* sqlRun(DEAD_LETTER_REMOVE, [letter.id]);
      adopted += 1;
    }
    const { applied } = yield* this.retryDeadLetters({ peer }, byPeer);
    return { adopted, applied };
  }

  /**
   * Applies sync_pending rows whose schema_v <= our schema version, per peer in order; a row still
   * too new holds back the peer's later rows. Returns how many left the table.
   */
  *applyPending(byPeer: Map<string, Touched>): SqlWork<number> {
    const rows = (yield* sqlRows(PENDING_ALL, [])) as unknown as PendingRow[];
    const blocked = new Set<string>();
    const ready = new Map<string, Received[]>();
    let taken = 0;
    for (const row of rows) {
      if (blocked.has(row.peer) || row.schema_v > this.schemaVersion) {
        blocked.add(row.peer);
        continue;
      }
      const list = ready.get(row.peer) ?? [];
      list.push(fromPending(row));
      ready.set(row.peer, list);
      yield* sqlRun(PENDING_REMOVE, [row.id]);
      taken += 1;
    }
    for (const [peer, changes] of ready) {
      const touched = new Touched();
      byPeer.set(peer, touched);
      yield* this.rows.applyRows(peer, changes, touched);
    }
    return taken;
  }

  /** Keeps rows of a newer schema (or behind parked ones of the same peer) for applyPending. */
  *park(peer: string, schemaV: number, rows: readonly Received[]): SqlWork<void> {
    for (const row of rows) {
      yield* sqlRun(PENDING_PUT, [
        peer,
        row.seq,
        schemaV,
        row.entity,
        row.id,
        row.op,
        row.hlc,
        JSON.stringify(row.data),
      ]);
    }
  }

  *hasPending(peer: string): SqlWork<boolean> {
    return (yield* sqlValue(PENDING_ANY, [peer])) !== undefined;
  }
}

const DEAD_LETTER_REMOVE = statement('dead|remove', 'changes', 'DELETE FROM dead_letter WHERE id = ?');
const DEAD_LETTER_NOTE = statement(
  'dead|note',
  'changes',
  'UPDATE dead_letter SET error = ?, at = ? WHERE id = ?',
);
const PENDING_ALL = statement('pending|all', 'rows', 'SELECT * FROM sync_pending ORDER BY id');
const PENDING_REMOVE = statement('pending|remove', 'changes', 'DELETE FROM sync_pending WHERE id = ?');
const PENDING_PUT = statement(
  'pending|put',
  'changes',
  'INSERT INTO sync_pending (peer, seq, schema_v, entity, entity_id, op, hlc, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
);
const PENDING_ANY = statement('pending|any', 'value', 'SELECT 1 FROM sync_pending WHERE peer = ? LIMIT 1');

interface LetterRow {
  id: number;
  peer: string;
  seq: number;
  entity: string;
  entity_id: string;
  data: string;
}

interface PendingRow {
  id: number;
  peer: string;
  seq: number;
  schema_v: number;
  entity: string;
  entity_id: string;
  op: 'upsert' | 'delete';
  hlc: string;
  data: string;
}

function fromPending(row: PendingRow): Received {
  return {
    seq: row.seq,
    entity: row.entity,
    id: row.entity_id,
    op: row.op,
    hlc: row.hlc,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

function fromLetter(letter: LetterRow): Received {
  let payload: Partial<DeadLetterPayload> = {};
  try {
    payload = JSON.parse(letter.data) as Partial<DeadLetterPayload>;
  } catch {
    // Unreadable: applying it fails again and the letter stays.
  }
  return {
    seq: letter.seq,
    entity: letter.entity,
    id: letter.entity_id,
    op: payload.op === 'delete' ? 'delete' : 'upsert',
    hlc: typeof payload.hlc === 'string' ? payload.hlc : '',
    data: payload.data && typeof payload.data === 'object' ? payload.data : {},
  };
}
