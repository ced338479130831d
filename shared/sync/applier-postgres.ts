import { setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import type { PostgresDatabase } from '../db/database.js';
import { PostgresWork, type SqlWork } from '../db/sql-work.js';
import type { AdoptionPlan } from './adoption.js';
import { type ApplierDeps, type ApplierOptions, type ApplyOutcome, ApplyWork } from './applier.js';
import type { Batch } from './protocol.js';
import { publishTouched, Touched } from './touched.js';

/** Attempts of a transaction that PostgreSQL ended as a deadlock or serialization failure. */
const ATTEMPTS = 5;
/** Backoff before attempt n+1: up to n x this, jittered, so two nodes that collided spread out. */
const BACKOFF_MS = 20;
/** serialization_failure, deadlock_detected: the transaction did nothing; run it again. */
const RETRYABLE = new Set(['40001', '40P01']);

/**
 * Apply transactions run one at a time across the cloud's nodes (the key of a transaction-level
 * advisory lock, taken first). Every site's apply writes the same few rows: the all-yards dashboard
 * counts of the hour and the sites' queue counters (each trailer is forwarded to every site), held
 * until commit. Run side by side, 50 sites' applies queued on those rows, took them in different
 * orders and deadlocked: nothing was applied at all (test/bench/sync-ingest.ts). One at a time,
 * they never wait for each other's rows. The cost: a second node adds availability, not ingest
 * rate (docs/cloud.md says so). Taken before any row lock, so waiting for it holds nothing.
 */
const APPLY_LOCK_KEY = 0x79617070; // 'yapp'
const TAKE_APPLY_LOCK = CompiledQuery.raw(`SELECT pg_advisory_xact_lock(${APPLY_LOCK_KEY})`);

/**
 * The change applier on PostgreSQL (the cloud with several nodes): the same work as ChangeApplier
 * (ApplyWork, applier.ts), each call one Kysely transaction driven by PostgresWork. Batches of one
 * site may reach several nodes at once: the work locks the site's sync_cursor row first, so they
 * apply one at a time, in order; rows read and then written are read FOR UPDATE (row-sql.ts). A
 * transaction PostgreSQL ends as a deadlock or serialization failure is run again whole (a few
 * times, jittered); anything else that is not a row's fault (apply-rows.ts isRowError) propagates
 * and nothing is acknowledged.
 */
export class PostgresChangeApplier {
  private readonly work: ApplyWork;
  private readonly driver = new PostgresWork();
  /** This node's apply transactions, one after the other: one pool connection waits for the lock, not all. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: ApplierDeps & { db: PostgresDatabase },
    options: ApplierOptions = {},
  ) {
    this.work = new ApplyWork(deps, options);
  }

  async apply(peer: string, batch: Batch): Promise<ApplyOutcome> {
    return (await this.applyMany(peer, [batch]))[0]!;
  }

  /** Several batches of one peer, in order, in one transaction; ack the last. */
  async applyMany(peer: string, batches: readonly Batch[]): Promise<ApplyOutcome[]> {
    const { result, touched } = await this.inTransaction(() => {
      const t = new Touched();
      return { touched: t, work: this.work.applyBatches(peer, batches, t) };
    });
    publishTouched(this.deps, peer, touched);
    return result;
  }

  async retryDeadLetters(
    filter: { peer?: string; ids?: number[] } = {},
  ): Promise<{ retried: number; applied: number }> {
    const { result, touched } = await this.inTransaction(() => {
      const byPeer = new Map<string, Touched>();
      return { touched: byPeer, work: this.work.retryDeadLetters(filter, byPeer) };
    });
    for (const [peer, t] of touched) publishTouched(this.deps, peer, t);
    return result;
  }

  async adoptDeadLetters(
    peer: string,
    ids: readonly number[],
  ): Promise<{ adopted: number; applied: number }> {
    const { result, touched } = await this.inTransaction(() => {
      const byPeer = new Map<string, Touched>();
      return { touched: byPeer, work: this.work.adoptDeadLetters(peer, ids, byPeer) };
    });
    for (const [p, t] of touched) publishTouched(this.deps, p, t);
    return result;
  }

  async previewAdoption(peer: string): Promise<AdoptionPlan> {
    const { result } = await this.inTransaction(() => ({
      touched: undefined,
      work: this.work.previewAdoption(peer),
    }));
    return result;
  }

  async applyPending(): Promise<number> {
    const { result, touched } = await this.inTransaction(() => {
      const byPeer = new Map<string, Touched>();
      return { touched: byPeer, work: this.work.applyPending(byPeer) };
    });
    for (const [peer, t] of touched) publishTouched(this.deps, peer, t);
    return result;
  }

  async resetPosition(peer: string, stream: string, appliedUpTo: number): Promise<void> {
    await this.inTransaction(() => ({
      touched: undefined,
      work: this.work.writeCursor(peer, stream, appliedUpTo),
    }));
  }

  /**
   * Runs the work in a transaction, again from the start (fresh work and effects from `make`) when
   * PostgreSQL ends it as a deadlock or serialization failure.
   */
  private inTransaction<T, E>(
    make: () => { touched: E; work: SqlWork<T> },
  ): Promise<{ result: T; touched: E }> {
    const mine = this.turn.then(() => this.attempts(make));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async attempts<T, E>(
    make: () => { touched: E; work: SqlWork<T> },
  ): Promise<{ result: T; touched: E }> {
    for (let attempt = 1; ; attempt += 1) {
      const { touched, work } = make();
      try {
        const result = await this.deps.db.kysely.transaction().execute(async (trx) => {
          await trx.executeQuery(TAKE_APPLY_LOCK);
          return this.driver.run(trx, work);
        });
        return { result, touched };
      } catch (err) {
        if (attempt >= ATTEMPTS || !isRetryable(err)) throw err;
        this.deps.log.debug(
          { code: (err as pg.DatabaseError).code, attempt },
          'sync apply transaction ended by PostgreSQL (deadlock or serialization): running it again',
        );
        await sleep(Math.random() * BACKOFF_MS * attempt);
      }
    }
  }
}

function isRetryable(err: unknown): boolean {
  return err instanceof pg.DatabaseError && RETRYABLE.has(err.code ?? '');
}
