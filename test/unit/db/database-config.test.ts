import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactConfig } from '../../../shared/config.js';
import { parseNumeric, parseWholeNumber } from '../../../shared/db/postgres-database.js';

describe('the database setting (YARD_DATABASE_URL)', () => {
  it('SQLite by default; a postgres:// URL with pool settings at the cloud', () => {
    expect(loadConfig({ YARD_ROLE: 'cloud' }).database.url).toBeUndefined();
    const config = loadConfig({
      YARD_ROLE: 'cloud',
      YARD_DATABASE_URL: 'postgres://yard:secret@db.example:5432/yard?sslmode=verify-full',
      YARD_DATABASE_POOL_MAX: '40',
      YARD_DATABASE_STATEMENT_TIMEOUT_MS: '5000',
    });
    expect(config.database).toEqual({
      url: 'postgres://yard:secret@db.example:5432/yard?sslmode=verify-full',
      poolMax: 40,
      statementTimeoutMs: 5000,
    });
    // Logs never carry the password.
    expect(JSON.stringify(redactConfig(config))).not.toContain('secret');
    expect((redactConfig(config).database as { url: string }).url).toBe(
      'postgres://yard:***@db.example:5432/yard?sslmode=verify-full',
    );
  });

  it('refuses a URL that is not PostgreSQL, and any URL at an edge (a yard box keeps its own SQLite)', () => {
    expect(() => loadConfig({ YARD_ROLE: 'cloud', YARD_DATABASE_URL: 'mysql://x/y' })).toThrow(
      /database.url \(YARD_DATABASE_URL\): a postgres:\/\/ URL/,
    );
    let error: unknown;
    try {
      loadConfig({ YARD_ROLE: 'edge', YARD_DATABASE_URL: 'postgres://db.example/yard' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'database.url (YARD_DATABASE_URL): only the cloud runs on PostgreSQL; an edge uses SQLite',
    ]);
  });
});

describe('PostgreSQL numbers as JavaScript numbers where nothing is lost', () => {
  it('bigint: safe integers become numbers, larger ones stay text', () => {
    expect(parseWholeNumber('1764115200000')).toBe(1_764_115_200_000);
    expect(parseWholeNumber('-42')).toBe(-42);
    expect(parseWholeNumber('9007199254740993')).toBe('9007199254740993');
  });

  it('numeric (sums and averages of bigints): numbers within the safe range', () => {
    expect(parseNumeric('123456789012')).toBe(123_456_789_012);
    expect(parseNumeric('2.5000000000000000')).toBe(2.5);
    expect(parseNumeric('99999999999999999999')).toBe('99999999999999999999');
  });
});
