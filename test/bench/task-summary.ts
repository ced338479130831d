import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CamelCasePlugin, Kysely, SqliteDialect } from 'kysely';
import type { Kdb } from '../../shared/db/database.js';
import { summaryFigures } from '../../shared/modules/tasks/summary-repo.js';
import type { AppProcess } from '../helpers/sync-processes.js';
import { Api, figures, type RouteFigures } from './dashboard-http.js';
import { describeScale, scaleFrom } from './dashboard-scale.js';
import { dashboardDatabase } from './dashboard-seed.js';
import { verdict } from './lib.js';
import { BENCH_ADMIN, seededCloud } from './seeded-cloud.js';

/**
 * The all-yards task summary at an organisation's scale (docs/performance.md): the seeded
 * organisation of the dashboard benchmark (dashboard-seed.ts, cached), then
 * 1. the summary's statements (summary-repo.ts), each run alone on the seeded database: median
 *    time and SQLite's query plan (a temporary B-tree is a sort);
 * 2. the cloud, started as `npm run cloud` starts it on a copy of the seed, answering
 *    GET /api/yard-task/summary over real HTTP: one client (c1), then ten clients at once (c10),
 *    each one request at a time, against the target c10 p95 < 50 ms.
 *
 * Flags: the seed's scale flags (`--sites 10` for a quick run), --seconds S (10) per load run,
 * --seed FILE: a database seeded by an older schema (the cloud migrates its copy; the statements
 * of part 1 then run on that copy after the migration), --check exits 1 when the target fails,
 * --cpu-prof DIR: the cloud writes V8 CPU profiles there (its main thread and the read worker).
 */
const argv = process.argv.slice(2);
const flag = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const SECONDS = Number(flag('--seconds') ?? 10);
const CHECK = argv.includes('--check');
const CPU_PROFILE_DIR = flag('--cpu-prof');
const CLIENTS = 10;
const TARGET_P95_MS = 50;
const ADMIN = BENCH_ADMIN;
const PATH = '/api/yard-task/summary';

const scale = scaleFrom(argv);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(`Task summary benchmark: ${describeScale(scale)}`);
console.log(`  ${cpus().length} CPUs, Node ${process.version}, load average ${load()}`);
const seedFile = flag('--seed');
if (seedFile && !existsSync(seedFile)) throw new Error(`--seed ${seedFile}: no such file`);
const seeded = await dashboardDatabase(scale, seedFile ? { file: seedFile } : {});
console.log(`  seed ${seeded.file} (data up to ${new Date(seeded.anchor).toISOString()})`);

const dir = mkdtempSync(join(tmpdir(), 'yard-task-summary-bench-'));
let cloud: AppProcess | undefined;
let ok = true;
try {
  cloud = await seededCloud(seeded.file, dir, CPU_PROFILE_DIR);
  await cloud.start(); // migrates the copy
  await statements(join(dir, 'yard.db'));
  ok = await route(await Api.logIn(cloud.url, ADMIN.username, ADMIN.password));
} finally {
  await cloud?.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(CHECK && !ok ? 1 : 0);

/** Part 1: the statements summaryFigures sends for every yard, captured, then timed one by one. */
async function statements(file: string): Promise<void> {
  const sqlite = new Database(file, { readonly: true });
  const captured: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  const db = new Kysely<unknown>({
    dialect: new SqliteDialect({ database: sqlite }),
    plugins: [new CamelCasePlugin()],
    log: (e) => {
      if (e.level === 'query') captured.push({ sql: e.query.sql, parameters: e.query.parameters });
    },
  }) as unknown as Kdb;
  const now = Date.now();
  const yards = (sqlite.prepare('SELECT id FROM yard').all() as Array<{ id: string }>).map((y) => ({
    id: y.id,
    dayStart: now - (now % 86_400_000),
  }));
  await summaryFigures(db, yards, now - 86_400_000);
  console.log(
    `\n1. The summary's ${captured.length} statements for ${yards.length} yards, each alone (load ${load()})`,
  );
  for (const q of captured) {
    const st = sqlite.prepare(q.sql);
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < 21; i++) {
      const started = performance.now();
      rows = st.all(...q.parameters).length;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const plan = (
      sqlite.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.parameters) as Array<{ detail: string }>
    )
      .map((r) => r.detail)
      .join('; ');
    console.log(`  ${times[10]!.toFixed(2).padStart(7)} ms median, ${rows} rows: ${q.sql.slice(0, 90)}...`);
    console.log(`      plan: ${plan.replaceAll(/\?(, \?)+/g, '?, ...')}`);
  }
  sqlite.close();
}

/** Part 2: c1, then CLIENTS clients at once, each calling the route one request at a time. */
async function route(api: Api): Promise<boolean> {
  const first = await api.get(PATH);
  if (first.status !== 200) throw new Error(`${PATH} answered ${first.status}: ${first.body.slice(0, 300)}`);
  const items = (JSON.parse(first.body) as { items: unknown[] }).items.length;
  console.log(`\n2. GET ${PATH} (${items} yards, ${first.bytes} bytes), ${SECONDS} s per run`);
  const c1 = await clients(api, 1);
  console.log(`  c1:  ${line(c1.f)}, ${c1.perSecond.toFixed(0)} answers/s (load ${load()})`);
  const c10 = await clients(api, CLIENTS);
  const ok = c10.f.failures.length === 0 && c10.f.p95 < TARGET_P95_MS;
  console.log(
    `  c${CLIENTS}: ${line(c10.f)}, ${c10.perSecond.toFixed(0)} answers/s (load ${load()})  ` +
      `target p95 < ${TARGET_P95_MS} ms: ${verdict(ok)}`,
  );
  return ok;
}

async function clients(api: Api, n: number): Promise<{ f: RouteFigures; perSecond: number }> {
  const until = performance.now() + SECONDS * 1000;
  const times: number[] = [];
  const failures: RouteFigures['failures'] = [];
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (performance.now() < until) {
        const t = await api.get(PATH);
        if (t.status !== 200) failures.push({ status: t.status, body: t.body.slice(0, 200) });
        times.push(t.ms);
      }
    }),
  );
  return { f: { ...figures(times), failures }, perSecond: times.length / SECONDS };
}

function line(f: RouteFigures): string {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return `n ${f.n}, p50 ${ms(f.p50)}, p95 ${ms(f.p95)}, p99 ${ms(f.p99)}, max ${ms(f.max)}, ${f.failures.length} not 200`;
}
