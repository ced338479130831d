import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { startEmbeddedBroker } from '../../cloud/broker.js';
import { topicsFor } from '../../shared/sync/protocol.js';
import { isZlibStream } from '../../shared/sync/wire-encoding.js';
import { sqliteFloor } from './sync-floor.js';
import { type BenchChild, type Check, finish, forkChild, ms } from './sync-lib.js';
import { compareSides, prepareOfflineWeek, timedDrain } from './sync-offline-week.js';

/**
 * Catch-up after a week offline (target in docs/performance.md: "an edge with 150,000 queued changes drains to the cloud
 * over loopback in under 15 s, and at least 40 % of the rate of raw mqtt.js QoS 1 publishing of the
 * same bytes measured in the same run").
 *
 * Three processes, as in production: the edge and the cloud each run createApp with their real sync
 * runtime (test/bench/sync-node.ts, own SQLite file, synchronous=FULL) and talk mqtt.js to an
 * embedded Aedes broker that runs here, in the parent (which otherwise only waits).
 *  1. The cloud registers the site and makes its master data (yard, spots, yard drivers, admin); the
 *     edge links up and receives it.
 *  2. The edge's link goes down; the edge writes a week of yard work through its services
 *     (sync-workload.ts: location pings, gate movements, tasks) until BENCH_CATCHUP_CHANGES rows
 *     are queued. It then restarts (a fresh app on the same database, as after a reboot).
 *     (1 and 2: prepareOfflineWeek in sync-offline-week.ts, shared with sync-wire.ts.)
 *  3. Timed: from the edge's start() (link up) until its runtime reports nothing unacknowledged,
 *     i.e. the cloud applied and acknowledged the last row. Then the cloud's applied position, dead
 *     letters and per-entity counts and checksums (entityChecksums) on both sides are compared.
 *  4. Raw baseline: the batch payloads the edge published (captured at the broker, first
 *     transmissions) are published again by a bare mqtt.js client in its own process, QoS 1, with at
 *     most sync.window (8) unacknowledged, to a bare mqtt.js subscriber in another process, through
 *     the same broker: from the first publish until the subscriber has the last message.
 *  5. Floor (no target): the same batches written by plain better-sqlite3 into a fresh database
 *     (sync-floor.ts), to show what any durable receiver costs on this machine.
 * Reported: rows/s and MB/s of both and their ratio. Targets: drain < 15 s, ratio >= 40 %.
 *
 * Run: npx tsx test/bench/sync-catchup.ts
 * BENCH_CATCHUP_CHANGES (150000) queued rows; BENCH_CATCHUP_DRIVERS (10) drivers in the workload.
 */
const CHANGES = Number(process.env.BENCH_CATCHUP_CHANGES ?? 150_000);
const DRIVERS = Number(process.env.BENCH_CATCHUP_DRIVERS ?? 10);
const TARGET_MS = 15_000;
const TARGET_RATIO = 0.4;
const WINDOW = 8;
const SITE = 'bench-site';

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-catchup-'));
const broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
const topics = topicsFor(SITE);
const baseEnv = {
  ...process.env,
  YARD_MQTT_URL: broker.url,
  YARD_LOG_LEVEL: 'warn',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
};
const children: BenchChild[] = [];
const results: Record<string, unknown> = {
  changes: CHANGES,
  drivers: DRIVERS,
  processes: 'edge, cloud and broker in 3 processes',
};
const checks: Check[] = [];

/** First transmission of each batch the edge publishes (by `from`), and how many were sent again. */
const captured = new Map<number, Buffer>();
let capturing = false;
let resent = 0;
let resentBytes = 0;
broker.aedes.on('publish', (packet, client) => {
  if (!capturing || !client || packet.topic !== topics.upChanges) return;
  const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
  const head = isZlibStream(payload) ? inflateSync(payload).subarray(0, 300) : payload.subarray(0, 300);
  const from = Number(/"from":(\d+)/.exec(head.toString())?.[1]);
  if (captured.has(from)) {
    resent++;
    resentBytes += payload.length;
  } else captured.set(from, payload);
});

