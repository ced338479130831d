import type { AppDatabase, Kdb } from '../db/database.js';
import { PostgresWork, SqliteWork, type SqlWork } from '../db/sql-work.js';
import type { InProcessEvents, YardEvent } from '../events.js';
import type { CounterAdds } from './counter-adds.js';

/** A row as the observers see it: camelCase field names, SQLite scalar values. */
export type ObservedRow = Record<string, unknown>;

/** An in-process event (shared/events.ts) that an observer announces for after the write's commit. */
export type AfterCommitEvent = { [K in keyof InProcessEvents]: YardEvent<K> }[keyof InProcessEvents];

/**
 * One written row: `before` undefined for an insert, `after` undefined for a delete. Table names as
 * in Kysely's DB (camelCase: 'trailer', 'yardTask', 'visit').
 */
export interface RowWrite {
  table: string;
  before: ObservedRow | undefined;
  after: ObservedRow | undefined;
  /**
   * Collects what must happen after the commit, for a writer that publishes then (the sync applier:
   * a sign-out, whose principals cached in memory must go). Absent for ChangeCapture's writes: the
   * service that wrote does its own after-commit step.
   */
  announce?: ((event: AfterCommitEvent) => void) | undefined;
  /**
   * Collects additions to counter tables, for a writer that writes them summed at the end of its
   * transaction (the sync applier: counter-adds.ts). Absent: the observer writes them itself.
   */
  counters?: CounterAdds | undefined;
}

/** What every observer declares. */
export interface Observing {
  /** The tables it follows; writes to others are not reported (and cost nothing). */
  readonly tables: ReadonlySet<string>;
  /** Tables it writes itself (a derived read model): a writer's caches of them go with the row's. */
  readonly writes?: ReadonlySet<string> | undefined;
}

/**
 * Something kept in step with rows as they are written (a module's read model, such as the
 * dashboard's rollups), on SQLite. Called synchronously, inside the write's transaction and on the
 * same connection, so what it writes commits or rolls back with the row; it must not await. A throw
 * undoes the write.
 */
export interface RowObserver extends Observing {
  rowWritten(write: RowWrite): void;
}

/**
 * The same on PostgreSQL, where a statement cannot be run synchronously: it writes through the
 * write's Kysely transaction (`trx`) and is awaited before the write goes on. Only writers that can
 * await tell it (`notifyIn`); the SQLite sync applier cannot, and refuses it (`notify`).
 */
export interface TransactionRowObserver extends Observing {
  rowWrittenIn(trx: Kdb, write: RowWrite): Promise<void>;
}

/**
 * Both at once, written as SqlWork (shared/db/sql-work.ts): its statements are yielded into the
 * writer's own work, so the sync applier runs them in its transaction on either database (one
 * driver for everything it writes). It still answers the other two calls for ChangeCapture.
 */
export interface WorkRowObserver extends Observing {
  rowWork(write: RowWrite): SqlWork<void>;
}

export type AnyRowObserver =
  | RowObserver
  | TransactionRowObserver
  | (WorkRowObserver & (RowObserver | TransactionRowObserver));

interface Followers {
  observers: AnyRowObserver[];
  /** Whether one of them must be awaited (a TransactionRowObserver). */
  awaited: boolean;
}

/**
 * The observers of row writes, handed to the writers by the composition root (shared/services.ts):
 * ChangeCapture (local writes of synced rows) and the sync applier (rows applied from a peer) tell
 * the same observers, so a module's derived rule (the visits of gate movements, the sign-outs of
 * changed users and drivers, a deleted yard task's events, the dashboard's rollups) runs once, in
 * the write's transaction, on both paths (docs/sync.md "Derived state"). The sync engine knows the
 * observers only by this interface: it depends on no module that observes.
 */
export class RowObservers {
  /** Told after a row was written. */
  private readonly byTable = new Map<string, Followers>();
  /** Told before a row is deleted (rows that reference it go first). */
  private readonly beforeDelete = new Map<string, Followers>();
  private readonly derived = new Map<string, Set<string>>();

  add(observer: AnyRowObserver): void {
    follow(this.byTable, observer);
    this.noteWrites(observer);
  }

  /**
   * An observer told before a row of its tables is deleted, with the row as stored (at least its
   * key), in the delete's transaction: what references the row goes first.
   */
  addBeforeDelete(observer: AnyRowObserver): void {
    follow(this.beforeDelete, observer);
    this.noteWrites(observer);
  }

  private noteWrites(observer: AnyRowObserver): void {
    for (const table of observer.tables) {
      const derived = this.derived.get(table) ?? new Set<string>();
      for (const written of observer.writes ?? []) derived.add(written);
      this.derived.set(table, derived);
    }
  }

