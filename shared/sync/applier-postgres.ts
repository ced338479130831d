import { setTimeout as sleep } from 'node:timers/promises';
import type { PostgresDatabase } from '../db/database.js';
import { postgresErrorCode } from '../db/postgres-errors.js';
import { PostgresWork, type SqlWork, sqlRun } from '../db/sql-work.js';
import type { AdoptionPlan } from './adoption.js';
import type { ApplyOutcome } from './apply-slices.js';
import { type ApplierDeps, type ApplierOptions, ApplyWork, CURSOR_ENSURE } from './apply-work.js';
import type { Batch } from './protocol.js';
import { publishTouched, Touched } from './touched.js';

/**
 * Attempts of a transaction that PostgreSQL ended as a deadlock or serialization failure. Sites apply
 * side by side: the rows two of them share (a trailer both edit) are locked in key order within a
 * group (apply-runs.ts prefetch), counters at the end in key order (counter-adds.ts), but two groups
 * may still meet in the other order; the loser is run again, enough times that it never reaches the
 * sender as a failure under the load test/bench/sync-ingest.ts puts on it.
 */
const ATTEMPTS = 8;
/** Attempts of a site's apply beside other sites' before it is run alone (attempts()). */
const ALONE_AFTER = 2;
/** Backoff before attempt n+1: up to n x this, jittered, so two nodes that collided spread out. */
const BACKOFF_MS = 20;
/** serialization_failure, deadlock_detected: the transaction did nothing; run it again. */
const RETRYABLE = new Set(['40001', '40P01']);

/**
 * Applies of different sites run side by side, on every node, taking this transaction-level
 * advisory lock shared; what must not run beside them takes it exclusively: the work that spans
 * sites (dead letters retried or adopted, the parked backlog, an adoption preview), and an apply
 * that deadlocked twice. Taken first, before any row lock, so waiting for it holds nothing. What
 * side by side applies share is locked in one order or not at all: rows in key order, counters at
 * the end in key order (counter-adds.ts, migration 0024), the every-yard counts in shards
 * (rollups/rules.ts), and no row lock held while waiting for the change log's order lock that its
 * holder may want (ensureCursor).
 */
const APPLY_LOCK_KEY = 0x79617070; // 'yapp'
const TAKE_SITE_LOCK = `SELECT pg_advisory_xact_lock_shared(${APPLY_LOCK_KEY})`;
const TAKE_ALL_LOCK = `SELECT pg_advisory_xact_lock(${APPLY_LOCK_KEY})`;

/** Pool connections an applier leaves to the node's other work (requests, senders, signals). */
const KEEP_FOR_OTHERS = 2;
/**
 * Applies at once per node, at most. The applies that forward rows end one at a time (the change
 * log's order lock, held from their forwards to their commit), and all share one event loop: with
 * 18 at once (a pool of 20), 50 sites' applies queued behind each other's locks past the statement
 * timeout, and the node's requests found no free connection (test/bench/sync-ingest.ts). A few at
 * once keep PostgreSQL busy while one commits.
 */
const MAX_CONCURRENT = 4;

export interface PostgresApplierOptions extends ApplierOptions {
  /**
   * Different sites' applies side by side (each still in order): the default. False runs them one
   * at a time across the nodes, as the cloud did before side by side stopped deadlocking (a new
   * site's cursor row committed before its apply: ensureCursor); kept for comparison in
   * test/bench/sync-ingest.ts.
   */
  sitesSideBySide?: boolean;
}

/**
 * The change applier on PostgreSQL (the cloud with several nodes): the same work as ChangeApplier
 * (ApplyWork, apply-work.ts), each call one Kysely transaction driven by PostgresWork. Batches of one
 * site may reach several nodes at once: the work locks the site's sync_cursor row first, so they
 * apply one at a time, in order; rows read and then written are read FOR UPDATE (row-sql.ts). A
 * transaction PostgreSQL ends as a deadlock or serialization failure is run again whole (a few
 * times, jittered); anything else that is not a row's fault (row-errors.ts isRowError) propagates
 * and nothing is acknowledged.
 */
export class PostgresChangeApplier {
  private readonly work: ApplyWork;
  private readonly driver = new PostgresWork();
  /** Each site's apply transactions at this node, one after the other (its batches in order). */
  private readonly turns = new Map<string, Promise<unknown>>();
  /** Transactions under way at this node, and those waiting for one to end (ApplierOptions.concurrency). */
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly sideBySide: boolean;
  /** Peers whose cursor row exists (ensureCursor). */
  private readonly cursors = new Set<string>();
  /** Transactions run again after a deadlock or serialization failure (logged with each retry). */
  retried = 0;

  constructor(
    private readonly deps: ApplierDeps & { db: PostgresDatabase },
    options: PostgresApplierOptions = {},
  ) {
    this.work = new ApplyWork(deps, options);
    this.sideBySide = options.sitesSideBySide !== false;
    // Never more than the pool's size less what the node's requests and senders need at once.
    this.concurrency = Math.max(
      1,
      Math.min(MAX_CONCURRENT, (deps.db.pool.options.max ?? 10) - KEEP_FOR_OTHERS),
    );
  }

  async apply(peer: string, batch: Batch): Promise<ApplyOutcome> {
    return (await this.applyMany(peer, [batch]))[0]!;
  }

