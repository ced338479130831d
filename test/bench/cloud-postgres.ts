import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../../shared/config.js';
import { openAppDatabase } from '../../shared/db/open-app-database.js';
import { freePort } from '../helpers/ports.js';
import { PostgresCluster } from '../helpers/postgres-cluster.js';
import { type LoadResult, load } from './lib.js';
import { seedBenchDatabase } from './seed.js';
import { type Check, finish } from './sync-lib.js';

/**
 * The core API benchmarks of run-all.ts (trailer list, a write) at the cloud, on SQLite and on
 * PostgreSQL side by side (docs/performance.md: "the core API benchmarks at the cloud on PostgreSQL beside
 * SQLite"). No target: figures only (run-all.ts holds the edge's targets).
 *
 * One seed (seed.ts: BENCH_TRAILERS trailers, BENCH_MOVEMENTS movements in 3 yards of one site)
 * written to SQLite and copied row for row into a fresh PostgreSQL database (a throwaway cluster,
 * test/helpers/postgres-cluster.ts, with durability on: fsync, synchronous_commit, full_page_writes,
 * as SQLite runs synchronous=FULL), then ANALYZEd. The edge's change_log rows of the seed are left
 * out of both (a cloud has none for itself). For each database in turn, the cloud process itself
 * (`node <pm2 node_args> dist/cloud/main.js` when built, else through tsx; its embedded broker on a
 * free port) is started and loaded with autocannon as run-all.ts loads the edge:
 *  - GET /api/trailer?yardId=..&limit=50, 50 connections, BENCH_SECONDS;
 *  - POST /api/trailer (a new trailer per request), 16 connections, BENCH_SECONDS: the write. run-all.ts
 *    writes POST /api/movement at the edge, but gate movements belong to the yard's edge: the cloud
 *    answers them 409 edge-owned (its movement writes are the sites' batches, sync-ingest.ts).
 * Reported: requests/s, p50 and p99 latency (ms), non-2xx and errors, and each run's load average.
 *
 * Run: npx tsx test/bench/cloud-postgres.ts (part of `npm run bench`, after `npm run build`).
 * BENCH_TRAILERS (10000), BENCH_MOVEMENTS (1000000), BENCH_SECONDS per load run (10),
 * BENCH_CLOUD_DATABASES (sqlite,postgres).
 */
const PRODUCTION_NODE_ARGS: string[] = createRequire(import.meta.url)('../../deploy/ecosystem.config.cjs')
  .apps[0].node_args;
