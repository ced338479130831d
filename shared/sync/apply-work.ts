import { SCHEMA_VERSION } from '../db/migrate.js';
import { type SqlWork, sqlRow, sqlRun, statement } from '../db/sql-work.js';
import { type AdoptionPlan, planAdoption } from './adoption.js';
import { Backlog } from './apply-backlog.js';
import { RowApplier } from './apply-rows.js';
import { RowRules } from './apply-rules.js';
import { InsertRuns } from './apply-runs.js';
import {
  type ApplyOutcome,
  newOutcome,
  SLICE_STEP,
  type SliceBudget,
  SliceRedo,
  type SliceState,
} from './apply-slices.js';
import type { SyncDeps } from './deps.js';
import type { Batch } from './protocol.js';
import { type Routing, type RoutingWork, routingWork } from './routing.js';
import type { Received } from './row-change.js';
import { forUpdate, RowSql } from './row-sql.js';
import { SiteTrust } from './site-trust.js';
import type { Touched } from './touched.js';

export type ApplierDeps = Pick<SyncDeps, 'db' | 'clock' | 'log' | 'hlc' | 'changes' | 'bus' | 'syncSide'>;

export interface ApplierOptions {
  /** Our schema version. An option only so tests can play an upgraded program (applyPending). */
  schemaVersion?: number;
  /** The hub's routing (default: the side's). */
  routing?: Routing | RoutingWork;
  /** When a slice of a group applied in slices ends (SQLite; default: after SLICE_MS). */
  slice?: SliceBudget;
}

/**
 * The applier's work, written once for both databases as SqlWork (shared/db/sql-work.ts): each
 * method is the whole of one transaction's work. ChangeApplier (applier.ts) drives it synchronously
 * on SQLite, PostgresChangeApplier (applier-postgres.ts) awaits it on PostgreSQL. Touched (per peer) is filled
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
    for (const batch of batches) {
      const outcome = newOutcome();
      outcomes.push(outcome);
      const plan = yield* this.beginBatch(peer, batch, outcome);
      if (!plan) continue;
      if (plan.fresh.length > 0) {
        const { applied, dead } = yield* this.rows.applyRows(peer, plan.fresh, touched);
        outcome.applied = applied;
        outcome.deadLetters = dead;
      }
      yield* this.writeCursor(peer, batch.stream, plan.newPosition);
      outcome.upTo = plan.newPosition;
    }
    yield* this.rows.writeForwards(touched);
    return outcomes;
  }

  /**
   * One slice of a group (SlicedApply, apply-slices.ts), the whole of one transaction's work: rows
   * of the group from where `state` stands, whole steps of SLICE_STEP rows, until `more` says
   * enough (asked after each step, so a slice makes progress), then the cursor at the last row
   * applied and the rows forwarded meanwhile. True when the group is done.
   */
  *applySlice(
    peer: string,
    state: SliceState,
    touched: Touched,
    more: (rows: number) => boolean,
  ): SqlWork<boolean> {
    if (state.next === 0) yield* sqlRun(CURSOR_ENSURE, [peer]);
    let taken = 0;
    for (;;) {
      if (!state.open) {
        const batch = state.batches[state.next];
        if (!batch) break;
        state.next += 1;
        const outcome = newOutcome();
        state.outcomes.push(outcome);
        const plan = yield* this.beginBatch(peer, batch, outcome);
        if (!plan) continue;
        state.open = { stream: batch.stream, ...plan, offset: 0 };
      }
      const open = state.open;
      const outcome = state.outcomes.at(-1)!;
      const whole = state.whole;
      const end = whole ? open.fresh.length : Math.min(open.fresh.length, open.offset + SLICE_STEP);
      if (end > open.offset) {
        const { applied, dead } = yield* this.rows.applyRows(
          peer,
          open.fresh.slice(open.offset, end),
          touched,
        );
        outcome.applied += applied;
        outcome.deadLetters += dead;
        // A row that failed on a reference may have waited for a later row of its batch
        // (RowApplier.applyRows): the slice is undone and the batch's rest applied in one piece.
        if (dead > 0 && end < open.fresh.length) throw new SliceRedo();
        taken += end - open.offset;
        open.offset = end;
      }
      if (end === open.fresh.length) {
        yield* this.writeCursor(peer, open.stream, open.newPosition);
        outcome.upTo = open.newPosition;
        state.open = undefined;
        state.whole = false;
      }
      // A batch redone whole ends its slice: the next batch starts in steps again.
      if (whole || !more(taken)) break;
    }
    const open = state.open;
    if (open) {
      // Mid-batch: the position after the last row applied (rows are applied in seq order).
      const at = open.fresh[open.offset - 1]!.seq;
      yield* this.writeCursor(peer, open.stream, at);
      state.outcomes.at(-1)!.upTo = at;
    }
    yield* this.rows.writeForwards(touched);
    return !open && state.next >= state.batches.length;
  }

  /**
   * A batch's start: the peer's cursor (locked on PostgreSQL), a new stream, a gap (undefined:
   * nothing to apply, nothing written), duplicates skipped, rows of a newer schema parked. The rows
   * to apply, in seq order, and the position after the batch.
   */
  private *beginBatch(
    peer: string,
    batch: Batch,
    outcome: ApplyOutcome,
  ): SqlWork<{ fresh: Received[]; newPosition: number } | undefined> {
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
      return undefined;
    }
    const fresh: Received[] = [];
    for (const row of batch.rows) {
      if (row.seq <= position) outcome.duplicates += 1;
      else fresh.push(row);
    }
    fresh.sort((a, b) => a.seq - b.seq);
    const newPosition = Math.max(position, batch.to, fresh.at(-1)?.seq ?? 0);
    if (fresh.length > 0 && (batch.schemaV > this.schemaVersion || (yield* this.backlog.hasPending(peer)))) {
      // A newer schema than ours (or older rows of this peer still parked): keep them, in order.
      // receive() ignores a clock too far ahead; the row is refused when it is applied.
      for (const row of fresh) this.deps.hlc.receive(row.hlc);
      yield* this.backlog.park(peer, batch.schemaV, fresh);
      outcome.pending = fresh.length;
      return { fresh: [], newPosition };
    }
    return { fresh, newPosition };
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
export const CURSOR_ENSURE = statement(
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
