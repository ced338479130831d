import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isRowError, RowRejected } from '../../../shared/sync/row-errors.js';

describe('which failures are a row’s own (dead letter) and which are the database’s (roll back, retry)', () => {
  it('constraints, unstorable values and refused changes are the row’s', () => {
    for (const code of [
      'SQLITE_CONSTRAINT_FOREIGNKEY',
      'SQLITE_CONSTRAINT_NOTNULL',
      'SQLITE_CONSTRAINT_CHECK',
      'SQLITE_MISMATCH',
      'SQLITE_TOOBIG',
    ]) {
      expect(isRowError(new Database.SqliteError('x', code)), code).toBe(true);
    }
    expect(isRowError(new RowRejected('unknown entity'))).toBe(true);
    expect(isRowError(new TypeError('field items holds a list, not a column value'))).toBe(true);
  });

  it('a full disk, I/O errors, a busy or corrupt database are not', () => {
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_IOERR_WRITE',
      'SQLITE_BUSY',
      'SQLITE_CORRUPT',
      'SQLITE_NOMEM',
      'SQLITE_READONLY',
    ]) {
      expect(isRowError(new Database.SqliteError('x', code)), code).toBe(false);
    }
    expect(isRowError('not even an error')).toBe(false);
  });

  it('applies the classification to a real database error', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (a TEXT NOT NULL)');
    let err: unknown;
    try {
      db.prepare('INSERT INTO t (a) VALUES (NULL)').run();
    } catch (e) {
      err = e;
    }
    expect(isRowError(err)).toBe(true);
    db.close();
  });
});
