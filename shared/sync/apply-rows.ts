import { inSavepoint, type SqlWork, sqlRun, statement } from '../db/sql-work.js';
import type { RowRules } from './apply-rules.js';
import type { InsertRuns } from './apply-runs.js';
import { assertClockWithinSkew } from './clock-bounds.js';
import { type CounterAdds, CounterSums } from './counter-adds.js';
import type { SyncDeps } from './deps.js';
import { routeForward, writeForwardedRows } from './forward-rows.js';
import type { RoutingWork } from './routing.js';
import type { DeadLetterPayload, Received, RowChange, RowEffect, StoredRow } from './row-change.js';
import { isRowError, rowFailure } from './row-errors.js';
import type { SiteTrust } from './site-trust.js';
import type { Forward, Touched } from './touched.js';

/** At the cloud: the check of what a site may write, and the routing of rows on to other sites. */
export interface SiteRelay {
  trust: SiteTrust;
  routing: RoutingWork;
}

type Attempt = { ok: true; changed: boolean } | { ok: false; foreignKey: boolean; error: string };
type Done = { row: RowChange; effect: RowEffect; forward: Forward | undefined };

/**
 * Rows per group savepoint. Rows nearly always apply, so a group shares one savepoint; a group in
 * which any row fails is rolled back and done again row by row, each row in its own savepoint.
 */
const GROUP = 64;

/**
 * Applies received rows inside the caller's transaction, as SqlWork (either database): rules
 * (apply-rules.ts), dead letters, and at the cloud the forwarding of rows other sites need into
 * their change logs (forward-rows.ts).
 */
export class RowApplier {
  /** Counter additions of the rows applied so far (savepoints released), per transaction (Touched). */
  private readonly counters = new WeakMap<Touched, CounterSums>();

  constructor(
    private readonly deps: Pick<SyncDeps, 'clock' | 'log' | 'hlc'>,
    private readonly rules: RowRules,
    /** The hub's part (SyncSide.hub): none at an edge (it trusts its cloud and forwards nothing). */
    private readonly hub?: SiteRelay,
    /** Runs of insert-only rows applied in one statement each (apply-runs.ts). */
    private readonly runs?: InsertRuns,
  ) {}

  /**
   * Applies rows in seq order. A row that fails on a foreign key is tried again after the others
   * (its reference may come later in the batch: a movement and its gate actuation name each other),
   * until a pass applies nothing more; what still fails goes to dead_letter. Other failures go to
   * dead_letter at once. One bad row never holds back the rest.
   */
  *applyRows(
    peer: string,
    rows: readonly Received[],
    touched: Touched,
  ): SqlWork<{ applied: number; dead: number }> {
    let applied = 0;
    let dead = 0;
    let deferred: Array<{ row: Received; error: string }> = [];
    /** Once something was deferred: last seq applied per record (an older deferred change is stale). */
    const lastApplied = new Map<string, number>();
    const done = (row: Received, changed: boolean) => {
      if (changed) applied += 1;
      if (deferred.length > 0) lastApplied.set(`${row.entity}|${row.id}`, row.seq);
    };
    const self = this;
    function* one(row: Received): SqlWork<Attempt> {
      const outcome = yield* self.tryRow(peer, row, touched, false);
      if (outcome.ok) done(row, outcome.changed);
      return outcome;
    }
    for (let i = 0; i < rows.length; i += GROUP) {
      const group = rows.slice(i, i + GROUP);
      // The group in one savepoint (inline, not a method: one level of yield* less per statement);
      // undefined, and nothing written, if any row failed.
      let results: Done[] | undefined;
      const sums = new CounterSums();
      try {
        results = yield* inSavepoint(() => this.applyGroup(peer, group, sums));
      } catch (err) {
        if (!isRowError(err)) throw err;
      }
      if (results) {
        this.countersOf(touched).absorb(sums);
        for (const [k, r] of results.entries()) {
          if (r.effect.changed) this.record(touched, r.effect, r.forward);
          done(group[k]!, r.effect.changed);
        }
        continue;
      }
      for (const row of group) {
        const outcome = yield* one(row);
        if (outcome.ok) continue;
        if (outcome.foreignKey) deferred.push({ row, error: outcome.error });
        else {
          yield* this.deadLetter(peer, row, outcome.error, touched);
          dead += 1;
        }
      }
    }
    for (let progress = deferred.length > 0; progress; ) {
      progress = false;
      const again: typeof deferred = [];
      for (const entry of deferred) {
        if ((lastApplied.get(`${entry.row.entity}|${entry.row.id}`) ?? 0) > entry.row.seq) continue;
        const outcome = yield* one(entry.row);
        if (outcome.ok) progress = true;
        else again.push({ row: entry.row, error: outcome.error });
      }
      deferred = again;
    }
    for (const { row, error } of deferred) {
      yield* this.deadLetter(peer, row, error, touched);
      dead += 1;
    }
    return { applied, dead };
  }

