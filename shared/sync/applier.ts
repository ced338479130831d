import type Database from 'better-sqlite3';
import { sqliteOf } from '../db/database.js';
import { SCHEMA_VERSION } from '../db/migrate.js';
import { SqliteWork, type SqlWork, sqlRow, sqlRun, statement } from '../db/sql-work.js';
import { type AdoptionPlan, planAdoption } from './adoption.js';
import { Backlog } from './apply-backlog.js';
import { type Received, RowApplier } from './apply-rows.js';
import { RowRules } from './apply-rules.js';
import { InsertRuns } from './apply-runs.js';
import type { SyncDeps } from './deps.js';
import type { Batch } from './protocol.js';
import { type Routing, type RoutingWork, routingWork } from './routing.js';
import { forUpdate, RowSql } from './row-sql.js';
import { SiteTrust } from './site-trust.js';
import { publishTouched, Touched } from './touched.js';

export type { DeadLetterPayload } from './apply-rows.js';

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

export type ApplierDeps = Pick<SyncDeps, 'db' | 'clock' | 'log' | 'hlc' | 'changes' | 'bus' | 'syncSide'>;

export interface ApplierOptions {
  /** Our schema version. An option only so tests can play an upgraded program (applyPending). */
  schemaVersion?: number;
  /** The hub's routing (default: the side's). */
  routing?: Routing | RoutingWork;
}

/** A Kysely (async) transaction is open on the connection: apply again shortly. */
export class BusyError extends Error {
  constructor() {
    super('A transaction is open on the database; apply the batch again shortly.');
    this.name = 'BusyError';
  }
}

/**
 * The applier's work, written once for both databases as SqlWork (shared/db/sql-work.ts): each
 * method is the whole of one transaction's work. ChangeApplier drives it synchronously on SQLite,
 * PostgresChangeApplier (applier-postgres.ts) awaits it on PostgreSQL. Touched (per peer) is filled
 * as rows apply; the driver publishes it after commit (publishTouched).
 */
export class ApplyWork {
  private readonly rows: RowApplier;
  private readonly backlog: Backlog;
  private readonly schemaVersion: number;

  constructor(
    private readonly deps: ApplierDeps,
    options: ApplierOptions = {},
  ) {
    const side = deps.syncSide;
    const sql = new RowSql();
    // Observers of row writes (the modules' derived rules and read models) see applied rows too.
    const observers = deps.changes.observers;
    const rules = new RowRules(sql, side.finalFrom, observers);
    const given = options.routing;
    const routing: RoutingWork =
      given === undefined ? side.routingWork : 'invalidate' in given ? routingWork(given) : given;
    // The hub checks what each site may write and forwards its rows to the others that need them.
    const hub = side.hub ? { trust: new SiteTrust(sql, routing), routing } : undefined;
    this.rows = new RowApplier(deps, rules, hub, new InsertRuns(deps, rules, sql, hub?.trust));
    this.schemaVersion = options.schemaVersion ?? SCHEMA_VERSION;
    this.backlog = new Backlog(this.rows, deps.clock, this.schemaVersion);
  }