try {
  const {
    cloud,
    edge,
    generated,
    queued,
    topSeq: top,
  } = await prepareOfflineWeek({
    dir,
    env: baseEnv,
    siteId: SITE,
    changes: CHANGES,
    drivers: DRIVERS,
    children,
  });
  results.generated = { ...generated, queued };

  // The cloud as it is before the drain, for the apply-only figure below.
  mkdirSync(join(dir, 'cloud-before'));
  await cloud.call('backup', { file: join(dir, 'cloud-before', 'yard.db') });
  console.log(`Link up: draining ${queued} queued rows...`);
  // CPU seconds of each process during the drain (the parent's is the broker's): on 2 cores the three
  // share, the sum bounds how fast the drain can be.
  const cpuBefore = await Promise.all([
    edge.call<NodeJS.CpuUsage>('cpu'),
    cloud.call<NodeJS.CpuUsage>('cpu'),
  ]);
  const brokerBefore = process.cpuUsage();
  capturing = true;
  const drainMs = await timedDrain(edge, 120_000);
  capturing = false;
  const brokerCpu = process.cpuUsage(brokerBefore);
  const cpuAfter = await Promise.all([edge.call<NodeJS.CpuUsage>('cpu'), cloud.call<NodeJS.CpuUsage>('cpu')]);
  const cpuSec = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user - a.user + b.system - a.system) / 1e6;
  const cpu = {
    edgeSec: cpuSec(cpuBefore[0], cpuAfter[0]),
    cloudSec: cpuSec(cpuBefore[1], cpuAfter[1]),
    brokerSec: (brokerCpu.user + brokerCpu.system) / 1e6,
  };
  const compared = await compareSides(cloud, edge, { siteId: SITE, topSeq: top });
  await edge.exit();
  await cloud.exit();

  const payloads = [...captured.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => p);
  const bytes = payloads.reduce((n, p) => n + p.length, 0);
  const sync = {
    ms: drainMs,
    rows: queued,
    batches: payloads.length,
    bytes,
    resentBatches: resent,
    resentBytes,
    rowsPerSec: (queued / drainMs) * 1000,
    mbPerSec: bytes / 1e6 / (drainMs / 1000),
    cpu,
  };
  console.log(
    `  drained in ${ms(drainMs / 1000)} s: ${sync.rowsPerSec.toFixed(0)} rows/s, ${ms(sync.mbPerSec)} MB/s ` +
      `(${payloads.length} batches, ${ms(bytes / 1e6)} MB, ${resent} resent)`,
  );
  console.log(
    `  CPU during the drain: edge ${ms(cpu.edgeSec)} s, cloud ${ms(cpu.cloudSec)} s, broker ${ms(cpu.brokerSec)} s`,
  );

  console.log(`Raw mqtt.js QoS 1: the same ${payloads.length} payloads, window ${WINDOW}...`);
  const raw = await rawPublish(payloads);
  const rawRate = bytes / raw.ms;
  const ratio = sync.ms > 0 ? raw.ms / sync.ms : Number.NaN;
  results.sync = sync;
  results.raw = { ...raw, rowsPerSec: (queued / raw.ms) * 1000, mbPerSec: rawRate / 1e3 };
  results.ratio = ratio;
  results.applied = compared.applied;
  console.log(
    `  raw: ${ms(raw.ms / 1000)} s, ${((queued / raw.ms) * 1000).toFixed(0)} rows/s, ${ms(rawRate / 1e3)} MB/s`,
  );

  console.log('Apply only: the same batches through ChangeApplier on the cloud database as it was...');
  const applyOnly = await applyWithoutMqtt();
  results.applyOnly = {
    ...applyOnly,
    rowsPerSec: (applyOnly.rows / (applyOnly.decodeMs + applyOnly.applyMs)) * 1000,
  };
  console.log(
    `  decode (inflate, JSON + zod) ${ms(applyOnly.decodeMs / 1000)} s, apply ${ms(applyOnly.applyMs / 1000)} s: ` +
      `${((applyOnly.rows / (applyOnly.decodeMs + applyOnly.applyMs)) * 1000).toFixed(0)} rows/s`,
  );

  console.log('Floor: the same batches written by plain better-sqlite3, one transaction each...');
  const floor = sqliteFloor(payloads, join(dir, 'floor', 'floor.db'));
  results.floor = { ...floor, rowsPerSec: (floor.rows / floor.ms) * 1000, mbPerSec: bytes / 1e3 / floor.ms };
  console.log(
    `  floor: ${ms(floor.ms / 1000)} s, ${((floor.rows / floor.ms) * 1000).toFixed(0)} rows/s, ${ms(bytes / 1e3 / floor.ms)} MB/s ` +
      `(= ${((raw.ms / floor.ms) * 100).toFixed(0)} % of raw)`,
  );
  checks.push([
    `catch-up of ${queued} rows in ${ms(drainMs / 1000)} s < ${TARGET_MS / 1000} s`,
    drainMs < TARGET_MS,
  ]);
  checks.push([
    `sync rate ${ms(sync.mbPerSec)} MB/s = ${(ratio * 100).toFixed(0)} % of raw mqtt.js QoS 1 (${ms(rawRate / 1e3)} MB/s) >= ${TARGET_RATIO * 100} %`,
    ratio >= TARGET_RATIO,
  ]);
  checks.push([`at least ${CHANGES} rows were queued (${queued})`, queued >= CHANGES]);
  checks.push(...compared.checks);
} finally {
  for (const c of children) await c.exit();
  await broker.stop();
  // BENCH_CATCHUP_KEEP=1 keeps the databases and payloads for a closer look (profiling).
  if (process.env.BENCH_CATCHUP_KEEP) console.log(`Kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
finish('sync-catchup', results, checks);

/** The receiver's cost alone: a cloud process on the pre-drain copy applies the payloads file. */
async function applyWithoutMqtt() {
  // On a copy: cloud-before stays as it was (BENCH_CATCHUP_KEEP, for a closer look).
  cpSync(join(dir, 'cloud-before'), join(dir, 'cloud-apply'), { recursive: true });
  const node = await forkChild('test/bench/sync-node.ts', {
    ...baseEnv,
    YARD_ROLE: 'cloud',
    YARD_DATA_DIR: join(dir, 'cloud-apply'),
  });
  children.push(node);
  try {
    return await node.call<{ batches: number; rows: number; decodeMs: number; applyMs: number }>(
      'applyOnly',
      {
        file: join(dir, 'payloads.bin'),
        peer: SITE,
        group: WINDOW,
      },
    );
  } finally {
    await node.exit();
  }
}

/** Publishes the payloads from one bare mqtt.js process to another through the broker. */
async function rawPublish(payloads: Buffer[]): Promise<{ ms: number; publishMs: number; messages: number }> {
  const file = join(dir, 'payloads.bin');
  writeFileSync(
    file,
    Buffer.concat(
      payloads.flatMap((p) => {
        const length = Buffer.alloc(4);
        length.writeUInt32BE(p.length);
        return [length, p];
      }),
    ),
  );
  const env = {
    ...process.env,
    RAW_URL: broker.url,
    RAW_TOPIC: 'yards/raw-bench/up/changes',
    RAW_WINDOW: String(WINDOW),
  };
  const sub = await forkChild('test/bench/sync-raw-node.ts', { ...env, RAW_MODE: 'sub' });
  const pub = await forkChild('test/bench/sync-raw-node.ts', { ...env, RAW_MODE: 'pub' });
  children.push(sub, pub);
  try {
    sub.child.send({ expect: payloads.length });
    const done = sub.next<{ at: number; count: number }>('done');
    const published = pub.next<{ startedAt: number; endedAt: number }>('published');
    pub.child.send({ go: file });
    const [d, p] = await Promise.all([done, published]);
    return { ms: d.at - p.startedAt, publishMs: p.endedAt - p.startedAt, messages: d.count };
  } finally {
    await pub.exit();
    await sub.exit();
  }
}