  /**
   * Writes the rows forwarded by the changes applied so far (their savepoints released) into the
   * other sites' change logs, in the order applied. Called once at the end of the transaction's
   * work: on PostgreSQL an append to change_log holds a lock until commit (seq order = commit order
   * for the outbox), which must be held as briefly as possible. The observers' counter additions
   * summed meanwhile are written first (counter-adds.ts), so the counters' row locks too are held
   * only from here to the commit, and taken before the change log's lock, never while holding it.
   */
  *writeForwards(touched: Touched): SqlWork<void> {
    const sums = this.counters.get(touched);
    if (sums) {
      this.counters.delete(touched);
      yield* sums.write();
    }
    yield* writeForwardedRows(touched.forwards);
    touched.forwards.length = 0;
  }

  /**
   * One row in its own savepoint: all of its writes (forwarded log rows included) or none.
   * `retry`: a dead letter applied again (a newer change of the row may have replaced it).
   */
  *tryRow(peer: string, row: RowChange, touched: Touched, retry: boolean, adopt = false): SqlWork<Attempt> {
    try {
      const sums = new CounterSums();
      const { effect, forward } = yield* inSavepoint(() => this.applyOne(peer, row, retry, adopt, sums));
      this.countersOf(touched).absorb(sums);
      if (effect.changed) this.record(touched, effect, forward);
      return { ok: true, changed: effect.changed || effect.superseded === true };
    } catch (err) {
      if (!isRowError(err)) throw err;
      return { ok: false, ...rowFailure(err) };
    }
  }

  *deadLetter(peer: string, row: Received, error: string, touched: Touched): SqlWork<void> {
    const payload: DeadLetterPayload = { op: row.op, hlc: row.hlc, data: row.data };
    yield* sqlRun(DEAD_LETTER_PUT, [
      peer,
      row.seq,
      row.entity,
      row.id,
      error,
      JSON.stringify(payload),
      this.deps.clock.now(),
    ]);
    touched.deadLetters.note(row, error);
  }

  /**
   * The group's rows in order; runs of insert-only rows in one statement each, the other rows' stored
   * rows read together first (apply-runs.ts); counter additions summed into `sums`.
   */
  private *applyGroup(peer: string, group: readonly Received[], sums: CounterAdds): SqlWork<Done[]> {
    const done: Done[] = [];
    const stored = this.runs
      ? yield* this.runs.prefetch(group, (table) => this.rules.writtenBeside(table))
      : undefined;
    for (let i = 0; i < group.length; ) {
      const run = this.runs ? yield* this.runs.runAt(group, i) : undefined;
      if (!run) {
        done.push(yield* this.applyOne(peer, group[i]!, false, false, sums, stored?.get(i)));
        i += 1;
        continue;
      }
      for (const { row, effect } of yield* this.runs!.apply(peer, run)) {
        const forward =
          effect.changed && this.hub ? yield* routeForward(this.hub.routing, peer, row, effect) : undefined;
        done.push({ row, effect, forward });
      }
      i += run.rows.length;
    }
    return done;
  }

  /**
   * `adopt`: an admin took this row of a formerly standalone edge as the cloud's own (Backlog.adopt):
   * it skips the site trust check and is inserted if absent, as the rules do for a non-owner's row.
   */
  private *applyOne(
    peer: string,
    row: RowChange,
    retry: boolean,
    adopt: boolean,
    counters: CounterAdds,
    known?: StoredRow,
  ): SqlWork<Done> {
    assertClockWithinSkew(this.deps.hlc, row); // clock-bounds.ts
    // At the cloud every row a site sends passes its trust check first (site-trust.ts).
    const admitted = this.hub && !adopt ? yield* this.hub.trust.admit(peer, row, known) : { change: row };
    const change = admitted.change;
    const effect = yield* this.rules.apply(change, { retry, stored: admitted.stored, counters });
    // Only a change that applied advances our clock (and records a peer running ahead).
    this.deps.hlc.receive(row.hlc);
    // At the cloud the other sites that need the row get it (forward-rows.ts).
    const forward =
      effect.changed && this.hub ? yield* routeForward(this.hub.routing, peer, change, effect) : undefined;
    return { row: change, effect, forward };
  }

  private countersOf(touched: Touched): CounterSums {
    let sums = this.counters.get(touched);
    if (!sums) {
      sums = new CounterSums();
      this.counters.set(touched, sums);
    }
    return sums;
  }

  private record(touched: Touched, effect: RowEffect, forward: Forward | undefined): void {
    const { entity, stored } = effect;
    if (!entity || !stored) return;
    touched.applied += 1;
    touched.tables.add(entity.table);
    // Tables the modules' derived rules wrote beside it, in the same savepoint (visits of movements).
    for (const table of this.rules.writtenBeside(entity.table)) touched.tables.add(table);
    touched.entities.set(entity.entity, (touched.entities.get(entity.entity) ?? 0) + 1);
    if (typeof stored.yardId === 'string') touched.yards.add(stored.yardId);
    if (entity.entity === 'yard_task') {
      if (stored.status === 'QUEUED' && typeof stored.yardId === 'string')
        touched.queuedYards.add(stored.yardId);
      if (typeof stored.driverId === 'string') touched.drivers.add(stored.driverId);
    }
    if (forward) {
      touched.forwards.push(forward);
      for (const p of forward.peers) touched.forwardedTo.add(p);
    }
    if (effect.announced) touched.afterCommit.push(...effect.announced);
  }
}

const DEAD_LETTER_PUT = statement(
  'dead|put',
  'changes',
  'INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
);