  /** Whether some observer follows the table (writers skip reading rows back otherwise). */
  watches(table: string): boolean {
    return this.byTable.has(table);
  }

  /** Whether some observer is told before a row of the table is deleted. */
  watchesDeletes(table: string): boolean {
    return this.beforeDelete.has(table);
  }

  /** The tables observers write beside a row of this table (their caches are out of date too). */
  writtenBeside(table: string): ReadonlySet<string> {
    return this.derived.get(table) ?? NONE;
  }

  /**
   * Tells the observers from inside SqlWork (the sync applier, on either database): an observer
   * written as SqlWork has its statements yielded into the caller's work; a synchronous one is
   * called. One that can only be awaited through Kysely cannot be told here; that is a wiring
   * error, thrown (undoing the write) rather than a read model silently left behind.
   */
  work(
    table: string,
    before: ObservedRow | undefined,
    after: ObservedRow | undefined,
    announce?: RowWrite['announce'],
    counters?: CounterAdds,
  ): SqlWork<void> {
    return tellWork(this.byTable.get(table), { table, before, after, announce, counters });
  }

  /** The same before a delete (addBeforeDelete), from inside SqlWork. */
  deletingWork(table: string, row: ObservedRow): SqlWork<void> {
    return tellWork(this.beforeDelete.get(table), { table, before: row, after: undefined });
  }

  /**
   * Tells the observers of a write made in `trx`, for writers that can await: the synchronous ones
   * run at once (nothing to await: undefined, so SQLite pays no promise), the others in order, each
   * awaited, through `trx`.
   */
  notifyIn(
    trx: Kdb,
    table: string,
    before: ObservedRow | undefined,
    after: ObservedRow | undefined,
  ): Promise<void> | undefined {
    return tellIn(trx, this.byTable.get(table), { table, before, after });
  }

  /** The same before a delete (addBeforeDelete), for writers that can await. */
  deletingIn(trx: Kdb, table: string, row: ObservedRow): Promise<void> | undefined {
    return tellIn(trx, this.beforeDelete.get(table), { table, before: row, after: undefined });
  }
}

const NONE: ReadonlySet<string> = new Set();

function follow(byTable: Map<string, Followers>, observer: AnyRowObserver): void {
  for (const table of observer.tables) {
    const followers = byTable.get(table) ?? { observers: [], awaited: false };
    byTable.set(table, {
      observers: [...followers.observers, observer],
      awaited: followers.awaited || isTransactional(observer),
    });
  }
}

function* tellWork(followers: Followers | undefined, write: RowWrite): SqlWork<void> {
  if (!followers) return;
  for (const o of followers.observers) {
    if ('rowWork' in o) yield* o.rowWork(write);
    else if (isTransactional(o))
      throw new Error(`an observer of ${write.table} can only be awaited through Kysely (notifyIn)`);
    else o.rowWritten(write);
  }
}

function tellIn(trx: Kdb, followers: Followers | undefined, write: RowWrite): Promise<void> | undefined {
  if (!followers) return undefined;
  if (!followers.awaited) {
    for (const o of followers.observers) (o as RowObserver).rowWritten(write);
    return undefined;
  }
  return tellInOrder(trx, followers.observers, write);
}

async function tellInOrder(trx: Kdb, observers: AnyRowObserver[], write: RowWrite): Promise<void> {
  for (const o of observers) {
    if (isTransactional(o)) await o.rowWrittenIn(trx, write);
    else o.rowWritten(write);
  }
}

function isTransactional(observer: AnyRowObserver): observer is TransactionRowObserver {
  return 'rowWrittenIn' in observer;
}

/**
 * An observer written once as SqlWork (a module's derived rule), driven on both write paths: the
 * sync applier yields `rowWork` into its own work; ChangeCapture's writes run it synchronously on
 * SQLite's shared connection (its Kysely transaction is on it), or awaited through the write's
 * transaction on PostgreSQL.
 */
export function workObserver(
  db: AppDatabase,
  observing: Observing,
  work: (write: RowWrite) => SqlWork<void>,
): AnyRowObserver {
  const { tables, writes } = observing;
  if (db.dialect === 'sqlite') {
    const driver = new SqliteWork(db.sqlite);
    return { tables, writes, rowWork: work, rowWritten: (write) => driver.run(work(write)) };
  }
  const driver = new PostgresWork();
  return { tables, writes, rowWork: work, rowWrittenIn: (trx, write) => driver.run(trx, work(write)) };
}
