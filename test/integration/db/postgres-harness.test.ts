import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { networkInterfaces } from 'node:os';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  databaseUrl,
  postgresAvailable,
  type TestDatabase,
  testPostgresServer,
} from '../../helpers/postgres.js';
import { PostgresCluster } from '../../helpers/postgres-cluster.js';

// The harness the "one suite, two databases" tests stand on: each test database is its own, drop()
// really removes it, and the server started for the tests is reachable from this machine only.
const server = testPostgresServer();
const suite = postgresAvailable()
  ? describe
  : // globalSetup found no server; with YARD_TEST_POSTGRES=required it fails the run instead.
    describe.skip;
const title = postgresAvailable()
  ? 'PostgreSQL test harness'
  : "PostgreSQL test harness (skipped: no PostgreSQL server binaries; install Debian's postgresql package or set YARD_TEST_PG_URL)";

suite(title, () => {
  const databases: TestDatabase[] = [];
  const pools: pg.Pool[] = [];

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
    await Promise.all(databases.splice(0).map((d) => d.drop()));
  });

  async function fresh(): Promise<{ db: TestDatabase; pool: pg.Pool }> {
    const db = await createTestDatabase();
    databases.push(db);
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pools.push(pool);
    return { db, pool };
  }

  async function exists(name: string): Promise<boolean> {
    const admin = new pg.Client({ connectionString: server!.adminUrl });
    await admin.connect();
    try {
      const r = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      return r.rowCount === 1;
    } finally {
      await admin.end();
    }
  }

  const nameOf = (url: string) => new URL(url).pathname.slice(1);

  it('gives each test a fresh, empty database of its own', async () => {
    const a = await fresh();
    const b = await fresh();
    expect(nameOf(a.db.url)).toMatch(/^yard_t_[0-9a-f]+$/);
    expect(nameOf(a.db.url)).not.toBe(nameOf(b.db.url));

    await a.pool.query('CREATE TABLE probe (id integer PRIMARY KEY)');
    await a.pool.query('INSERT INTO probe (id) VALUES (7)');

    const inA = await a.pool.query('SELECT id FROM probe');
    expect(inA.rows).toEqual([{ id: 7 }]);
    const inB = await b.pool.query("SELECT to_regclass('public.probe') AS t");
    expect(inB.rows).toEqual([{ t: null }]);
    const tables = await b.pool.query(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(tables.rows).toEqual([{ n: 0 }]);
  });

  it('creates databases in parallel, even while a session is open on template1', async () => {
    // CREATE DATABASE refuses a template someone is connected to; parallel test files must not trip
    // over each other (or over a tool connected to template1).
    const onTemplate1 = new pg.Client({ connectionString: databaseUrl(server!.adminUrl, 'template1') });
    await onTemplate1.connect();
    try {
      const made = await Promise.all(Array.from({ length: 8 }, () => createTestDatabase()));
      databases.push(...made);
      expect(new Set(made.map((d) => d.url)).size).toBe(8);
      for (const d of made) expect(await exists(nameOf(d.url))).toBe(true);
    } finally {
      await onTemplate1.end();
    }
  });

  it('drop() removes the database, ending sessions still open on it', async () => {
    const { db, pool } = await fresh();
    const held = new pg.Client({ connectionString: db.url });
    const lost: Error[] = [];
    held.on('error', (e) => lost.push(e));
    await held.connect();
    try {
      await held.query('SELECT 1');
      const name = nameOf(db.url);
      expect(await exists(name)).toBe(true);

      await db.drop();

      expect(await exists(name)).toBe(false);
      await expect(held.query('SELECT 1')).rejects.toThrow();
      await expect(pool.query('SELECT 1')).rejects.toThrow(/does not exist|not currently accepting/);
      await db.drop(); // twice is harmless
    } finally {
      await held.end().catch(() => {});
    }
  });

  it('round-trips bigint values (epoch ms, int8 extremes) exactly', async () => {
    const { pool } = await fresh();
    await pool.query('CREATE TABLE t (v bigint NOT NULL)');
    const values = ['1764120000000', '9223372036854775807', '-9223372036854775808', '9007199254740993'];
    for (const v of values) await pool.query('INSERT INTO t (v) VALUES ($1)', [v]);
    const r = await pool.query('SELECT v FROM t ORDER BY v');
    const sorted = values.map(BigInt).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    expect(r.rows.map((row) => BigInt(String(row.v)))).toEqual(sorted);
    const typed = await pool.query('SELECT pg_typeof(v)::text AS type FROM t LIMIT 1');
    expect(typed.rows).toEqual([{ type: 'bigint' }]);
  });

  it.skipIf(!server?.ownCluster)(
    'runs its own cluster on loopback only, tuned for tests (not checked on YARD_TEST_PG_URL)',
    async () => {
      const { pool } = await fresh();
      const r = await pool.query(
        "SELECT current_setting('listen_addresses') AS listen, host(inet_server_addr()) AS addr",
      );
      expect(r.rows).toEqual([{ listen: '127.0.0.1', addr: '127.0.0.1' }]);
      const tuned = await pool.query(
        "SELECT current_setting('fsync') AS fsync, current_setting('max_connections') AS max",
      );
      expect(tuned.rows).toEqual([{ fsync: 'off', max: '300' }]);
      const port = Number(new URL(server!.adminUrl).port);
      const outside = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal && a.family === 'IPv4')
        .map((a) => a!.address);
      for (const address of outside) expect(await connects(address, port), address).toBe(false);
    },
  );

  it.skipIf(!PostgresCluster.findBinaries())(
    'PostgresCluster stops its server and removes its folder',
    async () => {
      const cluster = await PostgresCluster.start({ settings: { fsync: 'on' } });
      const client = new pg.Client({ connectionString: cluster.adminUrl });
      await client.connect();
      const r = await client.query(
        "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync",
      );
      expect(r.rows).toEqual([{ fsync: 'on', sync: 'off' }]); // the caller's setting over the test ones
      await client.end();
      expect(existsSync(cluster.dataDir)).toBe(true);

      await cluster.stop();

      expect(existsSync(cluster.dir)).toBe(false);
      expect(await connects('127.0.0.1', cluster.port)).toBe(false);
    },
  );
});

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 2_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