  /**
   * Several batches of one peer, in order. The peer's cursor row is read first and locked (FOR
   * UPDATE on PostgreSQL): two cloud nodes given batches of the same site apply them one at a time,
   * the second seeing the first's position.
   */
  *applyBatches(peer: string, batches: readonly Batch[], touched: Touched): SqlWork<ApplyOutcome[]> {
    yield* sqlRun(CURSOR_ENSURE, [peer]);
    const outcomes: ApplyOutcome[] = [];
    // Each batch inline (not a method: one level of yield* less for every statement below).
    for (const batch of batches) {
      const outcome: ApplyOutcome = {
        upTo: 0,
        applied: 0,
        duplicates: 0,
        deadLetters: 0,
        pending: 0,
        gap: false,
        streamReset: false,
      };
      outcomes.push(outcome);
      const cursor = (yield* sqlRow(CURSOR_GET, [peer])) as
        | { position: number; stream: string | null }
        | undefined;
      let position = Number(cursor?.position ?? 0);
      if (cursor?.stream !== batch.stream) {
        if (cursor?.stream || position > 0) {
          this.deps.log.warn(
            { peer, previous: cursor?.stream ?? null, stream: batch.stream, position },
            'sync peer has a new change stream (replaced or restored database): its applied position restarts at 0',
          );
          outcome.streamReset = true;
        }
        position = 0;
        yield* this.writeCursor(peer, batch.stream, 0);
      }
      outcome.upTo = position;
      if (batch.from > position + 1) {
        outcome.gap = true;
        continue;
      }
      const fresh: Received[] = [];
      for (const row of batch.rows) {
        if (row.seq <= position) outcome.duplicates += 1;
        else fresh.push(row);
      }
      fresh.sort((a, b) => a.seq - b.seq);
      const newPosition = Math.max(position, batch.to, fresh.at(-1)?.seq ?? 0);

      if (
        fresh.length > 0 &&
        (batch.schemaV > this.schemaVersion || (yield* this.backlog.hasPending(peer)))
      ) {
        // A newer schema than ours (or older rows of this peer still parked): keep them, in order.
        // receive() ignores a clock too far ahead; the row is refused when it is applied.
        for (const row of fresh) this.deps.hlc.receive(row.hlc);
        yield* this.backlog.park(peer, batch.schemaV, fresh);
        outcome.pending = fresh.length;
      } else {
        const { applied, dead } = yield* this.rows.applyRows(peer, fresh, touched);
        outcome.applied = applied;
        outcome.deadLetters = dead;
      }
      yield* this.writeCursor(peer, batch.stream, newPosition);
      outcome.upTo = newPosition;
    }
    yield* this.rows.writeForwards(touched);
    return outcomes;
  }

  *retryDeadLetters(
    filter: { peer?: string; ids?: number[] },
    byPeer: Map<string, Touched>,
  ): SqlWork<{ retried: number; applied: number }> {
    const result = yield* this.backlog.retryDeadLetters(filter, byPeer);
    for (const touched of byPeer.values()) yield* this.rows.writeForwards(touched);
    return result;
  }

  *adoptDeadLetters(
    peer: string,
    ids: readonly number[],
    byPeer: Map<string, Touched>,
  ): SqlWork<{ adopted: number; applied: number }> {
    const result = yield* this.backlog.adopt(peer, ids, byPeer);
    for (const touched of byPeer.values()) yield* this.rows.writeForwards(touched);
    return result;
  }

  /** What an adoption of the site's refused master data would take, per row (adoption.ts). */
  *previewAdoption(peer: string): SqlWork<AdoptionPlan> {
    return yield* planAdoption(peer);
  }

  *applyPending(byPeer: Map<string, Touched>): SqlWork<number> {
    const count = yield* this.backlog.applyPending(byPeer);
    for (const touched of byPeer.values()) yield* this.rows.writeForwards(touched);
    return count;
  }

  *writeCursor(peer: string, stream: string, position: number): SqlWork<void> {
    yield* sqlRun(CURSOR_PUT, [peer, position, stream, this.deps.clock.now()]);
  }
}

/** The peer's cursor row exists before it is locked (a first batch has nothing to lock). */
const CURSOR_ENSURE = statement(
  'cursor|ensure',
  'changes',
  'INSERT INTO sync_cursor (peer) VALUES (?) ON CONFLICT (peer) DO NOTHING',
);

const CURSOR_GET = statement(
  'cursor|get',
  'row',
  (dialect) =>
    `SELECT applied_remote_seq AS position, remote_stream AS stream FROM sync_cursor WHERE peer = ?${forUpdate(dialect)}`,
);

const CURSOR_PUT = statement(
  'cursor|put',
  'changes',
  'INSERT INTO sync_cursor (peer, applied_remote_seq, remote_stream, applied_at) VALUES (?, ?, ?, ?) ' +
    'ON CONFLICT (peer) DO UPDATE SET applied_remote_seq = excluded.applied_remote_seq, ' +
    'remote_stream = excluded.remote_stream, applied_at = excluded.applied_at',
);

