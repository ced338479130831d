import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedBroker } from '../../cloud/broker.js';
import { topicsFor } from '../../shared/sync/protocol.js';
import { freePort } from '../helpers/ports.js';
import { shapedLink } from '../helpers/shaped-link.js';
import { type BenchChild, type Check, finish, ms } from './sync-lib.js';
import { compareSides, forkSyncNode, prepareOfflineWeek, timedDrain } from './sync-offline-week.js';

/**
 * The week-offline catch-up on the wire (docs/sync.md "On the wire"; figures in docs/performance.md): what a yard's backlog costs
 * on a slow uplink, with the sync batches compressed and not.
 *
 * The workload is sync-catchup.ts's (sync-offline-week.ts): a cloud and an edge, each a process with
 * its real sync runtime and SQLite file, and 150,000 changes queued at the edge. It is made once;
 * each run below starts from a copy of both data directories, with a fresh embedded Aedes broker
 * (here, in the parent) so no MQTT session carries over, and times from the edge's start (the link
 * comes back) until the cloud has acknowledged its last row. Runs, per compression:
 *  - unshaped: the edge talks to the broker over loopback, as sync-catchup.ts measures it;
 *  - shaped: the edge's MQTT connection goes through test/helpers/shaped-link.ts, a TCP proxy that
 *    makes the link 10 Mbit/s each way with 80 ms round trip (40 ms each way), as a yard's LTE
 *    uplink; the cloud stays on loopback (a data centre). The proxy counts the bytes each way.
 * Compression is chosen with YARD_SYNC_COMPRESSION in both nodes' environment (the nodes read their
 * config from it, as the real processes do); a build that does not know it ignores it, and then both
 * runs of a kind send the same bytes.
 * Reported: drain time, rows/s, bytes on the wire per row (both directions, at the proxy), the change
 * batches' MQTT payload bytes per row (at the broker, every run), CPU seconds of edge and cloud.
 * Targets (docs/performance.md), with deflate: < 60 bytes a row on the wire and a shaped drain < 20 s (at
 * 150,000 rows); unshaped no slower than without compression beyond noise (NOISE).
 *
 * Run: npx tsx test/bench/sync-wire.ts [--rows 150000] [--compression none,deflate]
 */
const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '150000' },
    compression: { type: 'string', default: 'none,deflate' },
    drivers: { type: 'string', default: '10' },
  },
});
const ROWS = Number(args.rows);
const DRIVERS = Number(args.drivers);
const COMPRESSIONS = args.compression.split(',').map((c) => c.trim());
if (!(ROWS > 0) || COMPRESSIONS.some((c) => c !== 'none' && c !== 'deflate')) {
  throw new Error('usage: sync-wire.ts [--rows N] [--compression none,deflate]');
}
/** The environment variable of config key sync.compression ('deflate' | 'none'). */
const COMPRESSION_ENV = 'YARD_SYNC_COMPRESSION';
/** The yard's uplink: docs/performance.md's 10 Mbit/s each way and 80 ms round trip. */
const LINK = { bitsPerSecond: 10e6, rttMs: 80 };
const TARGET_BYTES_PER_ROW = 60;
const TARGET_SHAPED_MS = 20_000;
/** The shaped drain target is for the full week; a quicker run only reports. */
const TARGET_ROWS = 150_000;
/** "No slower beyond noise": unshaped with deflate within this fraction of without (2 shared cores). */
const NOISE = 0.2;
const SITE = 'bench-site';
const LINK_TEXT = `${LINK.bitsPerSecond / 1e6} Mbit/s, ${LINK.rttMs} ms RTT`;

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-wire-'));
const children: BenchChild[] = [];
const baseEnv = {
  ...process.env,
  YARD_LOG_LEVEL: 'warn',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
};
const checks: Check[] = [];

interface Run {
  compression: string;
  shaped: boolean;
  rows: number;
  drainMs: number;
  /** Bytes on the wire through the proxy (shaped runs only). */
  wire?: { up: number; down: number; connections: number };
  /** MQTT payload bytes of the edge's change batches as the broker got them (resends included). */
  batchBytes: number;
  batches: number;
  cpu: { edgeSec: number; cloudSec: number };
}
const runs: Run[] = [];

