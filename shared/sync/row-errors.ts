import Database from 'better-sqlite3';
import { postgresErrorCode } from '../db/postgres-errors.js';

/** A row that cannot be applied for a reason of its own (not a database error). */
export class RowRejected extends Error {}

/**
 * Whether an error is the row's fault (a constraint, a value the database cannot store, a refused
 * or malformed change): the row goes to dead_letter. Anything else (disk full, I/O error, a locked
 * or corrupt database; on PostgreSQL a lost connection, a timeout, a deadlock or serialization
 * failure) is the database's: it propagates, the whole transaction rolls back, nothing is
 * acknowledged, and the batch is applied again later (PostgresChangeApplier retries 40001/40P01).
 */
export function isRowError(err: unknown): boolean {
  if (err instanceof RowRejected) return true;
  if (err instanceof Database.SqliteError)
    return err.code.startsWith('SQLITE_CONSTRAINT') || ROW_SQLITE_CODES.has(err.code);
  // SQLSTATE class 23 (integrity constraint) and 22 (data exception: a value the column refuses).
  const code = postgresErrorCode(err);
  if (code !== undefined) return /^2[23]/.test(code);
  if (!(err instanceof Error)) return false;
  // A client-side failure of the connection (pg's own errors, or the socket's with an errno code).
  if (typeof (err as { code?: unknown }).code === 'string') return false;
  if (PG_CLIENT_FAILURE.test(err.message)) return false;
  return true;
}

/**
 * A row error (isRowError) as its dead letter names it: the rule's message for a refusal, the
 * database's code and message otherwise; and whether it failed on a foreign key, a reference that
 * may arrive later in the batch (RowApplier.applyRows tries such a row again after the others).
 */
export function rowFailure(err: unknown): { foreignKey: boolean; error: string } {
  const code = (err as { code?: unknown }).code;
  const foreignKey = code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === PG_FOREIGN_KEY;
  const error =
    err instanceof RowRejected ? err.message : `${String(code ?? 'error')}: ${(err as Error).message}`;
  return { foreignKey, error };
}

/** PostgreSQL's foreign_key_violation. */
const PG_FOREIGN_KEY = '23503';

const ROW_SQLITE_CODES = new Set(['SQLITE_MISMATCH', 'SQLITE_TOOBIG', 'SQLITE_RANGE']);

/** pg's messages for a connection that broke or timed out (they carry no SQLSTATE). */
const PG_CLIENT_FAILURE = /connection|terminated|timeout|timed out|not queryable/i;
