import type { AppDatabase, Kdb, PostgresDatabase, SqliteDatabase } from '../../../db/database.js';
import { PostgresWork, SqliteWork } from '../../../db/sql-work.js';
import type {
  RowObserver,
  RowWrite,
  TransactionRowObserver,
  WorkRowObserver,
} from '../../../sync/row-observers.js';
import { ROLLUP_TABLES, type RollupWork, rollupWork } from './work.js';

/**
 * Keeps the dashboard's rollups (rules.ts) in step with each trailer, truck, movement and visit row
 * written, in the write's transaction. Registered with ChangeCapture.observers by the composition
 * root (shared/services.ts), which hands the same list to the sync applier. What is written is
 * decided once, in work.ts; the two classes below only drive it.
 */
export function dashboardRollups(
  db: AppDatabase,
  /** Told of every write that may change a rollup (answers built from them are out of date). */
  onChange: () => void = () => {},
): DashboardRollups | PostgresDashboardRollups {
  return db.dialect === 'sqlite'
    ? new DashboardRollups(db, onChange)
    : new PostgresDashboardRollups(db, onChange);
}

/**
 * On SQLite: ChangeCapture's writes run the work synchronously on the better-sqlite3 connection the
 * writers share (its Kysely transaction is on it); the sync applier yields `rowWork` into its own.
 */
export class DashboardRollups implements RowObserver, WorkRowObserver {
  readonly tables = ROLLUP_TABLES;
  private readonly driver: SqliteWork;

  constructor(
    db: SqliteDatabase,
    private readonly onChange: () => void = () => {},
  ) {
    this.driver = new SqliteWork(db.sqlite);
  }

  rowWork(write: RowWrite): RollupWork {
    this.onChange();
    return rollupWork(write);
  }

  rowWritten(write: RowWrite): void {
    this.driver.run(this.rowWork(write));
  }
}

/**
 * On PostgreSQL: ChangeCapture's writes run the work through the write's Kysely transaction,
 * awaiting each statement, so it commits or rolls back with the row; the sync applier yields
 * `rowWork` into its own.
 */
export class PostgresDashboardRollups implements TransactionRowObserver, WorkRowObserver {
  readonly tables = ROLLUP_TABLES;
  private readonly driver = new PostgresWork();

  constructor(
    _db: PostgresDatabase,
    private readonly onChange: () => void = () => {},
  ) {}

  rowWork(write: RowWrite): RollupWork {
    this.onChange();
    return rollupWork(write);
  }

  async rowWrittenIn(trx: Kdb, write: RowWrite): Promise<void> {
    await this.driver.run(trx, this.rowWork(write));
  }
}