/**
 * Applies a peer's change batches to the local SQLite database (docs/sync.md "Apply, ack, resume"):
 * one better-sqlite3 transaction per call, rows in seq order, duplicates skipped by the peer's
 * applied position, gaps refused, a failing row alone to dead_letter (apply-rows.ts), rows of a
 * newer schema parked in sync_pending. Conflict rules: apply-rules.ts. The work is ApplyWork's,
 * shared with PostgreSQL; here it is driven synchronously (SqliteWork).
 *
 * Synchronous on purpose: statements prepared once, no Kysely, no awaits, so a week of an edge's
 * changes applies at tens of thousands of rows per second and nothing can interleave with a batch.
 */
export class ChangeApplier {
  private readonly work: ApplyWork;
  private readonly driver: SqliteWork;
  private readonly sqlite: Database.Database;

  constructor(
    private readonly deps: ApplierDeps,
    options: ApplierOptions = {},
  ) {
    this.sqlite = sqliteOf(deps.db, 'the sync applier');
    this.driver = new SqliteWork(this.sqlite);
    this.work = new ApplyWork(deps, options);
  }

  /** Synchronous: one transaction. Throws BusyError while an async (Kysely) transaction is open. */
  apply(peer: string, batch: Batch): ApplyOutcome {
    return this.applyMany(peer, [batch])[0]!;
  }

  /**
   * Several batches of one peer, in order, in one transaction (one commit, so one disk flush, for a
   * backlog that arrived together). The outcomes are as if each had been applied alone; ack the last.
   */
  applyMany(peer: string, batches: readonly Batch[]): ApplyOutcome[] {
    const touched = new Touched();
    const outcomes = this.inTransaction(() => this.work.applyBatches(peer, batches, touched));
    publishTouched(this.deps, peer, touched);
    return outcomes;
  }

  /**
   * Re-applies dead letters (all, or those of one peer / ids), in their order, until a pass applies
   * no more. The ones that now apply are removed, and so are those a newer change of the same row
   * has replaced meanwhile (`applied` counts both); the others keep their letter with the new error.
   */
  retryDeadLetters(filter: { peer?: string; ids?: number[] } = {}): { retried: number; applied: number } {
    const byPeer = new Map<string, Touched>();
    const result = this.inTransaction(() => this.work.retryDeadLetters(filter, byPeer));
    for (const [peer, touched] of byPeer) publishTouched(this.deps, peer, touched);
    return result;
  }

  /** At the cloud: an admin adopts a formerly standalone edge's master data (Backlog.adopt). */
  adoptDeadLetters(peer: string, ids: readonly number[]): { adopted: number; applied: number } {
    const byPeer = new Map<string, Touched>();
    const result = this.inTransaction(() => this.work.adoptDeadLetters(peer, ids, byPeer));
    for (const [p, touched] of byPeer) publishTouched(this.deps, p, touched);
    return result;
  }

  /** What adopting the site's refused master data would take (nothing is written). */
  previewAdoption(peer: string): AdoptionPlan {
    return this.inTransaction(() => this.work.previewAdoption(peer));
  }

  /**
   * Applies sync_pending rows whose schema_v <= our schema version (after an upgrade), per peer in
   * order; a row still too new holds back the peer's later rows. Returns how many left the table.
   */
  applyPending(): number {
    const byPeer = new Map<string, Touched>();
    const count = this.inTransaction(() => this.work.applyPending(byPeer));
    for (const [peer, touched] of byPeer) publishTouched(this.deps, peer, touched);
    return count;
  }

  /** Sets the peer's applied position (resync: the snapshot starts at resumeFrom). */
  resetPosition(peer: string, stream: string, appliedUpTo: number): void {
    this.assertIdle();
    this.driver.run(this.work.writeCursor(peer, stream, appliedUpTo));
  }

  private inTransaction<T>(work: () => SqlWork<T>): T {
    this.assertIdle();
    return this.sqlite.transaction(() => this.driver.run(work())).immediate();
  }

  private assertIdle(): void {
    if (this.sqlite.inTransaction) throw new BusyError();
  }
}
