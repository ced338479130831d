import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hashMosquittoPassword } from '../../shared/sync/mosquitto-password.js';
import { MosquittoProcess, mosquittoInstalled } from '../helpers/mosquitto-process.js';
import { freePort } from '../helpers/ports.js';
import {
  type BenchChild,
  type Check,
  finish,
  forkChild,
  ms,
  type Spread,
  spread,
  waitFor,
} from './sync-lib.js';
import { masterDataArrived } from './sync-offline-week.js';
import type { WorkloadRefs } from './sync-workload.js';

/**
 * A SQLite cloud keeps answering while sites drain their backlogs into it (docs/performance.md;
 * docs/sync.md "Apply, ack, resume": the apply goes in slices).
 *
 * BENCH_DRAIN_SITES (20) sites come back from a day offline at once, each with the same real
 * edge's offline work (BENCH_DRAIN_TARGET, 2500: the log rows it writes; 2,515 rows per site reach
 * the cloud), through Debian's Mosquitto (deploy config) to the real cloud process (cloud/main.ts: its
 * HTTP API, its read workers, its sync link) on its SQLite file (synchronous=FULL). Meanwhile a
 * client asks the cloud, at a fixed rate (BENCH_DRAIN_RPS, 40 a second, not waiting for answers,
 * so a stall is not hidden by asking less), in turn for the yards (a read on the main thread's
 * connection) and the all-yards trailer figures of the dashboard (a read worker's query, its cache
 * emptied by every applied slice that touches trailers). Reported: those answers' spread during the
 * drain (target p99 < 50 ms) and before it, the drain's time and rows a second (acknowledged rows).
 *
 * Before/after: BENCH_DRAIN_BEFORE=<commit> runs the cloud process of that commit's tree (`git
 * archive` into a temporary directory, node_modules linked) on the same seed, after this tree's run.
 *
 * Run: npx tsx test/bench/sync-drain-answers.ts   (BENCH_DRAIN_BEFORE=main for both)
 * The sites, the template edge and the seeding run from this tree (sync-node.ts, sync-sim-sites.ts).
 */
const SITES = Number(process.env.BENCH_DRAIN_SITES ?? 20);
const TARGET = Number(process.env.BENCH_DRAIN_TARGET ?? 2500);
const RPS = Number(process.env.BENCH_DRAIN_RPS ?? 40);
const ACK_TIMEOUT_MS = 10_000;
const P99_TARGET_MS = 50;
const SITE_PASSWORD = 'bench-site-password';
const CLOUD_PASSWORD = 'bench-cloud-password';
const ADMIN = { username: 'bench', password: 'bench-password-1' };
const siteId = (k: number) => `drain-${String(k).padStart(3, '0')}`;
if (!mosquittoInstalled) throw new Error("the drain benchmark runs Debian's Mosquitto: install mosquitto");

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-drain-'));
const baseEnv = {
  ...process.env,
  YARD_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  YARD_ADMIN_USER: ADMIN.username,
  YARD_ADMIN_PASSWORD: ADMIN.password,
};
type Done = {
  startedAt: number;
  endedAt: number;
  rows: number;
  bytes: number;
  batches: number;
  resent: number;
};
interface Figures {
  tree: string;
  rows: number;
  drainMs: number;
  rowsPerSec: number;
  resentBatches: number;
  quiet: Spread;
  during: Spread;
  duringByRoute: Record<string, Spread>;
  failedAnswers: number;
  loadavg: number[];
}

interface Seed {
  cloudDir: string;
  rowsFile: string;
  perSite: number;
  sitesFile: string;
}

/**
 * The cloud's sites with their master data (sync-node.ts on the cloud's SQLite file), one real
 * edge's offline work as every site's template; the file is copied for each measured run.
 */
