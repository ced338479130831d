import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isRowError } from '../../../shared/sync/row-errors.js';

/**
 * A server error as pg reports it: the class pg's protocol parser makes, with the SQLSTATE and the
 * severity every ErrorResponse carries.
 */
function serverError(code: string): pg.DatabaseError {
  const err = new pg.DatabaseError(`server error ${code}`, 0, 'error');
  err.code = code;
  err.severity = 'ERROR';
  return err;
}

describe('PostgreSQL: which failures are a row’s own (dead letter) and which are the database’s', () => {
  it('integrity constraints (class 23, foreign keys included) and data exceptions (class 22) are the row’s', () => {
    for (const code of ['23505', '23503', '23502', '23514', '22P02', '22001', '22003'])
      expect(isRowError(serverError(code)), code).toBe(true);
  });

  it('deadlocks, serialization failures, timeouts, a lost or refused connection are not', () => {
    for (const code of ['40001', '40P01', '57014', '57P01', '53300', '08006', '25P02'])
      expect(isRowError(serverError(code)), code).toBe(false);
    expect(isRowError(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isRowError(new Error('timeout exceeded when trying to connect'))).toBe(false);
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(isRowError(reset)).toBe(false);
  });
});
