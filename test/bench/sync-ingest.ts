import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedBroker } from '../../cloud/broker.js';
import { type BenchChild, type Check, finish, forkChild, ms, waitFor } from './sync-lib.js';
import type { WorkloadRefs } from './sync-workload.js';

/**
 * Cloud ingest from many sites at once (issue 5: "cloud ingest with 50 simulated sites writing
 * concurrently: the rate and the cloud's CPU per 1,000 rows"). No target: figures only.
 *
 * Processes: the cloud (test/bench/sync-node.ts: createApp with the real cloud sync runtime over
 * mqtt.js, its own SQLite file, synchronous=FULL), the embedded Aedes broker here, and one process
 * of simulated edges (sync-sim-sites.ts).
 *  1. The cloud registers BENCH_INGEST_SITES (50) sites, each with its yard, spots and yard drivers.
 *  2. A real edge of the first site links up, gets its master data, goes offline and writes about
 *     BENCH_INGEST_ROWS (3000) rows of yard work through its services (sync-workload.ts); its
 *     unacknowledged change log is exported and the edge exits.
 *  3. Every simulated site gets its own change log: a copy of that work with the site's master data
 *     ids, fresh ids for everything else and its own site id, read into batches by the real Outbox.
 *  4. Timed: all sites publish at once (window 8 each) until the cloud has acknowledged every row.
 *     The cloud's process.cpuUsage() is read before and after.
 * Reported: rows/s applied (acknowledged) at the cloud, the cloud's CPU ms (user + system) per 1,000
 * rows, and checks that every row arrived once (row counts per entity) with no dead letters.
 *
 * Run: npx tsx test/bench/sync-ingest.ts
 * BENCH_INGEST_SITES (50), BENCH_INGEST_ROWS (3000) per site, BENCH_INGEST_ACK_TIMEOUT_MS (10000).
 */
const SITES = Number(process.env.BENCH_INGEST_SITES ?? 50);
const ROWS = Number(process.env.BENCH_INGEST_ROWS ?? 3000);
/** The simulated edges' ack timeout: an edge's default (sync.ackTimeoutMs); raise it to see the cloud without resends. */
const ACK_TIMEOUT_MS = Number(process.env.BENCH_INGEST_ACK_TIMEOUT_MS ?? 10_000);
const DRIVERS = 5;
const LOCATIONS = 10;
const siteId = (k: number) => `ingest-${String(k).padStart(3, '0')}`;

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-ingest-'));
const broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
const baseEnv = {
  ...process.env,
  YARD_MQTT_URL: broker.url,
  YARD_LOG_LEVEL: 'warn',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
};
const children: BenchChild[] = [];
const results: Record<string, unknown> = { sites: SITES, rowsPerSite: ROWS, ackTimeoutMs: ACK_TIMEOUT_MS };
const checks: Check[] = [];
type Counts = Record<string, { count: number }>;