async function seedOnce(brokerUrl: string): Promise<Seed> {
  const cloudDir = join(dir, 'cloud-seed');
  const cloud = await forkChild('test/bench/sync-node.ts', {
    ...baseEnv,
    YARD_ROLE: 'cloud',
    YARD_MQTT_URL: brokerUrl,
    YARD_MQTT_USERNAME: 'cloud',
    YARD_MQTT_PASSWORD: CLOUD_PASSWORD,
    YARD_DATA_DIR: cloudDir,
  });
  children.push(cloud);
  await cloud.call('start');
  console.log(`Registering ${SITES} sites at the cloud...`);
  const refs: WorkloadRefs[] = [];
  for (let k = 0; k < SITES; k++)
    refs.push(await cloud.call<WorkloadRefs>('seedSite', { siteId: siteId(k), drivers: 5, locations: 10 }));
  console.log(`A real edge of ${siteId(0)} writes its day offline (target ${TARGET} log rows)...`);
  const edge = await forkChild('test/bench/sync-node.ts', {
    ...baseEnv,
    YARD_ROLE: 'edge',
    YARD_SITE_ID: siteId(0),
    YARD_MQTT_URL: brokerUrl,
    YARD_MQTT_PASSWORD: SITE_PASSWORD,
    YARD_DATA_DIR: join(dir, 'edge'),
  });
  children.push(edge);
  await edge.call('start');
  await masterDataArrived(edge, refs[0]!);
  await waitFor(async () => (await edge.call<number>('queued')) === 0, { timeoutMs: 30_000, intervalMs: 50 });
  await edge.call('stop');
  await edge.call('generate', { refs: refs[0]!, target: TARGET });
  const rowsFile = join(dir, 'template-rows.json');
  const perSite = await edge.call<number>('exportLog', { peer: 'cloud', file: rowsFile });
  await edge.exit();
  await cloud.exit();
  const t = refs[0]!;
  const sitesFile = join(dir, 'sites.json');
  writeFileSync(
    sitesFile,
    JSON.stringify(
      refs.map((r, k) => ({
        siteId: siteId(k),
        index: k,
        ids: Object.fromEntries([
          [t.yardId, r.yardId],
          [t.staff.id, r.staff.id],
          ...t.locationIds.map((id, j) => [id, r.locationIds[j]]),
          ...t.driverIds.map((id, j) => [id, r.driverIds[j]]),
        ]),
      })),
    ),
  );
  return { cloudDir, rowsFile, perSite, sitesFile };
}

