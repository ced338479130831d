import type Database from 'better-sqlite3';
import type { Core } from '../core.js';
import { SCHEMA_VERSION } from '../db/migrate.js';
import { type RowChange, type RowEffect, RowRejected, RowRules } from './apply-rules.js';
import { DerivedState } from './derived.js';
import { parseHlc } from './hlc.js';
import type { Batch } from './protocol.js';
import { createRouting, type Routing } from './routing.js';
import { RowSql } from './row-sql.js';

export interface ApplyOutcome {
  /** The peer's applied position after this call: ack {upTo}. */
  upTo: number;
  /** Rows that changed local data. */
  applied: number;
  /** Rows with seq <= the applied position (skipped). */
  duplicates: number;
  /** Rows that failed and went to dead_letter. */
  deadLetters: number;
  /** Rows kept in sync_pending (a newer schema than ours). */
  pending: number;
  /** batch.from > position + 1: nothing applied. */
  gap: boolean;
  /** The peer's stream id changed: its position restarted at 0 first. */
  streamReset: boolean;
}

/** A Kysely (async) transaction is open on the connection: apply again shortly. */
export class BusyError extends Error {
  constructor() {
    super('A transaction is open on the database; apply the batch again shortly.');
    this.name = 'BusyError';
  }
}

/** What dead_letter.data holds: the change as received, enough to apply it again. */
export interface DeadLetterPayload {
  op: 'upsert' | 'delete';
  hlc: string;
  data: Record<string, unknown>;
}

interface Received extends RowChange {
  seq: number;
}

/** Effects of one transaction, published after it commits. */
class Touched {
  readonly tables = new Set<string>();
  readonly yards = new Set<string>();
  readonly queuedYards = new Set<string>();
  readonly drivers = new Set<string>();
  readonly forwardedTo = new Set<string>();
  readonly entities = new Map<string, number>();
  applied = 0;
}

/**
 * Applies a peer's change batches to the local database (SYNC.md "Apply, ack, resume"): one
 * better-sqlite3 transaction per batch, rows in seq order, duplicates skipped by the peer's applied
 * position, gaps refused, one savepoint per row so a failing row goes to dead_letter alone, rows of
 * a newer schema parked in sync_pending. Conflict rules: apply-rules.ts. At the cloud, a row that
 * other sites need (a driver edited at one site) is written to their change logs in the same
 * transaction.
 *
 * Synchronous on purpose: better-sqlite3 statements prepared once, no Kysely, no awaits, so a week
 * of an edge's changes applies at tens of thousands of rows per second and nothing else can
 * interleave with a batch.
 */
export class ChangeApplier {
  private readonly sql: RowSql;
  private readonly rules: RowRules;
  private readonly routing: Routing;
  private readonly sqlite: Database.Database;
  /** Our schema version. A constructor option only so tests can play an upgraded program. */
  private readonly schemaVersion: number;

  constructor(
    private readonly core: Core,
    options: { schemaVersion?: number; routing?: Routing } = {},
  ) {
    this.sqlite = core.db.sqlite;
    this.sql = new RowSql(this.sqlite);
    this.rules = new RowRules(this.sql, new DerivedState(this.sql, core.clock), core.config.role);
    this.routing = options.routing ?? createRouting({ sqlite: this.sqlite, role: core.config.role });
    this.schemaVersion = options.schemaVersion ?? SCHEMA_VERSION;
  }

  apply(peer: string, batch: Batch): ApplyOutcome {
    this.assertIdle();
    const touched = new Touched();
    const outcome = this.sqlite.transaction(() => this.applyBatch(peer, batch, touched)).immediate();
    this.afterCommit(peer, touched);
    return outcome;
  }

