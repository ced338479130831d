import type { SyncDeps } from './deps.js';
import type { Batch } from './protocol.js';
import type { Received } from './row-change.js';
import { publishTouched, Touched } from './touched.js';

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

export function newOutcome(): ApplyOutcome {
  return { upTo: 0, applied: 0, duplicates: 0, deadLetters: 0, pending: 0, gap: false, streamReset: false };
}

/**
 * Rows a slice applies at a time, between its looks at the clock: the savepoint group of
 * RowApplier.applyRows, so a sliced batch is applied in the same savepoints and runs as a whole one.
 */
export const SLICE_STEP = 64;

/**
 * How long one slice may hold the event loop and the connection before it commits and lets others
 * in (checked after each step, so a slice overruns by at most one step). Each slice is one commit,
 * so one disk flush with synchronous=FULL: smaller slices answer others sooner and apply fewer rows
 * a second (test/bench/sync-drain-answers.ts).
 */
export const SLICE_MS = 10;

/** When a slice ends: after `ms`, or (tests) after `rows` rows. */
export interface SliceBudget {
  ms?: number;
  rows?: number;
}

/** Where a group applied in slices stands between its transactions (ApplyWork.applySlice). */
export interface SliceState {
  readonly batches: readonly Batch[];
  /** One per batch begun, in order. */
  outcomes: ApplyOutcome[];
  /** The next batch to begin. */
  next: number;
  /** The batch begun and not finished (its outcome is the last): rows from `offset` still to apply. */
  open: { stream: string; fresh: Received[]; newPosition: number; offset: number } | undefined;
  /** The open batch's rest in one piece (after a SliceRedo). */
  whole: boolean;
}

/**
 * Thrown by a slice that dead-lettered a row before the rest of its batch was seen (a row failing
 * on a reference waits for the rest of its batch, RowApplier.applyRows): the slice's transaction
 * is rolled back and done again with the batch's rest in one piece, as a whole batch would be.
 */
export class SliceRedo extends Error {
  constructor() {
    super('a row failed before the rest of its batch was applied: the slice is redone with all of it');
    this.name = 'SliceRedo';
  }
}

/**
 * A group of one peer's batches applied as several transactions (slices) instead of one, so that a
 * long apply does not hold the event loop and the database for its whole length
 * (docs/sync.md "Apply, ack, resume"): each slice commits the rows it applied and the peer's
 * cursor at the last of them, so a failure or a crash between slices keeps them and the resent
 * batches skip them as duplicates. The caller runs `step()` until it answers true, letting others
 * in between (ExclusiveChangeApplier), and acknowledges the position after the whole group.
 *
 * Effects: after each slice's commit, the caches of the tables it wrote, the links of the sites it
 * forwarded rows to, the observers' after-commit events and its dead letters' log line; the
 * `sync.applied` events (which make the dashboards read again) once for the group, by `publish()`,
 * also after a failure for what the committed slices applied.
 */
export class SlicedApply {
  private readonly state: SliceState;
  /** What the committed slices applied, for the group's `sync.applied` events. */
  private readonly applied = new Touched();
  private published = false;

  constructor(
    private readonly deps: Pick<SyncDeps, 'changes' | 'bus' | 'log'>,
    private readonly peer: string,
    batches: readonly Batch[],
    /** Runs one slice as one transaction (rolled back if it throws): true when the group is done. */
    private readonly runSlice: (
      state: SliceState,
      touched: Touched,
      more: (rows: number) => boolean,
    ) => boolean,
    private readonly budget: SliceBudget = {},
  ) {
    this.state = { batches, outcomes: [], next: 0, open: undefined, whole: false };
  }

  /** The outcomes as if each batch had been applied alone; complete once `step()` answered true. */
  get outcomes(): ApplyOutcome[] {
    return this.state.outcomes;
  }

  /** One slice (one transaction, synchronous): true when the group is done. */
  step(): boolean {
    const before = copy(this.state);
    const ms = this.budget.ms ?? SLICE_MS;
    const rows = this.budget.rows ?? Number.POSITIVE_INFINITY;
    for (;;) {
      const deadline = performance.now() + ms;
      const touched = new Touched();
      let done: boolean;
      try {
        done = this.runSlice(this.state, touched, (n) => n < rows && performance.now() < deadline);
      } catch (err) {
        // The transaction was rolled back: so is where the group stands.
        Object.assign(this.state, copy(before));
        if (!(err instanceof SliceRedo)) throw err;
        this.state.whole = true;
        continue;
      }
      this.committed(touched);
      return done;
    }
  }

  /** The group's `sync.applied` events (once; after the last slice, or after a failed one). */
  publish(): void {
    if (this.published) return;
    this.published = true;
    publishTouched(this.deps, this.peer, this.applied);
  }

  /** A slice's own effects now; what it applied kept for the group's events. */
  private committed(touched: Touched): void {
    const group = this.applied;
    group.applied += touched.applied;
    for (const yard of touched.yards) group.yards.add(yard);
    for (const yard of touched.queuedYards) group.queuedYards.add(yard);
    for (const driver of touched.drivers) group.drivers.add(driver);
    for (const [entity, n] of touched.entities)
      group.entities.set(entity, (group.entities.get(entity) ?? 0) + n);
    // publishTouched publishes the events only when something was applied: here, not yet.
    touched.applied = 0;
    publishTouched(this.deps, this.peer, touched);
  }
}

function copy(state: SliceState): SliceState {
  return {
    ...state,
    outcomes: state.outcomes.map((o) => ({ ...o })),
    open: state.open && { ...state.open },
  };
}