  /** Several batches of one peer, in order, in one transaction; ack the last. */
  async applyMany(peer: string, batches: readonly Batch[]): Promise<ApplyOutcome[]> {
    await this.ensureCursor(peer);
    const { result, touched } = await this.inTransaction(peer, () => {
      const t = new Touched();
      return { touched: t, work: this.work.applyBatches(peer, batches, t) };
    });
    publishTouched(this.deps, peer, touched);
    return result;
  }

  /**
   * A site's first cursor row, committed on its own before its first apply. Inserting it counts the
   * site's log rows (sync_cursor_count_insert, migration 0011), which locks the site's sync_peer_count
   * row; inside the apply that lock would be held while the apply waits for the change log's order
   * lock, and the apply holding that lock, forwarding a trailer to the new site, would wait for it:
   * the deadlock that side by side applies of new sites met (test/bench/sync-ingest.ts).
   */
  private async ensureCursor(peer: string): Promise<void> {
    if (this.cursors.has(peer)) return;
    await this.driver.run(this.deps.db.kysely, sqlRun(CURSOR_ENSURE, [peer]));
    this.cursors.add(peer);
  }

  async retryDeadLetters(
    filter: { peer?: string; ids?: number[] } = {},
  ): Promise<{ retried: number; applied: number }> {
    const { result, touched } = await this.inTransaction(ALL, () => {
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
    const { result, touched } = await this.inTransaction(ALL, () => {
      const byPeer = new Map<string, Touched>();
      return { touched: byPeer, work: this.work.adoptDeadLetters(peer, ids, byPeer) };
    });
    for (const [p, t] of touched) publishTouched(this.deps, p, t);
    return result;
  }

  async previewAdoption(peer: string): Promise<AdoptionPlan> {
    const { result } = await this.inTransaction(ALL, () => ({
      touched: undefined,
      work: this.work.previewAdoption(peer),
    }));
    return result;
  }

  async applyPending(): Promise<number> {
    const { result, touched } = await this.inTransaction(ALL, () => {
      const byPeer = new Map<string, Touched>();
      return { touched: byPeer, work: this.work.applyPending(byPeer) };
    });
    for (const [peer, t] of touched) publishTouched(this.deps, peer, t);
    return result;
  }

  async resetPosition(peer: string, stream: string, appliedUpTo: number): Promise<void> {
    await this.inTransaction(peer, () => ({
      touched: undefined,
      work: this.work.writeCursor(peer, stream, appliedUpTo),
    }));
  }

  /**
   * Runs the work in a transaction, again from the start (fresh work and effects from `make`) when
   * PostgreSQL ends it as a deadlock or serialization failure. `site`: after that site's earlier
   * transactions at this node, beside other sites'; ALL: alone across the nodes (APPLY_LOCK_KEY).
   */
  private inTransaction<T, E>(
    site: string | typeof ALL,
    make: () => { touched: E; work: SqlWork<T> },
  ): Promise<{ result: T; touched: E }> {
    const key = site === ALL ? '' : `site:${site}`;
    const before = this.turns.get(key) ?? Promise.resolve();
    const mine = before.then(() => this.bounded(() => this.attempts(site === ALL, make)));
    const settled = mine.catch(() => undefined);
    this.turns.set(key, settled);
    void settled.then(() => {
      if (this.turns.get(key) === settled) this.turns.delete(key);
    });
    return mine;
  }

  /** At most `concurrency` transactions at once at this node; the others wait their turn in order. */
  private async bounded<T>(run: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await run();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  /**
   * One transaction on a connection of its own, the work's statements prepared on it
   * (PostgresWork.runOnClient): the apply's statements are the same few thousand times a second.
   * A connection whose transaction failed in a way ROLLBACK cannot answer is dropped, not reused.
   */
  private async transaction<T>(lock: string, work: SqlWork<T>): Promise<T> {
    const client = await this.deps.db.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await client.query(lock);
      const result = await this.driver.runOnClient(client, work);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  private async attempts<T, E>(
    alone: boolean,
    make: () => { touched: E; work: SqlWork<T> },
  ): Promise<{ result: T; touched: E }> {
    for (let attempt = 1; ; attempt += 1) {
      const { touched, work } = make();
      try {
        // A site's apply that deadlocked twice runs alone (two sites whose groups lock shared rows
        // in opposite orders would otherwise meet again on every retry): it cannot deadlock with
        // another apply, and its sender gets its ack instead of a failure.
        const exclusive = alone || !this.sideBySide || attempt > ALONE_AFTER;
        const result = await this.transaction(exclusive ? TAKE_ALL_LOCK : TAKE_SITE_LOCK, work);
        return { result, touched };
      } catch (err) {
        if (attempt >= ATTEMPTS || !isRetryable(err)) throw err;
        this.retried += 1;
        this.deps.log.info(
          { code: postgresErrorCode(err), attempt, retried: this.retried },
          'sync apply transaction ended by PostgreSQL (deadlock or serialization): running it again',
        );
        await sleep(Math.random() * BACKOFF_MS * attempt);
      }
    }
  }
}

/** The work that spans sites (inTransaction). */
const ALL = Symbol('every site');

function isRetryable(err: unknown): boolean {
  return RETRYABLE.has(postgresErrorCode(err) ?? '');
}
