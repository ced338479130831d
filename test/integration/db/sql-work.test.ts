import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { openAppDatabase } from '../../../shared/db/open-app-database.js';
import {
  inSavepoint,
  numberPlaceholders,
  once,
  PostgresWork,
  SqliteWork,
  type SqlWork,
  sqlRow,
  sqlRows,
  sqlRun,
  sqlValue,
  statement,
} from '../../../shared/db/sql-work.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../../helpers/postgres.js';

const put = statement('meta|put', 'changes', 'INSERT INTO sync_meta (name, value) VALUES (?, ?)');
const get = statement('meta|get', 'value', 'SELECT value FROM sync_meta WHERE name = ?');
const row = statement('meta|row', 'row', "SELECT name, value FROM sync_meta WHERE name = ? AND value <> '?'");
const all = statement('meta|all', 'rows', "SELECT name FROM sync_meta WHERE name LIKE 'w-%' ORDER BY name");
const dialectText = statement('dialect', 'value', (d) =>
  d === 'postgres' ? "SELECT 'pg'" : "SELECT 'lite'",
);

/** Work that writes one row, then fails on a duplicate inside a savepoint and goes on. */
function* work(): SqlWork<{ first: unknown; caught: string; rows: unknown[]; dialect: unknown }> {
  expect(yield* sqlRun(put, ['w-1', 'one'])).toBe(1);
  let caught = '';
  try {
    yield* inSavepoint(function* () {
      yield* sqlRun(put, ['w-2', 'two']);
      yield* sqlRun(put, ['w-1', 'again']); // the primary key: fails, and w-2 goes with it
    });
  } catch (err) {
    caught = (err as Error).message;
  }
  yield* inSavepoint(function* () {
    yield* sqlRun(put, ['w-3', 'three']);
  });
  const first = yield* sqlValue(get, ['w-1']);
  const rows = yield* sqlRows(all, []);
  expect(yield* sqlRow(row, ['w-3'])).toEqual({ name: 'w-3', value: 'three' });
  expect(yield* sqlRow(row, ['nothing'])).toBeUndefined();
  return { first, caught, rows, dialect: yield* sqlValue(dialectText, []) };
}

describe.each(TEST_DIALECTS)('work written once for both databases, on %s', (dialect) => {
  let db: AppDatabase;
  let postgres: TestDatabase | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'yard-sql-work-'));

  beforeAll(async () => {
    postgres = dialect === 'postgres' ? await createTestDatabase() : undefined;
    db = await openAppDatabase(
      loadConfig({
        YARD_ROLE: 'cloud',
        YARD_DATA_DIR: dir,
        ...(postgres ? { YARD_DATABASE_URL: postgres.url } : {}),
      }),
    );
  });

  afterAll(async () => {
    await db?.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run<T>(w: SqlWork<T>): Promise<T> {
    if (db.dialect === 'sqlite') {
      const sqlite = db.sqlite;
      return sqlite.transaction(() => new SqliteWork(sqlite).run(w))();
    }
    const pg = new PostgresWork();
    return db.kysely.transaction().execute((trx) => pg.run(trx, w));
  }

  it('runs statements, throws a failed one into the work, and undoes only its savepoint', async () => {
    const out = await run(work());
    expect(out.first).toBe('one');
    expect(out.caught).toMatch(/unique|duplicate/i);
    expect(out.rows).toEqual([{ name: 'w-1' }, { name: 'w-3' }]);
    expect(out.dialect).toBe(dialect === 'postgres' ? 'pg' : 'lite');
  });

  it('rolls the whole transaction back when the work throws', async () => {
    await expect(
      run(
        (function* () {
          yield* sqlRun(put, ['x-1', 'gone']);
          throw new Error('the work failed');
        })(),
      ),
    ).rejects.toThrow('the work failed');
    expect(await run(sqlValue(get, ['x-1']))).toBeUndefined();
  });
});

describe('once: a lookup kept for one run of the work (one transaction)', () => {
  it('reads once per run, asks again what it was told not to keep, and starts afresh on the next run', () => {
    const sqlite = new Database(':memory:');
    sqlite.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES ('a', '1')");
    const read = statement('t|get', 'value', 'SELECT v FROM t WHERE k = ?');
    let reads = 0;
    const lookup = (k: string) =>
      once(
        `t|${k}`,
        function* () {
          reads++;
          return yield* sqlValue(read, [k]);
        },
        (v) => v !== undefined,
      );
    const driver = new SqliteWork(sqlite);
    const first = driver.run(
      (function* () {
        const values = [yield* lookup('a'), yield* lookup('a'), yield* lookup('b')];
        yield* sqlRun(statement('t|put', 'changes', "INSERT INTO t VALUES ('b', '2')"), []);
        values.push(yield* lookup('b'), yield* lookup('b'));
        return values;
      })(),
    );
    expect(first).toEqual(['1', '1', undefined, '2', '2']);
    expect(reads).toBe(3); // a once, b before it existed, b once after
    driver.run(lookup('a'));
    expect(reads).toBe(4); // a new run keeps nothing of the last
    sqlite.close();
  });
});

describe('numberPlaceholders', () => {
  it("numbers ? outside quotes as PostgreSQL's $n", () => {
    expect(numberPlaceholders(`SELECT '?', "a?" FROM t WHERE a = ? AND b = ?`)).toBe(
      `SELECT '?', "a?" FROM t WHERE a = $1 AND b = $2`,
    );
  });
});