try {
  const cloud = await forkChild('test/bench/sync-node.ts', {
    ...baseEnv,
    YARD_ROLE: 'cloud',
    YARD_DATA_DIR: join(dir, 'cloud'),
  });
  children.push(cloud);
  await cloud.call('start');
  console.log(`Registering ${SITES} sites at the cloud...`);
  const refs: WorkloadRefs[] = [];
  for (let k = 0; k < SITES; k++) {
    refs.push(
      await cloud.call<WorkloadRefs>('seedSite', {
        siteId: siteId(k),
        drivers: DRIVERS,
        locations: LOCATIONS,
      }),
    );
  }
  const template = refs[0]!;

  console.log(`A real edge of ${siteId(0)} writes about ${ROWS} rows offline...`);
  const edge = await forkChild('test/bench/sync-node.ts', {
    ...baseEnv,
    YARD_ROLE: 'edge',
    YARD_SITE_ID: siteId(0),
    YARD_DATA_DIR: join(dir, 'edge'),
  });
  children.push(edge);
  await edge.call('start');
  const arrived = await waitFor(
    async () =>
      (await edge.call<boolean>('has', { table: 'yard', ids: [template.yardId] })) &&
      (await edge.call<boolean>('has', { table: 'driver', ids: template.driverIds })) &&
      (await edge.call<boolean>('has', { table: 'location', ids: template.locationIds })) &&
      (await edge.call<boolean>('has', { table: 'app_user', ids: [template.staff.id] })),
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  if (!arrived) throw new Error("the cloud's master data did not reach the edge within 30 s");
  await waitFor(async () => (await edge.call<number>('queued')) === 0, { timeoutMs: 30_000, intervalMs: 50 });
  await edge.call('stop');
  await edge.call('generate', { refs: template, target: ROWS });
  const rowsFile = join(dir, 'template-rows.json');
  const perSite = await edge.call<number>('exportLog', { peer: 'cloud', file: rowsFile });
  await edge.exit();

  const sitesFile = join(dir, 'sites.json');
  writeFileSync(
    sitesFile,
    JSON.stringify(
      refs.map((r, k) => ({
        siteId: siteId(k),
        index: k,
        ids: Object.fromEntries([
          [template.yardId, r.yardId],
          ...template.locationIds.map((id, j) => [id, r.locationIds[j]]),
          ...template.driverIds.map((id, j) => [id, r.driverIds[j]]),
        ]),
      })),
    ),
  );
  const sim = await forkChild('test/bench/sync-sim-sites.ts', {
    ...process.env,
    SIM_URL: broker.url,
    SIM_ROWS_FILE: rowsFile,
    SIM_SITES_FILE: sitesFile,
    SIM_TEMPLATE_SITE: siteId(0),
    SIM_KEEP_IDS: template.staff.id,
    SIM_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS),
  });
  children.push(sim);
  const before = await cloud.call<Counts>('checksums');

  console.log(`${SITES} sites x ${perSite} rows, all at once...`);
  const log0 = await cloud.call<number>('logTotal');
  const cpu0 = await cloud.call<NodeJS.CpuUsage>('cpu');
  const done = sim.next<{
    startedAt: number;
    endedAt: number;
    rows: number;
    bytes: number;
    batches: number;
    resent: number;
  }>('done');
  sim.child.send({ go: true });
  const d = await done;
  const cpu1 = await cloud.call<NodeJS.CpuUsage>('cpu');
  const forwarded = (await cloud.call<number>('logTotal')) - log0;
  const wallMs = d.endedAt - d.startedAt;
  const cpuMs = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000;
  const figures = {
    rows: d.rows,
    batches: d.batches,
    mb: d.bytes / 1e6,
    resentBatches: d.resent,
    /** Rows the cloud wrote into other sites' logs meanwhile (trailers go to every site). */
    forwardedLogRows: forwarded,
    wallMs,
    rowsPerSec: (d.rows / wallMs) * 1000,
    cloudCpuMs: cpuMs,
    cloudCpuMsPer1000Rows: (cpuMs / d.rows) * 1000,
    cloudCpuUserMs: (cpu1.user - cpu0.user) / 1000,
    cloudCpuSystemMs: (cpu1.system - cpu0.system) / 1000,
    cloudBusy: cpuMs / wallMs,
  };
  results.ingest = figures;
  console.log(
    `  ${d.rows} rows in ${ms(wallMs / 1000)} s: ${figures.rowsPerSec.toFixed(0)} rows/s applied, ` +
      `cloud CPU ${ms(figures.cloudCpuMsPer1000Rows, 1)} ms per 1,000 rows (${(figures.cloudBusy * 100).toFixed(0)} % of one core)`,
  );
  console.log(
    `  ${d.batches} batches sent (${d.resent} of them again after an ack timeout), ${ms(figures.mb, 1)} MB; ` +
      `the cloud wrote ${forwarded} rows into sites' logs meanwhile`,
  );

  // Every row arrived once: per entity, the cloud gained the template's distinct records once per site.
  const after = await cloud.call<Counts>('checksums');
  const distinct = new Map<string, Set<string>>();
  for (const [entity, id] of JSON.parse(readFileSync(rowsFile, 'utf8')) as Array<[string, string]>) {
    if (!distinct.has(entity)) distinct.set(entity, new Set());
    distinct.get(entity)!.add(id);
  }
  const wrong = [...distinct].filter(
    ([entity, ids]) => (after[entity]?.count ?? 0) - (before[entity]?.count ?? 0) !== ids.size * SITES,
  );
  const deadLetters = await cloud.call<number>('deadLetters');
  results.counts = Object.fromEntries(
    [...distinct].map(([e, ids]) => [
      e,
      { expected: ids.size * SITES, gained: after[e]!.count - before[e]!.count },
    ]),
  );
  checks.push([
    `every site's every row acknowledged (${d.rows} = ${SITES} x ${perSite})`,
    d.rows === SITES * perSite,
  ]);
  checks.push([
    `the cloud gained each site's records exactly once (${wrong.length ? `wrong: ${wrong.map(([e]) => e).join(', ')}` : 'all entities'})`,
    wrong.length === 0,
  ]);
  checks.push([`no dead letters at the cloud (${deadLetters})`, deadLetters === 0]);
} finally {
  for (const c of children) await c.exit();
  await broker.stop();
  rmSync(dir, { recursive: true, force: true });
}
finish('sync-ingest', results, checks);
