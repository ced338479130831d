import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { freePort } from '../helpers/ports.js';
import { ask, forkServer, load, stopChild, verdict } from './lib.js';
import { seedBenchDatabase } from './seed.js';

/**
 * The foundation's benchmarks (targets in docs/performance.md). Run with `npm run bench`.
 * Sizes: BENCH_TRAILERS (10000), BENCH_MOVEMENTS (1000000), BENCH_SECONDS per load run (10).
 */
// The same Node flags the pm2 process file gives the edge in production.
const PRODUCTION_NODE_ARGS: string[] = createRequire(import.meta.url)('../../deploy/ecosystem.config.cjs')
  .apps[0].node_args;
const TRAILERS = Number(process.env.BENCH_TRAILERS ?? 10_000);
const MOVEMENTS = Number(process.env.BENCH_MOVEMENTS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const results: Record<string, unknown> = {
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
};
const checks: Array<[string, boolean]> = [];

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-'));
const dbFile = join(dir, 'yard.db');
const env = {
  ...process.env,
  YARD_DATA_DIR: dir,
  YARD_HTTP_PORT: '0',
  YARD_HTTP_HOST: '127.0.0.1',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
  YARD_LOG_LEVEL: 'warn',
};

try {
  console.log(`Seeding ${TRAILERS} trailers and ${MOVEMENTS} movements...`);
  const t0 = performance.now();
  const { yardIds, gateIds } = seedBenchDatabase(dbFile, {
    trailers: TRAILERS,
    movements: MOVEMENTS,
    onProgress: (n) => process.stdout.write(`\r  ${n} movements`),
  });
  console.log(`\n  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // Cold start: process spawn -> /readyz answers 200, on the seeded database.
  const cold = await coldStart();
  results.coldStartMs = Math.round(cold);
  checks.push([`cold start to ready ${cold.toFixed(0)} ms < 2000 ms`, cold < 2000]);

  const edge = await startBuiltEdge();
  const bare = await forkServer('test/bench/bare-server.ts', env);
  const token = await login(edge.url);
  const auth = { authorization: `Bearer ${token}` };

  // 1. Trailer list vs a bare express route answering the same bytes.
  const listPath = `/api/trailer?yardId=${yardIds[0]}&limit=50`;
  const sample = await fetch(`${edge.url}${listPath}`, { headers: auth });
  if (sample.status !== 200)
    throw new Error(`trailer list answered ${sample.status}: ${await sample.text()}`);
  const bytes = await sample.text();
  await ask(bare.child, { body: bytes }, 'loaded');
  console.log(`GET ${listPath} (${bytes.length} bytes), 50 connections, ${SECONDS} s each...`);
  const bareRun = await load({ url: `${bare.url}/bare`, connections: 50, duration: SECONDS });
  const listRun = await load({
    url: `${edge.url}${listPath}`,
    connections: 50,
    duration: SECONDS,
    headers: auth,
  });
  const ratio = listRun.requestsPerSec / bareRun.requestsPerSec;
  results.trailerList = { edge: listRun, bare: bareRun, ratio };
  checks.push([
    `trailer list ${listRun.requestsPerSec.toFixed(0)} req/s = ${(ratio * 100).toFixed(0)}% of bare (>= 40%)`,
    ratio >= 0.4,
  ]);
  checks.push([`trailer list p99 ${listRun.p99} ms < 25 ms`, listRun.p99 < 25]);
  checks.push([`trailer list non-2xx ${listRun.non2xx} = 0`, listRun.non2xx === 0 && listRun.errors === 0]);

  // 2. POST /api/movement: each request checks a new trailer in (creates it, opens a visit, logs changes).
  let n = 0;
  console.log(`POST /api/movement, 16 connections, ${SECONDS} s...`);
  const moveRun = await load({
    url: `${edge.url}/api/movement`,
    connections: 16,
    duration: SECONDS,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          n += 1;
          const yard = n % 3;
          return {
            ...req,
            body: JSON.stringify({
              yardId: yardIds[yard],
              gateId: gateIds[yard],
              direction: 'in',
              trailer: { number: `BN${n}` },
              loadStatus: 'loaded',
            }),
          };
        },
      },
    ],
  });
  const bareTx = bareSqliteFullRate(join(dir, 'bare.db'));
  results.movementPost = { ...moveRun, bareSqliteTxPerSec: bareTx, ratio: moveRun.requestsPerSec / bareTx };
  checks.push([
    `movement POST ${moveRun.requestsPerSec.toFixed(0)}/s >= 1000/s (bare FULL tx ${bareTx.toFixed(0)}/s, ratio ${(moveRun.requestsPerSec / bareTx).toFixed(2)})`,
    moveRun.requestsPerSec >= 1000,
  ]);
  checks.push([`movement POST non-2xx ${moveRun.non2xx} = 0`, moveRun.non2xx === 0 && moveRun.errors === 0]);

  const rss = rssOf(edge.child.pid!);
  results.rssMb = Math.round(rss / 1048576);
  checks.push([
    `edge RSS after the benchmark ${(rss / 1048576).toFixed(0)} MB < 150 MB`,
    rss < 150 * 1048576,
  ]);
  edge.child.kill('SIGTERM');
  await stopChild(bare.child);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log('\nResults');
for (const [text, ok] of checks) console.log(`  ${verdict(ok)}  ${text}`);
mkdirSync('test/bench/results', { recursive: true });
writeFileSync(
  'test/bench/results/latest.json',
  `${JSON.stringify({ at: new Date().toISOString(), results, checks }, null, 2)}\n`,
);
console.log('Details: test/bench/results/latest.json');
process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench-password-1' }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** The production artifact (`node <pm2 node_args> dist/edge/main.js`) on the seeded database. */
async function startBuiltEdge() {
  const port = await freePort();
  // BENCH_CPU_PROF=<dir>: the edge writes V8 CPU profiles there (its main thread and read worker).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const child = spawn(process.execPath, [...PRODUCTION_NODE_ARGS, ...profile, 'dist/edge/main.js'], {
    env: { ...env, YARD_HTTP_PORT: String(port) },
    stdio: 'inherit',
  });
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  while (performance.now() - started < 30_000) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return { child, url };
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('edge did not become ready');
}

/** Resident set size of a process, from /proc (Linux). */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Spawn the production entry point (compiled JS if built, else through tsx) and time it to /readyz = 200. */
async function coldStart(): Promise<number> {
  const port = await freePort();
  const { existsSync } = await import('node:fs');
  const args = existsSync('dist/edge/main.js')
    ? [...PRODUCTION_NODE_ARGS, 'dist/edge/main.js']
    : ['--import', 'tsx', 'edge/main.ts'];
  console.log(`Cold start: node ${args.join(' ')}`);
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...env, YARD_HTTP_PORT: String(port) },
    stdio: 'ignore',
  });
  try {
    while (performance.now() - started < 30_000) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200)
          return performance.now() - started;
      } catch {
        // not yet listening
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('edge did not become ready within 30 s');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** The floor: one small INSERT per transaction with synchronous=FULL, for 3 seconds. */
function bareSqliteFullRate(file: string): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const tx = db.transaction((v: string) => insert.run(v));
  const end = performance.now() + 3000;
  let count = 0;
  while (performance.now() < end) {
    tx('x'.repeat(200));
    count++;
  }
  db.close();
  return count / 3;
}