/** The cloud process of `root` on a copy of the seeded file; the sites drain into it while a client asks. */
async function measure(name: string, root: string, brokerUrl: string, seed: Seed): Promise<Figures> {
  console.log(`\n== the cloud of ${name} ==`);
  runs += 1;
  const dataDir = join(dir, `cloud-${runs}`);
  execFileSync('cp', ['-r', seed.cloudDir, dataDir]);
  const port = await freePort();
  const prof = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const cloud = spawn(process.execPath, ['--import', 'tsx', ...prof, join(root, 'cloud/main.ts')], {
    cwd: root,
    env: {
      ...baseEnv,
      YARD_ROLE: 'cloud',
      YARD_DATA_DIR: dataDir,
      YARD_HTTP_PORT: String(port),
      YARD_MQTT_URL: brokerUrl,
      YARD_MQTT_USERNAME: 'cloud',
      YARD_MQTT_PASSWORD: CLOUD_PASSWORD,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    const up = await waitFor(
      async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true,
      {
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );
    if (!up) throw new Error('the cloud did not answer /healthz within 60 s');
    const login = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = ((await login.json()) as { token: string }).token;
    const sim = await forkChild('test/bench/sync-sim-sites.ts', {
      ...process.env,
      SIM_URL: brokerUrl,
      SIM_PASSWORD: SITE_PASSWORD,
      SIM_ROWS_FILE: seed.rowsFile,
      SIM_SITES_FILE: seed.sitesFile,
      SIM_TEMPLATE_SITE: siteId(0),
      SIM_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS),
    });
    children.push(sim);
    const asker = new Asker(url, token);
    // The answers on a quiet cloud first (caches warm), then during the drain.
    await asker.run(3_000);
    const quiet = asker.take();
    const done = sim.next<Done>('done');
    const stop = asker.start();
    sim.child.send({ go: true });
    const d = await done;
    await stop();
    const during = asker.take();
    if (process.env.BENCH_DRAIN_WORST) {
      const t0 = during.all[0]?.at ?? 0;
      const worst = [...during.all].sort((a, b) => b.ms - a.ms).slice(0, 15);
      console.log(worst.map((w) => `${((w.at - t0) / 1000).toFixed(2)}s:${w.ms.toFixed(0)}ms`).join(' '));
    }
    await sim.exit();
    children.splice(children.indexOf(sim), 1);
    const drainMs = d.endedAt - d.startedAt;
    const figures: Figures = {
      tree: name,
      rows: d.rows,
      drainMs,
      rowsPerSec: (d.rows / drainMs) * 1000,
      resentBatches: d.resent,
      quiet: spread(quiet.all.map((a) => a.ms)),
      during: spread(during.all.map((a) => a.ms)),
      duringByRoute: Object.fromEntries(
        Object.keys(ROUTES).map((r) => [r, spread(during.all.filter((a) => a.route === r).map((a) => a.ms))]),
      ),
      failedAnswers: quiet.failed + during.failed,
      loadavg: loadavg(),
    };
    const line = (s: Spread) =>
      `p50 ${ms(s.p50, 1)} ms, p95 ${ms(s.p95, 1)}, p99 ${ms(s.p99, 1)}, max ${ms(s.max, 1)} (${s.n} answers)`;
    console.log(
      `  ${SITES} sites x ${seed.perSite} rows: drained in ${ms(drainMs / 1000)} s, ${figures.rowsPerSec.toFixed(0)} rows/s, ${d.resent} batches resent`,
    );
    console.log(`  answers on the quiet cloud: ${line(figures.quiet)}`);
    console.log(`  answers during the drain:   ${line(figures.during)}`);
    for (const [r, s] of Object.entries(figures.duringByRoute)) console.log(`    ${r.padEnd(18)} ${line(s)}`);
    console.log(
      `  load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    return figures;
  } finally {
    await stopProcess(cloud);
  }
}

const ROUTES = {
  yards: '/api/yard',
  'trailer figures': '/api/dashboard/yard/trailer',
} as const;

/** Asks the cloud at a fixed rate, alternating the routes, without waiting for answers. */
class Asker {
  private answers: Array<{ route: string; ms: number; at: number }> = [];
  private failed = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async run(forMs: number): Promise<void> {
    const stop = this.start();
    await new Promise((r) => setTimeout(r, forMs));
    await stop();
  }

  /** Starts asking; the returned function stops and waits for the answers still out. */
  start(): () => Promise<void> {
    const names = Object.keys(ROUTES) as Array<keyof typeof ROUTES>;
    let k = 0;
    const timer = setInterval(() => {
      const route = names[k++ % names.length]!;
      const t0 = performance.now();
      const p = fetch(`${this.url}${ROUTES[route]}`, { headers: { authorization: `Bearer ${this.token}` } })
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) this.failed += 1;
          this.answers.push({ route, ms: performance.now() - t0, at: t0 });
        })
        .catch(() => {
          this.failed += 1;
        })
        .finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }, 1000 / RPS);
    return async () => {
      clearInterval(timer);
      await Promise.all([...this.inFlight]);
    };
  }

  take(): { all: Array<{ route: string; ms: number; at: number }>; failed: number } {
    const out = { all: this.answers, failed: this.failed };
    this.answers = [];
    this.failed = 0;
    return out;
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** That commit's tree in a temporary directory, node_modules linked (removed with `dir`). */
function archive(commit: string): string {
  const root = join(dir, 'before-tree');
  mkdirSync(root, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${root}"`]);
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  return root;
}

/** Mosquitto with the deploy config on a loopback port; the cloud and every site in its password file. */
async function startMosquitto(brokerDir: string): Promise<string> {
  mkdirSync(brokerDir, { recursive: true });
  const passwdFile = join(brokerDir, 'passwd');
  const lines = [`cloud:${hashMosquittoPassword(CLOUD_PASSWORD)}`];
  const siteHash = hashMosquittoPassword(SITE_PASSWORD);
  for (let k = 0; k < SITES; k++) lines.push(`${siteId(k)}:${siteHash}`);
  writeFileSync(passwdFile, `${lines.join('\n')}\n`, { mode: 0o600 });
  const port = await freePort();
  broker = new MosquittoProcess({ dir: brokerDir, port, passwdFile });
  await broker.start();
  return `mqtt://127.0.0.1:${port}`;
}

const results: Record<string, unknown> = { sites: SITES, target: TARGET, rps: RPS };
const checks: Check[] = [];
const children: BenchChild[] = [];
let broker: MosquittoProcess | undefined;
let runs = 0;

async function main(): Promise<void> {
  try {
    const brokerUrl = await startMosquitto(join(dir, 'broker'));
    const seed = await seedOnce(brokerUrl);
    const runs: Array<[string, string]> = [['this tree', process.cwd()]];
    const before = process.env.BENCH_DRAIN_BEFORE;
    if (before) runs.push([before, archive(before)]);
    for (const [name, root] of runs) {
      const figures = await measure(name, root, brokerUrl, seed);
      results[name] = figures;
      if (name === 'this tree') {
        checks.push([
          `${name}: other requests during the drain p99 ${ms(figures.during.p99, 1)} ms < ${P99_TARGET_MS} ms`,
          figures.during.p99 < P99_TARGET_MS,
        ]);
        checks.push([
          `${name}: every answer 200 (${figures.failedAnswers} not)`,
          figures.failedAnswers === 0,
        ]);
      }
    }
  } finally {
    for (const c of children) await c.exit().catch(() => {});
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  finish('sync-drain-answers', results, checks);
}

await main();
