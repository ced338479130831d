import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { appliedVersionPostgres, migratePostgres, postgresUp } from '../../../shared/db/migrate-postgres.js';
import { SYNCED_ENTITIES, toSnake } from '../../../shared/sync/entities.js';
import { createTestDatabase, postgresAvailable } from '../../helpers/postgres.js';

/**
 * The migrations on PostgreSQL give the schema SQLite has (tables, columns, keys, indexes,
 * triggers), with the same behaviour where it is not plain DDL: trailer.api_json, the
 * sync_peer_count triggers, the 0010 and 0011 backfills. Each comparison runs the same rows through
 * a migrated SQLite file and a migrated PostgreSQL database.
 */

const dir = mkdtempSync(join(tmpdir(), 'yard-pg-schema-'));
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A real SQLite file (foreign keys on, as openDatabase opens it), migrated up to `version`. */
function sqliteAt(version = SCHEMA_VERSION): Database.Database {
  const sqlite = new Database(join(dir, `${Math.random().toString(36).slice(2)}.db`));
  sqlite.pragma('foreign_keys = ON');
  cleanups.push(() => {
    sqlite.close();
  });
  if (version === SCHEMA_VERSION) {
    migrate(sqlite);
    return sqlite;
  }
  // As migrate() does, stopping at `version`, so rows can be put in before a backfill runs.
  sqlite.exec(`CREATE TABLE IF NOT EXISTS schema_migration (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
    sqlite.transaction(() => {
      sqlite.exec(m.up);
      sqlite
        .prepare('INSERT INTO schema_migration (version, name, applied_at) VALUES (?, ?, ?)')
        .run(m.version, m.name, Date.now());
    })();
  }
  return sqlite;
}

/** A new empty PostgreSQL database and a pool on it. */
async function postgresPool(): Promise<pg.Pool> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  cleanups.push(() => pool.end());
  return pool;
}

/** A PostgreSQL database migrated up to `version` (the first migrations by hand, as sqliteAt). */
async function postgresAt(version: number): Promise<pg.Pool> {
  const pool = await postgresPool();
  await pool.query(`CREATE TABLE schema_migration (
    version BIGINT PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, applied_at BIGINT NOT NULL)`);
  for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
    await pool.query(postgresUp(m));
    await pool.query('INSERT INTO schema_migration (version, name, applied_at) VALUES ($1, $2, $3)', [
      m.version,
      m.name,
      Date.now(),
    ]);
  }
  return pool;
}

/** One statement for both databases: `?` placeholders, numbered for PostgreSQL. */
interface Step {
  sql: string;
  params?: unknown[];
}
function onBoth(sqlite: Database.Database, pool: pg.Pool, steps: Step[]): Promise<void> {
  return steps.reduce(async (previous, { sql, params = [] }) => {
    await previous;
    sqlite.prepare(sql).run(...params);
    let n = 0;
    await pool.query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    );
  }, Promise.resolve());
}

/** Rows with integer-looking values as numbers (pg returns bigint as text; SQLite as numbers). */
function numeric(rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v]),
    ),
  );
}

async function bothRows(
  sqlite: Database.Database,
  pool: pg.Pool,
  sql: string,
): Promise<{ sqlite: unknown[]; postgres: unknown[] }> {
  return {
    sqlite: numeric(sqlite.prepare(sql).all() as Array<Record<string, unknown>>),
    postgres: numeric((await pool.query(sql)).rows),
  };
}

// ---------------------------------------------------------------------------------------------
// The schema as each database describes it, in one shape.

const SQLITE_TYPES: Record<string, string> = {
  INTEGER: 'bigint',
  BIGINT: 'bigint',
  REAL: 'double precision',
  TEXT: 'text',
  BLOB: 'bytea',
};

interface Schema {
  columns: Record<string, string[]>;
  primaryKeys: Record<string, string[]>;
  /** How many CHECK constraints each table has. */
  checks: Record<string, number>;
  indexes: string[];
  uniques: string[];
  foreignKeys: string[];
  triggers: string[];
}

function sqliteSchema(sqlite: Database.Database): Schema {
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  const schema: Schema = {
    columns: {},
    primaryKeys: {},
    checks: {},
    indexes: [],
    uniques: [],
    foreignKeys: [],
    triggers: [],
  };
  for (const table of tables) {
    const columns = sqlite.pragma(`table_xinfo(${table})`) as Array<{
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
      hidden: number;
    }>;
    schema.columns[table] = columns.map((c) => {
      const type = SQLITE_TYPES[c.type.toUpperCase()] ?? `unknown ${c.type}`;
      // A primary key column is NOT NULL in PostgreSQL (SQLite lets a TEXT key of a rowid table
      // hold NULL, a legacy quirk no code relies on).
      const nullable = c.notnull === 0 && c.pk === 0 ? 'null' : 'not null';
      const generated = c.hidden === 2 || c.hidden === 3 ? ' generated' : '';
      return `${c.name} ${type} ${nullable}${generated} default ${c.dflt_value ?? '-'}`;
    });
    const tableSql = sqlite
      .prepare('SELECT sql FROM sqlite_master WHERE name = ?')
      .pluck()
      .get(table) as string;
    const code = tableSql.replace(/'(?:[^']|'')*'|--[^\n]*/g, '');
    schema.checks[table] = code.match(/\bCHECK\s*\(/gi)?.length ?? 0;
    schema.primaryKeys[table] = columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const indexes = sqlite.pragma(`index_list(${table})`) as Array<{
      name: string;
      unique: number;
      origin: string;
      partial: number;
    }>;
    for (const index of indexes) {
      if (index.origin === 'c') {
        schema.indexes.push(
          `${index.name} on ${table}${index.unique ? ' unique' : ''}${index.partial ? ' partial' : ''}`,
        );
      } else if (index.origin === 'u') {
        const cols = (sqlite.pragma(`index_info(${index.name})`) as Array<{ name: string }>).map(
          (c) => c.name,
        );
        schema.uniques.push(`${table} (${cols.join(', ')})`);
      }
    }
    const keys = sqlite.pragma(`foreign_key_list(${table})`) as Array<{
      id: number;
      table: string;
      from: string;
      to: string;
      on_delete: string;
    }>;
    for (const id of new Set(keys.map((k) => k.id))) {
      const parts = keys.filter((k) => k.id === id);
      schema.foreignKeys.push(
        `${table} (${parts.map((k) => k.from).join(', ')}) -> ${parts[0]!.table} (${parts.map((k) => k.to).join(', ')}) on delete ${parts[0]!.on_delete.toLowerCase()}`,
      );
    }
  }
  schema.triggers = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    .pluck()
    .all() as string[];
  for (const list of [schema.indexes, schema.uniques, schema.foreignKeys, schema.triggers]) list.sort();
  return schema;
}

const ON_DELETE: Record<string, string> = {
  a: 'no action',
  c: 'cascade',
  r: 'restrict',
  n: 'set null',
  d: 'set default',
};

async function postgresSchema(pool: pg.Pool): Promise<Schema> {
  const schema: Schema = {
    columns: {},
    primaryKeys: {},
    checks: {},
    indexes: [],
    uniques: [],
    foreignKeys: [],
    triggers: [],
  };
  const columns = await pool.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
    column_default: string | null;
    is_generated: string;
    collation_name: string | null;
  }>(`SELECT table_name, column_name, data_type, is_nullable, column_default, is_generated, collation_name
      FROM information_schema.columns WHERE table_schema = current_schema()
      ORDER BY table_name, ordinal_position`);
  for (const c of columns.rows) {
    // Text compares bytewise as in SQLite (see shared/db/postgres-ddl.ts).
    const type = c.data_type === 'text' && c.collation_name !== 'C' ? 'text (not "C")' : c.data_type;
    const nullable = c.is_nullable === 'YES' ? 'null' : 'not null';
    const generated = c.is_generated === 'ALWAYS' ? ' generated' : '';
    const dflt = c.column_default === null ? '-' : c.column_default.replace(/::(text|bigint|integer)$/, '');
    schema.columns[c.table_name] ??= [];
    schema.columns[c.table_name]!.push(`${c.column_name} ${type} ${nullable}${generated} default ${dflt}`);
  }
  const constraints = await pool.query<{
    table: string;
    contype: string;
    cols: string[];
    ref: string | null;
    refcols: string[] | null;
    del: string;
  }>(
    `SELECT t.relname AS table, con.contype,
       array(SELECT attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute ON attrelid = con.conrelid AND attnum = k.n ORDER BY k.i) AS cols,
       r.relname AS ref,
       array(SELECT attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute ON attrelid = con.confrelid AND attnum = k.n ORDER BY k.i) AS refcols,
       con.confdeltype AS del
     FROM pg_constraint con JOIN pg_class t ON t.oid = con.conrelid
     LEFT JOIN pg_class r ON r.oid = con.confrelid
     WHERE t.relnamespace = current_schema()::regnamespace AND con.contype IN ('p', 'u', 'f', 'c')`,
  );
  for (const c of constraints.rows) {
    if (c.contype === 'p') schema.primaryKeys[c.table] = c.cols;
    if (c.contype === 'c') schema.checks[c.table] = (schema.checks[c.table] ?? 0) + 1;
    if (c.contype === 'u') schema.uniques.push(`${c.table} (${c.cols.join(', ')})`);
    if (c.contype === 'f') {
      schema.foreignKeys.push(
        `${c.table} (${c.cols.join(', ')}) -> ${c.ref} (${c.refcols!.join(', ')}) on delete ${ON_DELETE[c.del]}`,
      );
    }
  }
  for (const table of Object.keys(schema.columns)) {
    schema.primaryKeys[table] ??= [];
    schema.checks[table] ??= 0;
  }
  const indexes = await pool.query<{ name: string; table: string; unique: boolean; partial: boolean }>(
    `SELECT i.relname AS name, t.relname AS table, ix.indisunique AS unique, ix.indpred IS NOT NULL AS partial
     FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
     WHERE t.relnamespace = current_schema()::regnamespace
       AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = ix.indexrelid)`,
  );
  schema.indexes = indexes.rows.map(
    (i) => `${i.name} on ${i.table}${i.unique ? ' unique' : ''}${i.partial ? ' partial' : ''}`,
  );
  const triggers = await pool.query<{ tgname: string }>(
    `SELECT tgname FROM pg_trigger JOIN pg_class t ON t.oid = tgrelid
     WHERE NOT tgisinternal AND t.relnamespace = current_schema()::regnamespace`,
  );
  schema.triggers = triggers.rows.map((t) => t.tgname);
  for (const list of [schema.indexes, schema.uniques, schema.foreignKeys, schema.triggers]) list.sort();
  return schema;
}

// ---------------------------------------------------------------------------------------------

describe.skipIf(!postgresAvailable())('the migrations on PostgreSQL', () => {
  it('migrate a new database to SCHEMA_VERSION, then find nothing to do', async () => {
    const pool = await postgresPool();
    expect(await appliedVersionPostgres(pool)).toBe(0);
    expect(await migratePostgres(pool)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await appliedVersionPostgres(pool)).toBe(SCHEMA_VERSION);
    expect(await migratePostgres(pool)).toEqual([]);
    const rows = await pool.query('SELECT version, name FROM schema_migration ORDER BY version');
    expect(numeric(rows.rows)).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    // 0004's stream id: 32 lower-case hex digits, as SQLite's lower(hex(randomblob(16))).
    const stream = await pool.query("SELECT value FROM sync_meta WHERE name = 'stream'");
    expect(stream.rows[0].value).toMatch(/^[0-9a-f]{32}$/);
  });

  it('give every table, column (type, nullability, default, generated), key, index and trigger that SQLite has', async () => {
    const sqlite = sqliteAt();
    const pool = await postgresPool();
    await migratePostgres(pool);
    const expected = sqliteSchema(sqlite);
    expect(Object.keys(expected.columns).length).toBeGreaterThan(30);
    expect(expected.triggers.length).toBe(9);
    expect(expected.checks.location).toBe(5); // kind, status and 0009's three
    // PostgreSQL only: change_log seqs commit in seq order (0001's twin; SQLite has one writer).
    expected.triggers = [...expected.triggers, 'change_log_seq_order'].sort();
    const actual = await postgresSchema(pool);
    // PostgreSQL only: the commit signals the cloud's nodes hear each other by (0011's twin).
    const signals = actual.triggers.filter((t) => t.endsWith('_commit_signal'));
    actual.triggers = actual.triggers.filter((t) => !signals.includes(t));
    expect(actual).toEqual(expected);
    const signalled = [
      ...SYNCED_ENTITIES.map((e) => toSnake(e.table)),
      ...['visit', 'auth_token', 'change_log', 'webhook_endpoint', 'webhook_delivery'],
      ...['email_settings', 'email_message', 'carrier_user'],
    ];
    expect(signals.sort()).toEqual(signalled.map((t) => `${t}_commit_signal`).sort());
  });

  it('applies each migration once when several nodes migrate at once', async () => {
    const pool = await postgresPool();
    const url = (pool.options as { connectionString: string }).connectionString;
    const others = [1, 2].map(() => new pg.Pool({ connectionString: url, max: 2 }));
    cleanups.push(() => Promise.all(others.map((p) => p.end())).then(() => undefined));
    const results = await Promise.all([pool, ...others].map((p) => migratePostgres(p)));
    expect(results.map((r) => r.length).sort()).toEqual([0, 0, MIGRATIONS.length]);
    const rows = await pool.query(
      'SELECT count(*)::int AS n, count(DISTINCT version)::int AS d FROM schema_migration',
    );
    expect(rows.rows[0]).toEqual({ n: MIGRATIONS.length, d: MIGRATIONS.length });
  });

  it('refuses a database newer than the program, with the message SQLite gives, and changes nothing', async () => {
    const sqlite = sqliteAt();
    sqlite
      .prepare('INSERT INTO schema_migration (version, name, applied_at) VALUES (?, ?, ?)')
      .run(SCHEMA_VERSION + 1, 'from-the-future', 1);
    const sqliteError = (() => {
      try {
        migrate(sqlite);
      } catch (err) {
        return (err as Error).message;
      }
      return 'no error';
    })();
    expect(sqliteError).toContain('newer than this program');

    const pool = await postgresPool();
    await migratePostgres(pool);
    await pool.query(
      "INSERT INTO schema_migration (version, name, applied_at) VALUES ($1, 'from-the-future', 1)",
      [SCHEMA_VERSION + 1],
    );
    await expect(migratePostgres(pool)).rejects.toThrow(sqliteError);
    expect(await appliedVersionPostgres(pool)).toBe(SCHEMA_VERSION + 1);
    // The lock was given back: another run gets as far as the same refusal instead of waiting.
    await expect(migratePostgres(pool)).rejects.toThrow(sqliteError);
  });

  it('roll a failing migration back whole, its DDL with its record, and give the lock back', async () => {
    const pool = await postgresPool();
    // Migration 4 (sync) fails when its schema_migration row is written, after its DDL ran.
    await pool.query(`CREATE TABLE schema_migration (
      version BIGINT PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, applied_at BIGINT NOT NULL)`);
    await pool.query(`CREATE FUNCTION refuse_4() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.version = 4 THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
    await pool.query(
      'CREATE TRIGGER refuse_4 BEFORE INSERT ON schema_migration FOR EACH ROW EXECUTE FUNCTION refuse_4()',
    );
    await expect(migratePostgres(pool)).rejects.toThrow('Migration 4 (sync) failed on PostgreSQL');
    expect(await appliedVersionPostgres(pool)).toBe(3);
    const tables = await pool.query<{ t: string | null }>(
      "SELECT to_regclass('site')::text AS t UNION ALL SELECT to_regclass('sync_meta')::text",
    );
    expect(tables.rows).toEqual([{ t: null }, { t: null }]);
    await pool.query('DROP TRIGGER refuse_4 ON schema_migration');
    expect(await migratePostgres(pool)).toEqual(
      MIGRATIONS.filter((m) => m.version > 3).map((m) => m.version),
    );
  });

  it('keep the CHECKs that span columns (0009 ADD COLUMN) and the 0/1 flags (0003)', async () => {
    const pool = await postgresPool();
    await migratePostgres(pool);
    await pool.query(
      `INSERT INTO yard (id, code, name, time_zone, site_id, created_at, updated_at, hlc)
       VALUES ('y1', 'Y1', 'Yard', 'UTC', 's', 1, 1, 'h')`,
    );
    const location = `INSERT INTO location (id, yard_id, kind, name, created_at, updated_at, hlc,
      plan_x, plan_y, plan_width, plan_height, plan_rotation) VALUES ($1, 'y1', 'spot', $1, 1, 1, 'h', $2, $2, $2, $2, $3)`;
    await pool.query(location, ['placed', 1, 90]);
    await pool.query(location, ['unplaced', null, null]);
    await expect(pool.query(location, ['half-placed', 1, null])).rejects.toThrow('check constraint');
    await expect(pool.query(location, ['turned-too-far', 1, 360])).rejects.toThrow('check constraint');
    await expect(
      pool.query(
        `INSERT INTO integration (id, kind, name, enabled, created_at, updated_at, hlc) VALUES ('i', 'k', 'n', 2, 1, 1, 'h')`,
      ),
    ).rejects.toThrow('check constraint');
  });

  it('give trailer.api_json the text SQLite gives, for awkward strings and instants at the edges', async () => {
    const sqlite = sqliteAt();
    const pool = await postgresPool();
    await migratePostgres(pool);
    await onBoth(sqlite, pool, [
      {
        sql: `INSERT INTO yard (id, code, name, time_zone, site_id, created_at, updated_at, hlc)
              VALUES ('y1', 'Y1', 'Yard', 'UTC', 's', 1, 1, 'h')`,
      },
      { sql: `INSERT INTO carrier (id, name, created_at, updated_at, hlc) VALUES ('c1', 'Acme', 1, 1, 'h')` },
      {
        sql: `INSERT INTO location (id, yard_id, kind, name, created_at, updated_at, hlc)
              VALUES ('l1', 'y1', 'spot', 'A1', 1, 1, 'h')`,
      },
    ]);
    const awkward = 'quote " backslash \\ controls \u0001\b\t\n\f\r\u001f del \u007f é ü 日本 🚚 \u2028 end';
    const instants = [
      0, 1, -1, -10, -999, -1500, 999, 951_782_400_000, 1_764_124_800_123, 253_402_300_799_999,
      253_402_300_800_000, -62_167_219_200_000, -62_167_219_201_000, -65_300_000_000_000, -65_340_000_000_000,
      -100_000_000_000_000, -210_866_760_000_000, -210_866_760_000_001, -210_866_760_001_000,
      9_007_199_254_740_991, -9_007_199_254_740_991,
    ];
    const insert = `INSERT INTO trailer (id, carrier_id, number, plate, plate_region, type, length_ft, load_status,
      seal_number, yard_id, location_id, arrived_at, notes, created_at, updated_at, hlc, version)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
    const steps: Step[] = [
      {
        sql: insert,
        params: [
          't-bare',
          null,
          'T1',
          null,
          null,
          'dry_van',
          null,
          'unknown',
          null,
          null,
          null,
          null,
          null,
          0,
          0,
          'h',
          1,
        ],
      },
      {
        sql: insert,
        params: [
          't-full',
          'c1',
          awkward,
          'AB 123',
          'TX',
          'reefer',
          53,
          'loaded',
          'S-9',
          'y1',
          'l1',
          1_764_124_800_123,
          awkward,
          1_764_000_000_000,
          1_764_124_800_999,
          'h',
          12,
        ],
      },
      ...instants.map((at, i) => ({
        sql: insert,
        params: [
          `t-at-${i}`,
          null,
          `N${i}`,
          null,
          null,
          'flatbed',
          0,
          'empty',
          null,
          'y1',
          null,
          at,
          '',
          at,
          -at,
          'h',
          2 ** 40,
        ],
      })),
    ];
    await onBoth(sqlite, pool, steps);
    const sql = 'SELECT id, api_json FROM trailer ORDER BY id';
    const both = await bothRows(sqlite, pool, sql);
    expect(both.postgres).toHaveLength(instants.length + 2);
    expect(both.postgres).toEqual(both.sqlite);
    const parsed = (rows: unknown[]) => rows.map((r) => JSON.parse((r as { api_json: string }).api_json));
    expect(parsed(both.postgres)).toEqual(parsed(both.sqlite));
    // The values themselves, not only their agreement.
    const full = parsed(both.postgres).find((t) => t.id === 't-full');
    expect(full).toMatchObject({
      number: awkward,
      inYard: true,
      arrivedAt: '2025-11-26T02:40:00.123Z',
      version: 12,
    });

    // Kept on update, as a generated column is.
    await onBoth(sqlite, pool, [
      { sql: "UPDATE trailer SET yard_id = NULL, arrived_at = NULL WHERE id = 't-full'" },
    ]);
    const after = await bothRows(sqlite, pool, "SELECT api_json FROM trailer WHERE id = 't-full'");
    expect(after.postgres).toEqual(after.sqlite);
    expect(JSON.parse((after.postgres[0] as { api_json: string }).api_json)).toMatchObject({
      inYard: false,
      arrivedAt: null,
    });
  });

  it("format any instant in SQLite's date range and beyond as SQLite's strftime/printf expression does", async () => {
    const sqlite = sqliteAt();
    const pool = await postgresPool();
    await migratePostgres(pool);
    // A fixed pseudo-random sample (xorshift) over the whole range, past both ends.
    let x = 0x2545f491;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    const instants = Array.from({ length: 2000 }, () => Math.round(-2.2e14 + next() * 4.8e14));
    sqlite.exec('CREATE TEMP TABLE instant (ms INTEGER)');
    const put = sqlite.prepare('INSERT INTO instant (ms) VALUES (?)');
    for (const ms of instants) put.run(ms);
    const fromSqlite = sqlite
      .prepare(
        `SELECT CASE WHEN ms IS NULL THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S', ms / 1000, 'unixepoch') || '.'
           || printf('%03d', ms % 1000) || 'Z' END FROM instant ORDER BY rowid`,
      )
      .pluck()
      .all();
    const fromPostgres = await pool.query<{ iso: string | null }>(
      'SELECT iso_utc_from_epoch_ms(ms) AS iso FROM unnest($1::bigint[]) WITH ORDINALITY u(ms, i) ORDER BY i',
      [instants],
    );
    expect(fromSqlite.filter((v) => v === null).length).toBeGreaterThan(50);
    expect(fromPostgres.rows.map((r) => r.iso)).toEqual(fromSqlite);
  });

  it('compare and lower-case text bytewise, as SQLite does, whatever the database locale', async () => {
    const sqlite = sqliteAt();
    const pool = await postgresPool();
    await migratePostgres(pool);
    const names = ['b', 'B', 'a', 'Ä', 'ä', 'é', 'Z', '_x', '-y', 'a b', 'ab', '10', '9'];
    await onBoth(
      sqlite,
      pool,
      names.map((name, i) => ({
        sql: "INSERT INTO carrier (id, name, created_at, updated_at, hlc) VALUES (?, ?, 1, 1, 'h')",
        params: [`c${i}`, name],
      })),
    );
    const both = await bothRows(
      sqlite,
      pool,
      "SELECT name, lower(name) AS low, name > 'a' AS after_a FROM carrier ORDER BY name, id",
    );
    expect(
      both.postgres.map((r) => ({ ...(r as object), after_a: Number((r as { after_a: unknown }).after_a) })),
    ).toEqual(both.sqlite);
  });

  it('keep sync_peer_count exact, as SQLite does, through change_log, sync_cursor and dead_letter writes', async () => {
    const sqlite = sqliteAt();
    const pool = await postgresPool();
    await migratePostgres(pool);
    const log = (peer: string) => ({
      sql: `INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data)
            VALUES (?, 'trailer', 'x', 'upsert', 'h', 'o', 1, '{}')`,
      params: [peer],
    });
    const dead = (peer: string, seq: number) => ({
      sql: `INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, ?, 'trailer', 'x', 'e', '{}', 1)`,
      params: [peer, seq],
    });
    const scenario: Array<[string, Step[]]> = [
      ['rows logged for two peers', [log('a'), log('a'), log('a'), log('b'), log('b')]],
      [
        'rows logged by one INSERT ... SELECT',
        [
          {
            sql: `INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data)
                  SELECT 'a', entity, entity_id, op, hlc, origin, schema_v, data FROM change_log WHERE peer = 'b'`,
          },
        ],
      ],
      ['a cursor created at seq 3', [{ sql: "INSERT INTO sync_cursor (peer, acked_seq) VALUES ('a', 3)" }]],
      ['an ack moving forward', [{ sql: "UPDATE sync_cursor SET acked_seq = 7 WHERE peer = 'a'" }]],
      ['an ack moving back', [{ sql: "UPDATE sync_cursor SET acked_seq = 2 WHERE peer = 'a'" }]],
      ['a rotation to 0', [{ sql: "UPDATE sync_cursor SET acked_seq = 0 WHERE peer = 'a'" }]],
      [
        'an ack to 6, then rows after it',
        [{ sql: "UPDATE sync_cursor SET acked_seq = 6 WHERE peer = 'a'" }, log('a'), log('c')],
      ],
      [
        'an update that moves nothing',
        [{ sql: "UPDATE sync_cursor SET acked_seq = acked_seq, remote_stream = 'r'" }],
      ],
      ['pruning the acknowledged rows', [{ sql: "DELETE FROM change_log WHERE peer = 'a' AND seq <= 6" }]],
      ['deleting rows not acknowledged', [{ sql: "DELETE FROM change_log WHERE peer = 'c'" }]],
      [
        'rows moved to other seqs and peers',
        [
          { sql: "UPDATE change_log SET seq = seq + 100 WHERE peer = 'b'" },
          { sql: "UPDATE change_log SET peer = 'c' WHERE seq = 8" },
        ],
      ],
      [
        'a cursor for b, renamed to d, then b again',
        [
          { sql: "INSERT INTO sync_cursor (peer, acked_seq) VALUES ('b', 104)" },
          { sql: "UPDATE sync_cursor SET peer = 'd' WHERE peer = 'b'" },
          { sql: "UPDATE change_log SET peer = 'd' WHERE peer = 'b' AND seq = 104" },
          { sql: "INSERT INTO sync_cursor (peer, acked_seq) VALUES ('b', 200)" },
        ],
      ],
      ['dead letters', [dead('a', 1), dead('a', 2), dead('c', 3), dead('e', 4)]],
      [
        'dead letters moved and deleted',
        [
          { sql: "UPDATE dead_letter SET peer = 'c' WHERE peer = 'a' AND seq = 2" },
          { sql: 'UPDATE dead_letter SET peer = peer WHERE seq = 3' },
          { sql: "DELETE FROM dead_letter WHERE peer = 'e'" },
        ],
      ],
      ['a cursor deleted', [{ sql: "DELETE FROM sync_cursor WHERE peer = 'a'" }]],
      ['everything deleted', [{ sql: 'DELETE FROM change_log' }, { sql: 'DELETE FROM dead_letter' }]],
    ];
    const counts = 'SELECT peer, log_rows, acked_rows, dead_letters FROM sync_peer_count ORDER BY peer';
    const recount = `SELECT p.peer,
        (SELECT count(*) FROM change_log l WHERE l.peer = p.peer) AS log_rows,
        (SELECT count(*) FROM change_log l, sync_cursor c
           WHERE l.peer = p.peer AND c.peer = p.peer AND l.seq <= c.acked_seq) AS acked_rows,
        (SELECT count(*) FROM dead_letter d WHERE d.peer = p.peer) AS dead_letters
      FROM sync_peer_count p ORDER BY p.peer`;
    const seen: string[] = [];
    for (const [what, steps] of scenario) {
      await onBoth(sqlite, pool, steps);
      const kept = await bothRows(sqlite, pool, counts);
      const truth = await bothRows(sqlite, pool, recount);
      expect(kept.sqlite, `SQLite after ${what}`).toEqual(truth.sqlite);
      expect(kept.postgres, `PostgreSQL after ${what}`).toEqual(kept.sqlite);
      expect(truth.postgres, `rows after ${what}`).toEqual(truth.sqlite);
      seen.push(JSON.stringify(kept.postgres));
    }
    // The scenario moved every count (it is not comparing zeros).
    expect(seen[3]).toContain('"acked_rows":5');
    expect(seen[12]).toContain('"dead_letters":2');
  });

  it('backfill the dashboard rollups (0010), the peer counts (0011) and the export numbers of invoices (0014) from existing rows as SQLite does', async () => {
    const sqlite = sqliteAt(9);
    const pool = await postgresAt(9);
    const hour = 3_600_000;
    const t0 = Date.parse('2026-03-09T23:10:00Z');
    const steps: Step[] = [
      ...['y1', 'y2'].map((id) => ({
        sql: `INSERT INTO yard (id, code, name, time_zone, site_id, created_at, updated_at, hlc)
              VALUES (?, ?, ?, 'UTC', 's', 1, 1, 'h')`,
        params: [id, id, id],
      })),
      ...['c1', 'c2'].map((id) => ({
        sql: "INSERT INTO carrier (id, name, created_at, updated_at, hlc) VALUES (?, ?, 1, 1, 'h')",
        params: [id, id],
      })),
      ...[
        ['tr1', 'c1', 'y1', 'loaded'],
        ['tr2', null, 'y1', 'empty'],
        ['tr3', 'c2', 'y1', 'loaded'],
        ['tr4', 'c1', 'y2', 'unknown'],
        ['tr5', 'c1', null, 'empty'],
      ].map(([id, carrier, yard, load]) => ({
        sql: `INSERT INTO trailer (id, carrier_id, number, yard_id, load_status, created_at, updated_at, hlc)
              VALUES (?, ?, ?, ?, ?, 1, 1, 'h')`,
        params: [id, carrier, id, yard, load],
      })),
      ...[
        ['k1', 'y1'],
        ['k2', 'y1'],
        ['k3', null],
      ].map(([id, yard]) => ({
        sql: "INSERT INTO truck (id, yard_id, created_at, updated_at, hlc) VALUES (?, ?, 1, 1, 'h')",
        params: [id, yard],
      })),
      ...Array.from({ length: 40 }, (_, i) => ({
        sql: `INSERT INTO movement (id, yard_id, direction, at, truck_id, trailer_id, created_at, hlc)
              VALUES (?, ?, ?, ?, ?, ?, 1, 'h')`,
        params: [
          `m${String(i).padStart(2, '0')}`,
          i % 3 === 0 ? 'y2' : 'y1',
          i % 2 === 0 ? 'in' : 'out',
          t0 + i * 17 * 60_000 + (i % 5) * 1000,
          i % 4 === 0 ? 'k1' : i % 4 === 1 ? 'k2' : null,
          i % 4 === 2 ? 'tr1' : i % 4 === 3 ? 'tr3' : null,
        ],
      })),
      ...[
        ['v1', 'y1', 'trailer', 'tr1', null, 'm02', null, t0 + 2 * hour],
        ['v2', 'y1', 'trailer', 'tr3', null, 'm03', null, t0 + 3 * hour],
        ['v3', 'y1', 'trailer', 'tr2', null, 'm06', 'm07', t0 + 4 * hour],
        ['v4', 'y1', 'truck', null, 'k1', 'm04', 'm05', t0 + 5 * hour],
        ['v5', 'y1', 'truck', null, 'k1', 'm08', null, t0 + 9 * hour],
        ['v6', 'y1', 'truck', null, 'k2', 'm09', null, t0 + 7 * hour],
        ['v7', 'y2', 'truck', null, 'k1', 'm00', null, t0 + 1 * hour],
      ].map(([id, yard, kind, trailer, truck, inMove, outMove, inAt]) => ({
        sql: `INSERT INTO visit (id, yard_id, unit_kind, trailer_id, truck_id, in_movement_id, out_movement_id, in_at, out_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        params: [
          id,
          yard,
          kind,
          trailer,
          truck,
          inMove,
          outMove,
          inAt,
          outMove === null ? null : Number(inAt) + hour,
        ],
      })),
      // For 0011's backfill.
      ...['a', 'a', 'a', 'b', 'a', 'c'].map((peer) => ({
        sql: `INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data)
              VALUES (?, 'trailer', 'x', 'upsert', 'h', 'o', 1, '{}')`,
        params: [peer],
      })),
      { sql: "INSERT INTO sync_cursor (peer, acked_seq) VALUES ('a', 3), ('d', 9)" },
      {
        sql: `INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at)
              VALUES ('c', 1, 'trailer', 'x', 'e', '{}', 1), ('e', 2, 'trailer', 'x', 'e', '{}', 1)`,
      },
    ];
    // For 0014's fill: a number that fits, and two that do not.
    for (const [id, number] of [
      ['i1', 'DAL1-202602-PRFL'],
      ['i2', 'ACCRINGTON1-202602-PRFL'],
      ['i3', 'ACCRINGTON1-202602-59AC2073-2'],
    ]) {
      steps.push({
        sql: `INSERT INTO invoice (id, number, yard_id, carrier_id, period, sequence, status, currency, subtotal,
                tax, total, content, generated_at, created_at, updated_at)
              VALUES (?, ?, 'y1', ?, '2026-02', 1, 'issued', 'USD', 1, 0, 1, '{}', 1, 1, 1)`,
        params: [id, number, id],
      });
    }
    await onBoth(sqlite, pool, steps);
    // 0010, 0011 and every later migration.
    const after9 = MIGRATIONS.filter((m) => m.version > 9).map((m) => m.version);
    expect(migrate(sqlite)).toEqual(after9);
    expect(await migratePostgres(pool)).toEqual(after9);
    const numbers = await bothRows(sqlite, pool, 'SELECT id, export_number FROM invoice ORDER BY id');
    expect(numbers.postgres).toEqual(numbers.sqlite);
    expect(numbers.sqlite.map((r) => (r as { export_number: string }).export_number)).toEqual([
      'DAL1-202602-PRFL',
      expect.stringMatching(/^ACCRI-2602-\w{10}$/),
      expect.stringMatching(/^ACCRI-2602-\w{10}$/),
    ]);

    for (const sql of [
      'SELECT * FROM dashboard_movement_count ORDER BY scope, grain, bucket, direction',
      'SELECT * FROM dashboard_yard_figure ORDER BY yard_id, figure, item',
      'SELECT * FROM dashboard_truck_arrival ORDER BY truck_id, yard_id',
      'SELECT * FROM sync_peer_count ORDER BY peer',
    ]) {
      const both = await bothRows(sqlite, pool, sql);
      expect(both.sqlite.length, sql).toBeGreaterThan(2);
      expect(both.postgres, sql).toEqual(both.sqlite);
    }
  });
});
