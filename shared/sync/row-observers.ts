import type { Kdb } from '../db/database.js';
import type { SqlWork } from '../db/sql-work.js';

/** A row as the observers see it: camelCase field names, SQLite scalar values. */
export type ObservedRow = Record<string, unknown>;

/**
 * One written row: `before` undefined for an insert, `after` undefined for a delete. Table names as
 * in Kysely's DB (camelCase: 'trailer', 'yardTask', 'visit').
 */
export interface RowWrite {
  table: string;
  before: ObservedRow | undefined;
  after: ObservedRow | undefined;
}

/**
 * Something kept in step with rows as they are written (a module's read model, such as the
 * dashboard's rollups), on SQLite. Called synchronously, inside the write's transaction and on the
 * same connection, so what it writes commits or rolls back with the row; it must not await. A throw
 * undoes the write.
 */
export interface RowObserver {
  /** The tables it follows; writes to others are not reported (and cost nothing). */
  readonly tables: ReadonlySet<string>;
  rowWritten(write: RowWrite): void;
}

/**
 * The same on PostgreSQL, where a statement cannot be run synchronously: it writes through the
 * write's Kysely transaction (`trx`) and is awaited before the write goes on. Only writers that can
 * await tell it (`notifyIn`); the SQLite sync applier cannot, and refuses it (`notify`).
 */
export interface TransactionRowObserver {
  readonly tables: ReadonlySet<string>;
  rowWrittenIn(trx: Kdb, write: RowWrite): Promise<void>;
}

/**
 * Both at once, written as SqlWork (shared/db/sql-work.ts): its statements are yielded into the
 * writer's own work, so the sync applier runs them in its transaction on either database (one
 * driver for everything it writes). It still answers the other two calls for ChangeCapture.
 */
export interface WorkRowObserver {
  readonly tables: ReadonlySet<string>;
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
 * ChangeCapture (local writes of synced rows), the sync applier (rows applied from a peer, and the
 * visits it derives from them) and the movements module (the visits it derives locally). The sync
 * engine knows the observers only by this interface: it depends on no module that observes.
 */
export class RowObservers {
  private readonly byTable = new Map<string, Followers>();

  add(observer: AnyRowObserver): void {
    for (const table of observer.tables) {
      const followers = this.byTable.get(table) ?? { observers: [], awaited: false };
      this.byTable.set(table, {
        observers: [...followers.observers, observer],
        awaited: followers.awaited || isTransactional(observer),
      });
    }
  }

  /** Whether some observer follows the table (writers skip reading rows back otherwise). */
  watches(table: string): boolean {
    return this.byTable.has(table);
  }

  /**
   * Tells the observers from inside SqlWork (the sync applier, on either database): an observer
   * written as SqlWork has its statements yielded into the caller's work; a synchronous one is
   * called. One that can only be awaited through Kysely cannot be told here; that is a wiring
   * error, thrown (undoing the write) rather than a read model silently left behind.
   */
  *work(table: string, before: ObservedRow | undefined, after: ObservedRow | undefined): SqlWork<void> {
    const followers = this.byTable.get(table);
    if (!followers) return;
    const write: RowWrite = { table, before, after };
    for (const o of followers.observers) {
      if ('rowWork' in o) yield* o.rowWork(write);
      else if (isTransactional(o))
        throw new Error(`an observer of ${table} can only be awaited through Kysely (notifyIn)`);
      else o.rowWritten(write);
    }
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
    const followers = this.byTable.get(table);
    if (!followers) return undefined;
    const write: RowWrite = { table, before, after };
    if (!followers.awaited) {
      for (const o of followers.observers) (o as RowObserver).rowWritten(write);
      return undefined;
    }
    return tellInOrder(trx, followers.observers, write);
  }
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