try {
  const week = await prepareWeek();
  // Unshaped twice each in A B B A order, so neither compression always runs first (a cold cache)
  // or last (a warmer machine); the shaped runs are bound by the link, once each.
  const plan = [
    ...[...COMPRESSIONS, ...[...COMPRESSIONS].reverse()].map((compression) => ({
      compression,
      shaped: false,
    })),
    ...COMPRESSIONS.map((compression) => ({ compression, shaped: true })),
  ];
  for (const { compression, shaped } of plan) runs.push(await drainOnce(compression, shaped, week));
  printTable();
  judge(week.queued);
} finally {
  for (const c of children) await c.exit();
  rmSync(dir, { recursive: true, force: true });
}
finish('sync-wire', { rows: ROWS, drivers: DRIVERS, link: LINK, noise: NOISE, runs }, checks);

/** The week of work, made once over loopback; both nodes then exit, leaving their data directories. */
async function prepareWeek(): Promise<{ queued: number; topSeq: number }> {
  const broker = await startEmbeddedBroker({ port: await freePort(), host: '127.0.0.1' });
  try {
    const week = await prepareOfflineWeek({
      dir: join(dir, 'week'),
      env: { ...baseEnv, YARD_MQTT_URL: broker.url },
      siteId: SITE,
      changes: ROWS,
      drivers: DRIVERS,
      children,
    });
    await week.edge.exit();
    await week.cloud.exit();
    checks.push([`at least ${ROWS} rows were queued (${week.queued})`, week.queued >= ROWS]);
    return { queued: week.queued, topSeq: week.topSeq };
  } finally {
    await broker.stop();
  }
}