const TRAILERS = Number(process.env.BENCH_TRAILERS ?? 10_000);
const MOVEMENTS = Number(process.env.BENCH_MOVEMENTS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DATABASES = (process.env.BENCH_CLOUD_DATABASES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const SITE = 'site-1';
/** The seed's tables, copied in this order (foreign keys). */
const TABLES = ['site', 'yard', 'gate', 'carrier', 'trailer', 'movement'];

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-cloud-'));
const env = {
  ...process.env,
  YARD_ROLE: 'cloud',
  YARD_HTTP_HOST: '127.0.0.1',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
  YARD_LOG_LEVEL: 'warn',
};
const results: Record<string, unknown> = { trailers: TRAILERS, movements: MOVEMENTS, seconds: SECONDS };
const checks: Check[] = [];
let cluster: PostgresCluster | undefined;

try {
  const sqliteDir = join(dir, 'sqlite');
  mkdirSync(sqliteDir);
  const sqliteFile = join(sqliteDir, 'yard.db');
  console.log(`Seeding ${TRAILERS} trailers and ${MOVEMENTS} movements...`);
  const t0 = performance.now();
  const seeded = seedBenchDatabase(sqliteFile, {
    trailers: TRAILERS,
    movements: MOVEMENTS,
    onProgress: (n) => process.stdout.write(`\r  ${n} movements`),
  });
  asCloudSeed(sqliteFile);
  console.log(`\n  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const unknown = DATABASES.filter((d) => d !== 'sqlite' && d !== 'postgres');
  if (unknown.length > 0)
    throw new Error(`BENCH_CLOUD_DATABASES: unknown ${unknown.join(', ')} (sqlite, postgres)`);
  // Copied before any cloud runs on the SQLite file (its writes would be copied too).
  let postgresUrl: string | undefined;
  if (DATABASES.includes('postgres')) {
    cluster = await PostgresCluster.start({
      settings: { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on', shared_buffers: "'256MB'" },
    });
    postgresUrl = await copyToPostgres(cluster, sqliteFile);
  }
  for (const database of DATABASES) {
    const databaseUrl = database === 'postgres' ? postgresUrl : undefined;
    console.log(`\n== the cloud on ${database} ==`);
    const cloud = await startCloud(sqliteDir, databaseUrl);
    try {
      results[database] = await loadCloud(database, cloud.url, seeded);
    } finally {
      await stop(cloud.child);
    }
  }
  printTable();
} finally {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}
finish('cloud-postgres', results, checks);

/**
 * The edge seed made a cloud's: the site its yards belong to registered, and the edge's own change
 * log (rows for its cloud) dropped.
 */
function asCloudSeed(file: string): void {
  const db = new Database(file);
  db.prepare('DELETE FROM change_log').run();
  db.prepare('INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)').run(
    SITE,
    'Bench site',
    '$7$101$unused$unused',
    Date.now(),
  );
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** A fresh PostgreSQL database, migrated by the app itself, holding the SQLite seed's rows; its URL. */
async function copyToPostgres(c: PostgresCluster, sqliteFile: string): Promise<string> {
  const admin = new pg.Client({ connectionString: c.adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE bench_cloud');
  await admin.end();
  const url = c.adminUrl.replace(/\/postgres$/, '/bench_cloud');
  const db = await openAppDatabase(loadConfig({ YARD_DATABASE_URL: url }, { role: 'cloud', dataDir: dir }));
  if (db.dialect !== 'postgres') throw new Error('expected PostgreSQL');
  const sqlite = new Database(sqliteFile, { readonly: true });
  const t0 = performance.now();
  try {
    for (const table of TABLES) {
      const generated = new Set(
        (
          await db.pool.query<{ name: string }>(
            `SELECT column_name AS name FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = $1 AND is_generated <> 'NEVER'`,
            [table],
          )
        ).rows.map((r) => r.name),
      );
      const columns = (
        sqlite.prepare(`PRAGMA table_xinfo("${table}")`).all() as Array<{ name: string; hidden: number }>
      )
        .filter((col) => col.hidden === 0 && !generated.has(col.name))
        .map((col) => col.name);
      const perInsert = Math.floor(30_000 / columns.length);
      const read = sqlite.prepare(`SELECT ${columns.map((n) => `"${n}"`).join(', ')} FROM "${table}"`).raw();
      let rows: unknown[][] = [];
      let copied = 0;
      const flush = async () => {
        if (rows.length === 0) return;
        const values = rows.map(
          (_, r) => `(${columns.map((__, k) => `$${r * columns.length + k + 1}`).join(', ')})`,
        );
        await db.pool.query(
          `INSERT INTO "${table}" (${columns.map((n) => `"${n}"`).join(', ')}) VALUES ${values.join(', ')}`,
          rows.flat(),
        );
        copied += rows.length;
        rows = [];
      };
      for (const row of read.iterate() as Iterable<unknown[]>) {
        rows.push(row);
        if (rows.length >= perInsert) await flush();
      }
      await flush();
      process.stdout.write(`\r  PostgreSQL: ${table} ${copied} rows        `);
    }
    await db.pool.query('ANALYZE');
    console.log(`\n  copied into PostgreSQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    sqlite.close();
    await db.close();
  }
  return url;
}

/** The cloud process on the SQLite file in `dataDir`, or on PostgreSQL when `databaseUrl` is given. */
async function startCloud(dataDir: string, databaseUrl: string | undefined) {
  const port = await freePort();
  const args = existsSync('dist/cloud/main.js')
    ? [...PRODUCTION_NODE_ARGS, 'dist/cloud/main.js']
    : ['--import', 'tsx', 'cloud/main.ts'];
  console.log(`  node ${args.join(' ')}`);
  const child = spawn(process.execPath, args, {
    env: {
      ...env,
      YARD_DATA_DIR: databaseUrl ? join(dir, 'postgres-node') : dataDir,
      YARD_HTTP_PORT: String(port),
      YARD_MQTT_HOST: '127.0.0.1',
      YARD_MQTT_PORT: String(await freePort()),
      ...(databaseUrl ? { YARD_DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  while (performance.now() - started < 60_000) {
    if (child.exitCode !== null) throw new Error(`the cloud exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return { child, url };
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('the cloud did not become ready within 60 s');
}

async function loadCloud(
  database: string,
  url: string,
  seeded: { yardIds: string[]; gateIds: string[] },
): Promise<Record<string, unknown>> {
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench-password-1' }),
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
  const auth = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };

  const listPath = `/api/trailer?yardId=${seeded.yardIds[0]}&limit=50`;
  const sample = await fetch(`${url}${listPath}`, { headers: auth });
  if (sample.status !== 200)
    throw new Error(`trailer list answered ${sample.status}: ${await sample.text()}`);
  const bytes = (await sample.text()).length;
  console.log(`GET ${listPath} (${bytes} bytes), 50 connections, ${SECONDS} s...`);
  const listLoad = loadavg1();
  const list = await load({ url: `${url}${listPath}`, connections: 50, duration: SECONDS, headers: auth });
  console.log(`  ${summary(list)}`);

  // The write: gate movements belong to the yard's edge (the cloud answers them 409 edge-owned; the
  // cloud's movement writes are what the sites send, test/bench/sync-ingest.ts), so the cloud's
  // write here is its own master data: POST /api/trailer, a new trailer per request (change capture,
  // and a change-log row for the site, as every trailer goes to every site).
  const trailer = (k: number) => JSON.stringify({ number: `BN${k}`, type: 'dry_van', lengthFt: 53 });
  const first = await fetch(`${url}/api/trailer`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: trailer(0),
  });
  if (first.status !== 201) throw new Error(`trailer POST answered ${first.status}: ${await first.text()}`);
  let n = 0;
  console.log(`POST /api/trailer, 16 connections, ${SECONDS} s...`);
  const moveLoad = loadavg1();
  const move = await load({
    url: `${url}/api/trailer`,
    connections: 16,
    duration: SECONDS,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          n += 1;
          return { ...req, body: trailer(n) };
        },
      },
    ],
  });
  console.log(`  ${summary(move)}`);
  checks.push([
    `${database}: trailer list all 2xx (${list.non2xx} non-2xx, ${list.errors} errors)`,
    ok(list),
  ]);
  checks.push([
    `${database}: trailer POST all 2xx (${move.non2xx} non-2xx, ${move.errors} errors)`,
    ok(move),
  ]);
  return {
    trailerList: { ...list, bytes, loadavgBefore: listLoad },
    trailerPost: { ...move, loadavgBefore: moveLoad },
  };
}

function ok(r: LoadResult): boolean {
  return r.non2xx === 0 && r.errors === 0 && r.total > 0;
}

function summary(r: LoadResult): string {
  return `${r.requestsPerSec.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (${r.non2xx} non-2xx, ${r.errors} errors)`;
}

function loadavg1(): number {
  return Number(loadavg()[0]!.toFixed(2));
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function printTable(): void {
  console.log('\n                        requests/s   p50 ms   p99 ms   load avg');
  for (const [what, key] of [
    ['trailer list', 'trailerList'],
    ['trailer POST', 'trailerPost'],
  ] as const) {
    for (const database of DATABASES) {
      const r = (results[database] as Record<string, LoadResult & { loadavgBefore: number }> | undefined)?.[
        key
      ];
      if (!r) continue;
      console.log(
        `${`${what}, ${database}`.padEnd(24)}${r.requestsPerSec.toFixed(0).padStart(10)}   ${String(r.p50).padStart(6)}   ${String(r.p99).padStart(6)}   ${r.loadavgBefore.toFixed(1).padStart(8)}`,
      );
    }
  }
}