  /** Re-applies dead letters (all, or those of one peer / ids); the ones that now apply are removed. */
  retryDeadLetters(filter: { peer?: string; ids?: number[] } = {}): { retried: number; applied: number } {
    this.assertIdle();
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.peer !== undefined) {
      where.push('peer = ?');
      params.push(filter.peer);
    }
    if (filter.ids !== undefined) {
      if (filter.ids.length === 0) return { retried: 0, applied: 0 };
      where.push(`id IN (${filter.ids.map(() => '?').join(', ')})`);
      params.push(...filter.ids);
    }
    const sql = `SELECT id, peer, seq, entity, entity_id, data FROM dead_letter${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id`;
    const byPeer = new Map<string, Touched>();
    const result = this.sqlite
      .transaction(() => {
        const letters = this.sqlite.prepare(sql).all(...params) as Array<{
          id: number;
          peer: string;
          seq: number;
          entity: string;
          entity_id: string;
          data: string;
        }>;
        const remove = this.sql.statement('dead|remove', () => 'DELETE FROM dead_letter WHERE id = ?');
        const note = this.sql.statement(
          'dead|note',
          () => 'UPDATE dead_letter SET error = ?, at = ? WHERE id = ?',
        );
        let applied = 0;
        // Letters may depend on each other (a movement on its gate): retry until a pass changes nothing.
        let open = letters;
        for (let progress = true; progress && open.length > 0; ) {
          progress = false;
          const failed: typeof open = [];
          for (const letter of open) {
            const touched = byPeer.get(letter.peer) ?? new Touched();
            byPeer.set(letter.peer, touched);
            const outcome = this.tryRow(letter.peer, toChange(letter), touched, true);
            if (outcome.ok) {
              remove.run(letter.id);
              applied += 1;
              progress = true;
            } else {
              failed.push(letter);
              note.run(outcome.error, this.core.clock.now(), letter.id);
            }
          }
          open = failed;
        }
        return { retried: letters.length, applied };
      })
      .immediate();
    for (const [peer, touched] of byPeer) this.afterCommit(peer, touched);
    return result;
  }

  /** Applies sync_pending rows whose schema_v <= our schema version (after an upgrade). Returns how many left the table. */
  applyPending(): number {
    this.assertIdle();
    const byPeer = new Map<string, Touched>();
    const done = this.sqlite
      .transaction(() => {
        const rows = this.sql
          .statement('pending|all', () => 'SELECT * FROM sync_pending ORDER BY id')
          .all() as PendingRow[];
        const blocked = new Set<string>();
        const ready = new Map<string, Received[]>();
        const remove = this.sql.statement('pending|remove', () => 'DELETE FROM sync_pending WHERE id = ?');
        let count = 0;
        for (const row of rows) {
          // Per peer in order: a row still too new holds back everything after it.
          if (blocked.has(row.peer) || row.schema_v > this.schemaVersion) {
            blocked.add(row.peer);
            continue;
          }
          const list = ready.get(row.peer) ?? [];
          list.push(fromPending(row));
          ready.set(row.peer, list);
          remove.run(row.id);
          count += 1;
        }
        for (const [peer, changes] of ready) {
          const touched = new Touched();
          byPeer.set(peer, touched);
          this.applyRows(peer, changes, touched);
        }
        return count;
      })
      .immediate();
    for (const [peer, touched] of byPeer) this.afterCommit(peer, touched);
    return done;
  }

  /** Sets the peer's applied position (resync: the snapshot starts at resumeFrom). */
  resetPosition(peer: string, stream: string, appliedUpTo: number): void {
    this.assertIdle();
    this.writeCursor(peer, stream, appliedUpTo);
  }

  private applyBatch(peer: string, batch: Batch, touched: Touched): ApplyOutcome {
    const outcome: ApplyOutcome = {
      upTo: 0,
      applied: 0,
      duplicates: 0,
      deadLetters: 0,
      pending: 0,
      gap: false,
      streamReset: false,
    };
    const cursor = this.sql
      .statement(
        'cursor|get',
        () =>
          'SELECT applied_remote_seq AS position, remote_stream AS stream FROM sync_cursor WHERE peer = ?',
      )
      .get(peer) as { position: number; stream: string | null } | undefined;
    let position = cursor?.position ?? 0;
    if (cursor?.stream !== batch.stream) {
      if (cursor?.stream || position > 0) {
        this.core.log.warn(
          { peer, previous: cursor?.stream ?? null, stream: batch.stream, position },
          'sync peer has a new change stream (replaced or restored database): its applied position restarts at 0',
        );
        outcome.streamReset = true;
      }
      position = 0;
      this.writeCursor(peer, batch.stream, 0);
    }
    outcome.upTo = position;
    if (batch.from > position + 1) {
      outcome.gap = true;
      return outcome;
    }
    const fresh: Received[] = [];
    for (const row of [...batch.rows].sort((a, b) => a.seq - b.seq)) {
      if (row.seq <= position) outcome.duplicates += 1;
      else
        fresh.push({
          seq: row.seq,
          entity: row.entity,
          id: row.id,
          op: row.op,
          hlc: row.hlc,
          data: row.data,
        });
    }
    const lastSeq = fresh.at(-1)?.seq ?? 0;
    const newPosition = Math.max(position, batch.to, lastSeq);

    if (fresh.length > 0 && (batch.schemaV > this.schemaVersion || this.hasPending(peer))) {
      // A newer schema than ours (or older rows of this peer still parked): keep them, in order.
      const park = this.sql.statement(
        'pending|put',
        () =>
          'INSERT INTO sync_pending (peer, seq, schema_v, entity, entity_id, op, hlc, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const row of fresh) {
        this.receiveHlc(row.hlc);
        park.run(peer, row.seq, batch.schemaV, row.entity, row.id, row.op, row.hlc, JSON.stringify(row.data));
      }
      outcome.pending = fresh.length;
    } else {
      const { applied, dead } = this.applyRows(peer, fresh, touched);
      outcome.applied = applied;
      outcome.deadLetters = dead;
    }
    this.writeCursor(peer, batch.stream, newPosition);
    outcome.upTo = newPosition;
    return outcome;
  }

  /**
   * Applies rows in order, each in its own savepoint. A row that fails on a foreign key is tried
   * again after the others (its reference may come later in the same batch, e.g. a movement and its
   * gate actuation reference each other); what still fails goes to dead_letter.
   */
  private applyRows(peer: string, rows: Received[], touched: Touched): { applied: number; dead: number } {
    let applied = 0;
    let dead = 0;
    let deferred: Array<{ row: Received; error: string }> = [];
    /** Last seq applied per record: an older deferred change of the same record is stale. */
    const lastApplied = new Map<string, number>();
    const attempt = (row: Received): { ok: boolean; error: string; foreignKey: boolean } => {
      const outcome = this.tryRow(peer, row, touched, false);
      if (!outcome.ok) return outcome;
      if (outcome.changed) applied += 1;
      lastApplied.set(`${row.entity}|${row.id}`, row.seq);
      return { ok: true, error: '', foreignKey: false };
    };
    for (const row of rows) {
      const outcome = attempt(row);
      if (outcome.ok) continue;
      if (outcome.foreignKey) deferred.push({ row, error: outcome.error });
      else {
        this.deadLetter(peer, row, outcome.error);
        dead += 1;
      }
    }
    // Until a pass applies nothing more: chains of references can arrive in any order.
    for (let progress = deferred.length > 0; progress; ) {
      progress = false;
      const again: typeof deferred = [];
      for (const entry of deferred) {
        if ((lastApplied.get(`${entry.row.entity}|${entry.row.id}`) ?? 0) > entry.row.seq) continue;
        const outcome = attempt(entry.row);
        if (outcome.ok) progress = true;
        else again.push({ row: entry.row, error: outcome.error });
      }
      deferred = again;
    }
    for (const { row, error } of deferred) {
      this.deadLetter(peer, row, error);
      dead += 1;
    }
    return { applied, dead };
  }

  /** One row in its own savepoint: all of its writes (forwarded log rows included) or none. */
  private tryRow(
    peer: string,
    row: RowChange,
    touched: Touched,
    retry: boolean,
  ): { ok: true; changed: boolean } | { ok: false; foreignKey: boolean; error: string } {
    try {
      this.receiveHlc(row.hlc);
      const { effect, forwarded } = this.sqlite.transaction(() => {
        const e = this.rules.apply(row, { retry });
        return { effect: e, forwarded: e.changed ? this.forward(peer, row, e) : [] };
      })();
      if (effect.changed) this.record(touched, effect, forwarded);
      return { ok: true, changed: effect.changed || effect.superseded === true };
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const foreignKey = code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
      const message =
        err instanceof RowRejected ? err.message : `${String(code ?? 'error')}: ${(err as Error).message}`;
      return { ok: false, foreignKey, error: message };
    }
  }

  /** At the cloud: the other sites that need the row get it in their change logs (same transaction). */
  private forward(peer: string, row: RowChange, effect: RowEffect): string[] {
    if (this.core.config.role !== 'cloud' || !effect.entity || !effect.stored) return [];
    const peers = this.routing.peersFor(effect.entity, effect.stored).filter((p) => p !== peer);
    if (peers.length === 0) return [];
    const entity = effect.entity;
    const data = row.op === 'delete' ? { [entity.key]: row.id } : withoutDerived(effect.stored);
    const hlc = row.op === 'delete' ? row.hlc : String(effect.stored.hlc ?? row.hlc);
    const log = this.sql.statement(
      'change_log|forward',
      () =>
        'INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const origin = parseHlc(row.hlc).origin;
    const json = JSON.stringify(data);
    for (const p of peers) log.run(p, entity.entity, row.id, row.op, hlc, origin, SCHEMA_VERSION, json);
    return peers;
  }

  private record(touched: Touched, effect: RowEffect, forwarded: string[]): void {
    const entity = effect.entity;
    const stored = effect.stored;
    if (!entity || !stored) return;
    touched.applied += 1;
    touched.tables.add(entity.table);
    // Visits are derived from movements in the same savepoint.
    if (entity.entity === 'movement') touched.tables.add('visit');
    touched.entities.set(entity.entity, (touched.entities.get(entity.entity) ?? 0) + 1);
    if (typeof stored.yardId === 'string') touched.yards.add(stored.yardId);
    if (entity.entity === 'yard_task') {
      if (stored.status === 'QUEUED' && typeof stored.yardId === 'string')
        touched.queuedYards.add(stored.yardId);
      if (typeof stored.driverId === 'string') touched.drivers.add(stored.driverId);
    }
    for (const p of forwarded) touched.forwardedTo.add(p);
  }

  /** After commit: caches, live updates, forwarded rows announced, auto-dispatch at the edge. */
  private afterCommit(peer: string, touched: Touched): void {
    for (const table of touched.tables) this.core.changes.generations.bump(table);
    if (touched.forwardedTo.size > 0) this.core.changes.notifyLogged(touched.forwardedTo);
    if (touched.applied === 0) return;
    const entities = Object.fromEntries(touched.entities);
    const yardIds = [...touched.yards];
    for (const yardId of yardIds) {
      this.core.bus.publish({ type: 'sync.applied', yardId, data: { peer, yardIds: [yardId], entities } });
    }
    // Org-wide records (and watchers of every yard) get one event without a yard.
    this.core.bus.publish({ type: 'sync.applied', yardId: null, data: { peer, yardIds, entities } });
    for (const driverId of touched.drivers) {
      this.core.bus.publish({ type: 'sync.applied', driverId, data: { peer, entities: { yard_task: 1 } } });
    }
    if (this.core.config.role === 'edge') {
      for (const yardId of touched.queuedYards) {
        this.core.services.tasks.dispatch(yardId).catch((err: unknown) => {
          this.core.log.error({ err, yardId }, 'auto-dispatch after applying synced tasks failed');
        });
      }
    }
  }

  private deadLetter(peer: string, row: Received, error: string): void {
    const payload: DeadLetterPayload = { op: row.op, hlc: row.hlc, data: row.data };
    this.sql
      .statement(
        'dead|put',
        () =>
          'INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(peer, row.seq, row.entity, row.id, error, JSON.stringify(payload), this.core.clock.now());
    this.core.log.warn(
      { peer, seq: row.seq, entity: row.entity, id: row.id, error },
      'sync row dead-lettered',
    );
  }

  private receiveHlc(hlc: string): void {
    this.core.hlc.receive(hlc);
  }

  private hasPending(peer: string): boolean {
    return (
      this.sql
        .statement('pending|any', () => 'SELECT 1 FROM sync_pending WHERE peer = ? LIMIT 1')
        .get(peer) !== undefined
    );
  }

  private writeCursor(peer: string, stream: string, position: number): void {
    this.sql
      .statement(
        'cursor|put',
        () =>
          'INSERT INTO sync_cursor (peer, applied_remote_seq, remote_stream, applied_at) VALUES (?, ?, ?, ?) ' +
          'ON CONFLICT (peer) DO UPDATE SET applied_remote_seq = excluded.applied_remote_seq, ' +
          'remote_stream = excluded.remote_stream, applied_at = excluded.applied_at',
      )
      .run(peer, position, stream, this.core.clock.now());
  }

  private assertIdle(): void {
    if (this.sqlite.inTransaction) throw new BusyError();
  }
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

function toChange(letter: { seq: number; entity: string; entity_id: string; data: string }): Received {
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

function withoutDerived(row: Record<string, unknown>): Record<string, unknown> {
  if (!('apiJson' in row)) return row;
  const { apiJson: _, ...rest } = row;
  return rest;
}