/** One catch-up from copies of the week's data directories, over a fresh broker (and link). */
async function drainOnce(
  compression: string,
  shaped: boolean,
  week: { queued: number; topSeq: number },
): Promise<Run> {
  const name = `${compression}, ${shaped ? LINK_TEXT : 'loopback'}`;
  const runDir = join(dir, `${compression}-${shaped ? 'shaped' : 'loopback'}`);
  cpSync(join(dir, 'week'), runDir, { recursive: true });
  const broker = await startEmbeddedBroker({ port: await freePort(), host: '127.0.0.1' });
  const link = shaped
    ? await shapedLink({
        target: { port: broker.port },
        upBitsPerSecond: LINK.bitsPerSecond,
        downBitsPerSecond: LINK.bitsPerSecond,
        latencyMs: LINK.rttMs / 2,
      })
    : undefined;
  const upChanges = topicsFor(SITE).upChanges;
  let batchBytes = 0;
  let batches = 0;
  broker.aedes.on('publish', (packet, client) => {
    if (!client || packet.topic !== upChanges) return;
    const payload = packet.payload;
    batchBytes += Buffer.isBuffer(payload) ? payload.length : Buffer.byteLength(payload);
    batches++;
  });
  try {
    const env = { ...baseEnv, [COMPRESSION_ENV]: compression };
    const node = { siteId: SITE, children };
    const cloud = await forkSyncNode('cloud', {
      ...node,
      dataDir: join(runDir, 'cloud'),
      env: { ...env, YARD_MQTT_URL: broker.url },
    });
    const edge = await forkSyncNode('edge', {
      ...node,
      dataDir: join(runDir, 'edge'),
      env: { ...env, YARD_MQTT_URL: link?.url ?? broker.url },
    });
    await cloud.call('start');
    console.log(`${name}: draining ${week.queued} queued rows...`);
    const cpuBefore = await Promise.all([
      edge.call<NodeJS.CpuUsage>('cpu'),
      cloud.call<NodeJS.CpuUsage>('cpu'),
    ]);
    // The slowest run (no compression over the shaped link) moves ~550 bytes a row at 10 Mbit/s.
    const timeoutMs = Math.max(120_000, ((week.queued * 600 * 8) / LINK.bitsPerSecond) * 4 * 1000);
    const drainMs = await timedDrain(edge, timeoutMs);
    const wire = link && { ...link.bytes, connections: link.connections };
    const cpuAfter = await Promise.all([
      edge.call<NodeJS.CpuUsage>('cpu'),
      cloud.call<NodeJS.CpuUsage>('cpu'),
    ]);
    const cpuSec = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user - a.user + b.system - a.system) / 1e6;
    const compared = await compareSides(cloud, edge, { siteId: SITE, topSeq: week.topSeq });
    checks.push(...compared.checks.map(([text, ok]): Check => [`${name}: ${text}`, ok]));
    await edge.exit();
    await cloud.exit();
    const run: Run = {
      compression,
      shaped,
      rows: week.queued,
      drainMs,
      ...(wire ? { wire } : {}),
      batchBytes,
      batches,
      cpu: { edgeSec: cpuSec(cpuBefore[0], cpuAfter[0]), cloudSec: cpuSec(cpuBefore[1], cpuAfter[1]) },
    };
    console.log(
      `  ${ms(drainMs / 1000)} s` +
        (wire ? `, ${ms((wire.up + wire.down) / run.rows, 1)} B/row on the wire` : '') +
        `, batches ${ms(batchBytes / run.rows, 1)} B/row`,
    );
    return run;
  } finally {
    await link?.close();
    await broker.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

function printTable(): void {
  const header = [
    'compression',
    'link',
    'drain s',
    'rows/s',
    'wire up MB',
    'wire down kB',
    'wire B/row',
    'batches B/row',
    'CPU edge s',
    'CPU cloud s',
  ];
  const rows = runs.map((r) => [
    r.compression,
    r.shaped ? LINK_TEXT : 'loopback (unshaped)',
    ms(r.drainMs / 1000),
    ((r.rows / r.drainMs) * 1000).toFixed(0),
    r.wire ? ms(r.wire.up / 1e6) : '-',
    r.wire ? ms(r.wire.down / 1e3, 1) : '-',
    r.wire ? ms((r.wire.up + r.wire.down) / r.rows, 1) : '-',
    ms(r.batchBytes / r.rows, 1),
    ms(r.cpu.edgeSec),
    ms(r.cpu.cloudSec),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\nWeek-offline catch-up of ${runs[0]?.rows ?? 0} rows (wire: both directions, at the proxy)`);
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

function judge(rows: number): void {
  const shapedDeflate = runs.find((r) => r.compression === 'deflate' && r.shaped);
  if (shapedDeflate?.wire) {
    const perRow = (shapedDeflate.wire.up + shapedDeflate.wire.down) / rows;
    checks.push([
      `deflate: ${ms(perRow, 1)} bytes a row on the wire < ${TARGET_BYTES_PER_ROW}`,
      perRow < TARGET_BYTES_PER_ROW,
    ]);
    const text = `deflate: shaped drain ${ms(shapedDeflate.drainMs / 1000)} s < ${TARGET_SHAPED_MS / 1000} s`;
    if (rows >= TARGET_ROWS) checks.push([text, shapedDeflate.drainMs < TARGET_SHAPED_MS]);
    else console.log(`(${text}: the target is for ${TARGET_ROWS} rows, not judged at ${rows})`);
  }
  const unshaped = (compression: string) => {
    const mine = runs.filter((r) => r.compression === compression && !r.shaped);
    if (mine.length === 0) return undefined;
    const mean = (f: (r: Run) => number) => mine.reduce((n, r) => n + f(r), 0) / mine.length;
    return { drainMs: mean((r) => r.drainMs), batchBytes: mean((r) => r.batchBytes) };
  };
  const plain = unshaped('none');
  const deflate = unshaped('deflate');
  if (plain && deflate) {
    checks.push([
      `unshaped (mean of 2): deflate ${ms(deflate.drainMs / 1000)} s no slower than none ${ms(plain.drainMs / 1000)} s beyond noise (+${NOISE * 100} %)`,
      deflate.drainMs <= plain.drainMs * (1 + NOISE),
    ]);
    if (deflate.batchBytes > plain.batchBytes * 0.8) {
      console.log(
        `Note: deflate was asked for (${COMPRESSION_ENV}=deflate) but the batches are not smaller: ` +
          'does this build know sync.compression?',
      );
    }
  }
}
