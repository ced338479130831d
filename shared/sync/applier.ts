import type Database from 'better-sqlite3';
import { sqliteOf } from '../db/database.js';
import { SqliteWork, type SqlWork } from '../db/sql-work.js';
import type { AdoptionPlan } from './adoption.js';
import { type ApplyOutcome, SlicedApply } from './apply-slices.js';
import { type ApplierDeps, type ApplierOptions, ApplyWork } from './apply-work.js';
import type { Batch } from './protocol.js';
import { publishTouched, Touched } from './touched.js';

export type { ApplyOutcome } from './apply-slices.js';
export type { DeadLetterPayload } from './row-change.js';

/** A Kysely (async) transaction is open on the connection: apply again shortly. */
export class BusyError extends Error {
  constructor() {
    super('A transaction is open on the database; apply the batch again shortly.');
    this.name = 'BusyError';
  }
}

/**
 * Applies a peer's change batches to the local SQLite database (docs/sync.md "Apply, ack, resume"):
 * one better-sqlite3 transaction per call (or per slice: `sliced`), rows in seq order, duplicates
 * skipped by the peer's applied position, gaps refused, a failing row alone to dead_letter
 * (apply-rows.ts), rows of a newer schema parked in sync_pending. Conflict rules: apply-rules.ts.
 * The work is ApplyWork's (apply-work.ts), shared with PostgreSQL; here it is driven synchronously
 * (SqliteWork).
 *
 * Synchronous on purpose: statements prepared once, no Kysely, no awaits, so a week of an edge's
 * changes applies at tens of thousands of rows per second and nothing can interleave with a
 * transaction. The link applies in slices (ExclusiveChangeApplier) so that others get their turn.
 */
export class ChangeApplier {
  private readonly work: ApplyWork;
  private readonly driver: SqliteWork;
  private readonly sqlite: Database.Database;

  constructor(
    private readonly deps: ApplierDeps,
    private readonly options: ApplierOptions = {},
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
   * The same batches as applyMany, as several transactions of about SLICE_MS each (apply-slices.ts):
   * the caller runs `step()` until it answers true, letting others use the event loop and the
   * connection in between, then `publish()`.
   */
  sliced(peer: string, batches: readonly Batch[]): SlicedApply {
    return new SlicedApply(
      this.deps,
      peer,
      batches,
      (state, touched, more) => this.inTransaction(() => this.work.applySlice(peer, state, touched, more)),
      this.options.slice,
    );
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
