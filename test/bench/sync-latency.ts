import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedBroker } from '../../cloud/broker.js';
import type { Principal } from '../../shared/auth/principal.js';
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
import type { WorkloadRefs } from './sync-workload.js';

/**
 * Online sync latency (target in docs/performance.md: "a write at one side visible at the other, p95 under 1 s").
 *
 * Three processes as in production: edge and cloud (test/bench/sync-node.ts: createApp on their own
 * SQLite files with the real sync runtimes over mqtt.js) and the embedded Aedes broker here. With
 * the link up, both directions at once, each at BENCH_LATENCY_RATE (10) writes per second with
 * random (exponential) gaps, BENCH_LATENCY_WRITES (300) each:
 *  - edge -> cloud: a gate check-in (movements service, as POST /api/movement), timed from the
 *    commit at the edge until the movement row is in the cloud's database;
 *  - cloud -> edge: a dispatcher's new yard task (tasks service, as POST /api/yard-task), timed from
 *    the commit at the cloud until the task row is in the edge's database.
 * The receiving process notices new rows by polling its table every millisecond (rowid > last), so
 * a figure is at most about a millisecond late. Times are epoch ms taken in each process.
 * Target: p95 under 1 s in both directions.
 *
 * Run: npx tsx test/bench/sync-latency.ts
 */
const WRITES = Number(process.env.BENCH_LATENCY_WRITES ?? 300);
const RATE = Number(process.env.BENCH_LATENCY_RATE ?? 10);
const WARMUP = 10;
const TARGET_P95_MS = 1_000;
const SITE = 'latency-site';

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-latency-'));
const broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
const baseEnv = {
  ...process.env,
  YARD_MQTT_URL: broker.url,
  YARD_LOG_LEVEL: 'warn',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
};
const children: BenchChild[] = [];
const results: Record<string, unknown> = {
  writes: WRITES,
  ratePerSec: RATE,
  processes: 'edge, cloud and broker in 3 processes',
};
const checks: Check[] = [];

interface Written {
  id: string;
  at: number;
}

/** `count` writes with exponential gaps of mean 1/RATE s; each write's promise is kept, not awaited. */
async function paced(count: number, write: (i: number) => Promise<Written>): Promise<Written[]> {
  const pending: Array<Promise<Written>> = [];
  for (let i = 0; i < count; i++) {
    pending.push(write(i));
    const gap = -Math.log(1 - Math.random()) * (1000 / RATE);
    await new Promise((r) => setTimeout(r, gap));
  }
  return Promise.all(pending);
}

/** Waits until every written id was seen at the other side; returns the latencies in ms. */
async function latencies(receiver: BenchChild, table: string, written: Written[]): Promise<number[]> {
  let seen: Record<string, number> = {};
  await waitFor(
    async () => {
      seen = await receiver.call<Record<string, number>>('seen', { table });
      return written.every((w) => w.id in seen);
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return written.filter((w) => w.id in seen).map((w) => seen[w.id]! - w.at);
}

try {
  const cloud = await forkChild('test/bench/sync-node.ts', {
    ...baseEnv,
    YARD_ROLE: 'cloud',
    YARD_DATA_DIR: join(dir, 'cloud'),
  });
  children.push(cloud);
  await cloud.call('start');
  const refs = await cloud.call<WorkloadRefs>('seedSite', { siteId: SITE, drivers: 2, locations: 2 });
  const edge = await forkChild('test/bench/sync-node.ts', {
    ...baseEnv,
    YARD_ROLE: 'edge',
    YARD_SITE_ID: SITE,
    YARD_DATA_DIR: join(dir, 'edge'),
  });
  children.push(edge);
  await edge.call('start');
  const linked = await waitFor(
    async () =>
      (await edge.call<boolean>('has', { table: 'yard', ids: [refs.yardId] })) &&
      (await edge.call<boolean>('has', { table: 'app_user', ids: [refs.staff.id] })),
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  if (!linked) throw new Error("the cloud's master data did not reach the edge within 30 s");
  await cloud.call('watch', { table: 'movement' });
  await edge.call('watch', { table: 'yard_task' });

  const staff: Principal = refs.staff;
  const up = (i: number) =>
    edge.call<Written>('writeMovement', { yardId: refs.yardId, number: `LAT${i}`, staff });
  const down = (i: number) =>
    cloud.call<Written>('writeTask', { yardId: refs.yardId, staff, notes: `latency ${i}` });

  console.log(`Warm-up: ${WARMUP} writes each way...`);
  await latencies(cloud, 'movement', await paced(WARMUP, (i) => up(-1 - i)));
  await latencies(edge, 'yard_task', await paced(WARMUP, (i) => down(-1 - i)));

  console.log(`Both directions at ${RATE}/s each, ${WRITES} writes each way...`);
  const [ups, downs] = await Promise.all([paced(WRITES, up), paced(WRITES, down)]);
  const figures: Record<string, Spread & { missing: number }> = {};
  for (const [name, receiver, table, written] of [
    ['edge -> cloud (movement)', cloud, 'movement', ups],
    ['cloud -> edge (yard task)', edge, 'yard_task', downs],
  ] as const) {
    const values = await latencies(receiver, table, written);
    const f = { ...spread(values), missing: written.length - values.length };
    figures[name] = f;
    console.log(
      `  ${name.padEnd(26)} n ${f.n}  p50 ${ms(f.p50, 1)}  p95 ${ms(f.p95, 1)}  p99 ${ms(f.p99, 1)}  max ${ms(f.max, 1)} ms`,
    );
    checks.push([
      `${name}: p95 ${ms(f.p95, 1)} ms < ${TARGET_P95_MS} ms (p50 ${ms(f.p50, 1)}, p99 ${ms(f.p99, 1)}), ${f.missing} not arrived`,
      f.p95 < TARGET_P95_MS && f.missing === 0,
    ]);
  }
  results.latency = figures;
} finally {
  for (const c of children) await c.exit();
  await broker.stop();
  rmSync(dir, { recursive: true, force: true });
}
finish('sync-latency', results, checks);
