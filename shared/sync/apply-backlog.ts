import type { Clock } from '../clock.js';
import { type DeadLetterPayload, type Received, type RowApplier, Touched } from './apply-rows.js';
import type { RowSql } from './row-sql.js';

/**
 * Received rows that could not be applied when they arrived: dead letters (a row that failed) and
 * pending rows (a newer schema than ours). Runs inside the caller's transaction; the caller
 * publishes each peer's Touched after commit.
 */
export class Backlog {
  constructor(
    private readonly sql: RowSql,
    private readonly rows: RowApplier,
    private readonly clock: Clock,
    private readonly schemaVersion: number,
  ) {}

  /**
   * Re-applies dead letters (all, or those of one peer / ids), in their order, until a pass applies
   * no more. The ones that now apply are removed, and so are those a newer change of the same row
   * has replaced meanwhile (`applied` counts both); the others keep their letter with the new error.
   */
  retryDeadLetters(
    filter: { peer?: string; ids?: number[] },
    byPeer: Map<string, Touched>,
  ): { retried: number; applied: number } {
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
    const letters = this.sql.sqlite.prepare(select).all(...params) as LetterRow[];
    const remove = this.sql.statement('dead|remove', () => 'DELETE FROM dead_letter WHERE id = ?');
    const note = this.sql.statement(
      'dead|note',
      () => 'UPDATE dead_letter SET error = ?, at = ? WHERE id = ?',
    );
    let applied = 0;
    let open = letters;
    for (let progress = open.length > 0; progress; ) {
      progress = false;
      const failed: LetterRow[] = [];
      for (const letter of open) {
        const touched = byPeer.get(letter.peer) ?? new Touched();
        byPeer.set(letter.peer, touched);
        const outcome = this.rows.tryRow(letter.peer, fromLetter(letter), touched, true);
        if (outcome.ok) {
          remove.run(letter.id);
          applied += 1;
          progress = true;
        } else {
          failed.push(letter);
          note.run(outcome.error, this.clock.now(), letter.id);
        }
      }
      open = failed;
    }
    return { retried: letters.length, applied };
  }

  /**
   * An admin adopts a formerly standalone edge's own master data (its yards, locations, carriers,
   * users...): the site's dead letters refused as cloud-owned (all, or some ids) are inserted where
   * absent, as the cloud's own records from now on; then the site's other dead letters, which may
   * have waited for them (a gate of an adopted yard), are retried.
   */
  adopt(
    peer: string,
    ids: number[] | undefined,
    byPeer: Map<string, Touched>,
  ): { adopted: number; applied: number } {
    const idFilter = ids ? ` AND id IN (${ids.map(() => '?').join(', ')})` : '';
    const letters = this.sql.sqlite
      .prepare(
        `SELECT id, peer, seq, entity, entity_id, data FROM dead_letter WHERE peer = ? AND error LIKE '[cloud-owned]%'${idFilter} ORDER BY id`,
      )
      .all(peer, ...(ids ?? [])) as LetterRow[];
    const touched = byPeer.get(peer) ?? new Touched();
    byPeer.set(peer, touched);
    const remove = this.sql.statement('dead|remove', () => 'DELETE FROM dead_letter WHERE id = ?');
    let adopted = 0;
    for (const letter of letters) {
      const outcome = this.rows.tryRow(peer, fromLetter(letter), touched, true, true);
      if (!outcome.ok) continue; // keeps its letter (e.g. a reference not adopted yet); retry below
      remove.run(letter.id);
      adopted += 1;
    }
    const { applied } = this.retryDeadLetters({ peer }, byPeer);
    return { adopted, applied };
  }

  /**
   * Applies sync_pending rows whose schema_v <= our schema version, per peer in order; a row still
   * too new holds back the peer's later rows. Returns how many left the table.
   */
  applyPending(byPeer: Map<string, Touched>): number {
    const rows = this.sql
      .statement('pending|all', () => 'SELECT * FROM sync_pending ORDER BY id')
      .all() as PendingRow[];
    const blocked = new Set<string>();
    const ready = new Map<string, Received[]>();
    const remove = this.sql.statement('pending|remove', () => 'DELETE FROM sync_pending WHERE id = ?');
    let taken = 0;
    for (const row of rows) {
      if (blocked.has(row.peer) || row.schema_v > this.schemaVersion) {
        blocked.add(row.peer);
        continue;
      }
      const list = ready.get(row.peer) ?? [];
      list.push(fromPending(row));
      ready.set(row.peer, list);
      remove.run(row.id);
      taken += 1;
    }
    for (const [peer, changes] of ready) {
      const touched = new Touched();
      byPeer.set(peer, touched);
      this.rows.applyRows(peer, changes, touched);
    }
    return taken;
  }

  /** Keeps rows of a newer schema (or behind parked ones of the same peer) for applyPending. */
  park(peer: string, schemaV: number, rows: readonly Received[]): void {
    const put = this.sql.statement(
      'pending|put',
      () =>
        'INSERT INTO sync_pending (peer, seq, schema_v, entity, entity_id, op, hlc, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const row of rows) {
      put.run(peer, row.seq, schemaV, row.entity, row.id, row.op, row.hlc, JSON.stringify(row.data));
    }
  }

  hasPending(peer: string): boolean {
    return (
      this.sql
        .statement('pending|any', () => 'SELECT 1 FROM sync_pending WHERE peer = ? LIMIT 1')
        .get(peer) !== undefined
    );
  }
}

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
