import type Database from 'better-sqlite3';
import { type DatabaseConnection, type Driver, SqliteDialect, type SqliteDialectConfig } from 'kysely';

/**
 * SQLite ends a transaction by itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, ...).
 * Kysely then sends ROLLBACK anyway, which fails with "no transaction is active" and replaces the
 * cause: a full disk would answer as a generic 500 instead of 507 storage-full. So the rollback is
 * skipped when SQLite holds no transaction, and the caller sees the error that ended it.
 */
export class RollbackSafeSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqlite: Database.Database,
    config: SqliteDialectConfig,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection: DatabaseConnection) => {
      if (this.sqlite.inTransaction) await rollback(connection);
    };
    return driver;
  }
}
