import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { hashMosquittoPassword } from '../../shared/sync/mosquitto-password.js';
import { MosquittoProcess, mosquittoInstalled } from '../helpers/mosquitto-process.js';
import { freePort } from '../helpers/ports.js';
import { PostgresCluster } from '../helpers/postgres-cluster.js';
import { type BenchChild, type Check, finish, forkChild, ms, processTreeCpuMs, waitFor } from './sync-lib.js';
import { masterDataArrived } from './sync-offline-week.js';
import type { WorkloadRefs } from './sync-workload.js';

/**
 * Cloud ingest from many sites at once (docs/performance.md: "cloud ingest with 50 simulated sites writing
 * concurrently: the rate and the cloud's CPU per 1,000 rows"; the same on PostgreSQL with
 * one node and with two, beside SQLite, in one run). No target: figures only.
 *
 * The same workload is measured in up to three configurations, one after the other, each on a fresh
 * database and a fresh Mosquitto (Debian's, deploy config: password file and ACL; the same broker
 * for all three, so only the cloud differs):
 *  - sqlite: one cloud node on its own SQLite file (synchronous=FULL);
 *  - pg1: one cloud node on PostgreSQL;
 *  - pg2: two cloud nodes (two processes, each with its own data directory and so its own node id)
 *    on one PostgreSQL database, sharing the sites' batches through Mosquitto's shared subscription.
 * PostgreSQL is a throwaway cluster (test/helpers/postgres-cluster.ts) with durability on (fsync,
 * synchronous_commit, full_page_writes), as SQLite's FULL is: a commit is on disk when acknowledged.
 * Processes: the cloud nodes (test/bench/sync-node.ts: createApp with the real cloud sync runtime
 * over mqtt.js), Mosquitto, and one process of simulated edges (sync-sim-sites.ts).
 *  1. The cloud registers BENCH_INGEST_SITES (50) sites, each with its yard, spots and yard drivers.
 *  2. Once per run (in the first configuration): a real edge of the first site links up, gets its
 *     master data, goes offline and writes about BENCH_INGEST_ROWS (3000) rows of yard work through
 *     its services (sync-workload.ts); its unacknowledged change log is exported and the edge exits.
 *  3. Every simulated site gets its own change log: a copy of that work with the site's master data
 *     ids (of this configuration's cloud), fresh ids for everything else and its own site id, read
 *     into batches by the real Outbox.
 *  4. Timed: all sites publish at once (window 8 each) until the cloud has acknowledged every row.
 *     Each node's process.cpuUsage() and the PostgreSQL server's CPU (/proc) are read before and after.
 * Reported per configuration: rows/s applied (acknowledged), the cloud's CPU ms (user + system) per
 * 1,000 rows (the nodes' sum; on PostgreSQL the server's CPU beside it, as SQLite's work is inside
 * the node), each node's share of the applied batches (its sync status, node.applied), and checks
 * that every row arrived once (row counts per entity) with no dead letters.
 *
 * Run: npx tsx test/bench/sync-ingest.ts
 * BENCH_INGEST_CONFIGS (sqlite,pg1,pg2: any of them, in that order), BENCH_INGEST_SITES (50),
 * BENCH_INGEST_ROWS (3000) per site, BENCH_INGEST_ACK_TIMEOUT_MS (10000), BENCH_INGEST_TIMEOUT_S (600) per
 * configuration (one that has not drained by then is reported with what it applied, as a failed check).
 * E.g. BENCH_INGEST_CONFIGS=pg2 BENCH_INGEST_ROWS=1000 npx tsx test/bench/sync-ingest.ts
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of every child process there.
 * BENCH_PG_STATEMENTS=<n> prints the n statements PostgreSQL spent most time in during each drain
 * (pg_stat_statements, triggers' statements included): where the database's share of a row goes.
 * BENCH_LOG_LEVEL (warn): the cloud nodes' log level; BENCH_PG_DIR=<dir> keeps the PostgreSQL cluster's
 * folder (its server.log names the statements of each deadlock).
 */
const SITES = Number(process.env.BENCH_INGEST_SITES ?? 50);
const ROWS = Number(process.env.BENCH_INGEST_ROWS ?? 3000);
/** The simulated edges' ack timeout: an edge's default (sync.ackTimeoutMs); raise it to see the cloud without resends. */
const TOP_STATEMENTS = Number(process.env.BENCH_PG_STATEMENTS ?? 0);
const ACK_TIMEOUT_MS = Number(process.env.BENCH_INGEST_ACK_TIMEOUT_MS ?? 10_000);
/** A configuration that has not drained by then is reported as not finished (and the run goes on). */
const TIMEOUT_MS = Number(process.env.BENCH_INGEST_TIMEOUT_S ?? 600) * 1000;
const DRIVERS = 5;
const LOCATIONS = 10;
const SITE_PASSWORD = 'bench-site-password';
const CLOUD_PASSWORD = 'bench-cloud-password';
const siteId = (k: number) => `ingest-${String(k).padStart(3, '0')}`;

interface IngestConfig {
  name: 'sqlite' | 'pg1' | 'pg2';
  label: string;
  postgres: boolean;
  nodes: number;
}
const ALL: IngestConfig[] = [
  { name: 'sqlite', label: 'SQLite, one node', postgres: false, nodes: 1 },
  { name: 'pg1', label: 'PostgreSQL, one node', postgres: true, nodes: 1 },
  { name: 'pg2', label: 'PostgreSQL, two nodes', postgres: true, nodes: 2 },
];
const asked = (process.env.BENCH_INGEST_CONFIGS ?? 'sqlite,pg1,pg2').split(',').map((s) => s.trim());
const unknown = asked.filter((n) => !ALL.some((c) => c.name === n));
if (unknown.length > 0)
  throw new Error(`BENCH_INGEST_CONFIGS: unknown ${unknown.join(', ')} (sqlite, pg1, pg2)`);
const CONFIGS = ALL.filter((c) => asked.includes(c.name));
if (!mosquittoInstalled) throw new Error("the ingest benchmark runs Debian's Mosquitto: install mosquitto");

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-ingest-'));
const baseEnv = {
  ...process.env,
  YARD_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
};
const results: Record<string, unknown> = {
  sites: SITES,
  rowsPerSite: ROWS,
  ackTimeoutMs: ACK_TIMEOUT_MS,
  configs: CONFIGS.map((c) => c.name),
};
const checks: Check[] = [];
type Counts = Record<string, { count: number }>;
type Done = {
  startedAt: number;
  endedAt: number;
  rows: number;
  bytes: number;
  batches: number;
  resent: number;
};
type NodeStatus = { node: { id: string; applied: { batches: number; rows: number } } };

/** The real edge's offline work, made once and replayed by every configuration's simulated sites. */
let template: { rowsFile: string; refs: WorkloadRefs; perSite: number } | undefined;
let cluster: PostgresCluster | undefined;

try {
  if (CONFIGS.some((c) => c.postgres)) {
    cluster = await PostgresCluster.start({
      ...(process.env.BENCH_PG_DIR ? { dir: process.env.BENCH_PG_DIR } : {}),
      settings: {
        fsync: 'on',
        synchronous_commit: 'on',
        full_page_writes: 'on',
        shared_buffers: "'256MB'",
        ...(TOP_STATEMENTS > 0
          ? { shared_preload_libraries: "'pg_stat_statements'", 'pg_stat_statements.track': "'all'" }
          : {}),
      },
    });
  }
  for (const config of CONFIGS) {
    try {
      results[config.name] = await runConfig(config);
    } catch (err) {
      // One configuration failing (a node crashed) still leaves the others' figures.
      console.log(`  FAILED: ${(err as Error).message}`);
      results[config.name] = { label: config.label, error: (err as Error).message };
      checks.push([`${config.name}: ran to the end (${(err as Error).message})`, false]);
    }
  }
  printTable();
} finally {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}
finish('sync-ingest', results, checks);

async function runConfig(config: IngestConfig): Promise<Record<string, unknown>> {
  console.log(`\n== ${config.label} (${config.name}) ==`);
  const here = join(dir, config.name);
  const children: BenchChild[] = [];
  const broker = await startMosquitto(join(here, 'broker'));
  try {
    const databaseUrl = cluster ? await createDatabase(cluster, `ingest_${config.name}`) : undefined;
    const cloudEnv = {
      ...baseEnv,
      YARD_ROLE: 'cloud',
      YARD_MQTT_URL: broker.url,
      YARD_MQTT_USERNAME: 'cloud',
      YARD_MQTT_PASSWORD: CLOUD_PASSWORD,
      ...(config.postgres ? { YARD_DATABASE_URL: databaseUrl } : {}),
    };
    const nodes: BenchChild[] = [];
    for (let k = 0; k < config.nodes; k++) {
      // Each node its own data directory: its node id (MQTT client id) is kept there.
      const node = await forkChild('test/bench/sync-node.ts', {
        ...cloudEnv,
        YARD_DATA_DIR: join(here, `node-${k}`),
      });
      children.push(node);
      nodes.push(node);
    }
    for (const node of nodes) await node.call('start');
    const cloud = nodes[0]!;
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
    template ??= await writeTemplate(broker.url, refs[0]!, children);
    const t = template;

    const sitesFile = join(here, 'sites.json');
    writeFileSync(
      sitesFile,
      JSON.stringify(
        refs.map((r, k) => ({
          siteId: siteId(k),
          index: k,
          ids: Object.fromEntries([
            [t.refs.yardId, r.yardId],
            [t.refs.staff.id, r.staff.id],
            ...t.refs.locationIds.map((id, j) => [id, r.locationIds[j]]),
            ...t.refs.driverIds.map((id, j) => [id, r.driverIds[j]]),
          ]),
        })),
      ),
    );
    const sim = await forkChild('test/bench/sync-sim-sites.ts', {
      ...process.env,
      SIM_URL: broker.url,
      SIM_PASSWORD: SITE_PASSWORD,
      SIM_ROWS_FILE: t.rowsFile,
      SIM_SITES_FILE: sitesFile,
      SIM_TEMPLATE_SITE: siteId(0),
      SIM_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS),
    });
    children.push(sim);
    const before = await cloud.call<Counts>('checksums');

    console.log(`${SITES} sites x ${t.perSite} rows, all at once...`);
    const log0 = await cloud.call<number>('logTotal');
    const status0 = await Promise.all(nodes.map((n) => n.call<NodeStatus>('status')));
    const cpu0 = await Promise.all(nodes.map((n) => n.call<NodeJS.CpuUsage>('cpu')));
    const pg0 = postgresCpuMs();
    const deadlocks0 = postgresDeadlocks();
    if (databaseUrl && TOP_STATEMENTS > 0) await topStatements(databaseUrl, 'reset');
    const done = sim.next<Done>('done');
    const goAt = performance.now();
    sim.child.send({ go: true });
    const d = await untilDone(done, nodes);
    if (!d) {
      // Not drained in time: what the nodes applied meanwhile, and a failed check.
      // A node whose pool is starved may not answer its status either: then it counts as 0 here.
      const status = await Promise.all(
        nodes.map((n, k) => n.call<NodeStatus>('status').catch(() => status0[k]!)),
      );
      const appliedRows = status.reduce(
        (n, s, k) => n + s.node.applied.rows - status0[k]!.node.applied.rows,
        0,
      );
      const wallMs = performance.now() - goAt;
      console.log(
        `  NOT DRAINED after ${ms(wallMs / 1000, 0)} s: ${appliedRows} of ${SITES * t.perSite} rows applied ` +
          `(${((appliedRows / wallMs) * 1000).toFixed(0)} rows/s); PostgreSQL deadlocks ${postgresDeadlocks() - deadlocks0}`,
      );
      checks.push([`${config.name}: drained within ${TIMEOUT_MS / 1000} s`, false]);
      return {
        label: config.label,
        finished: false,
        wallMs,
        appliedRows,
        rowsPerSec: (appliedRows / wallMs) * 1000,
        postgresDeadlocks: postgresDeadlocks() - deadlocks0,
        perNode: status.map((s, k) => ({
          nodeId: s.node.id,
          appliedBatches: s.node.applied.batches - status0[k]!.node.applied.batches,
        })),
      };
    }
    const cpu1 = await Promise.all(nodes.map((n) => n.call<NodeJS.CpuUsage>('cpu')));
    const pg1 = postgresCpuMs();
    const deadlocks = postgresDeadlocks() - deadlocks0;
    if (databaseUrl && TOP_STATEMENTS > 0) await topStatements(databaseUrl, 'print');
    const status1 = await Promise.all(nodes.map((n) => n.call<NodeStatus>('status')));
    const forwarded = (await cloud.call<number>('logTotal')) - log0;
    const wallMs = d.endedAt - d.startedAt;
    const perNode = nodes.map((_, k) => {
      const a = cpu0[k]!;
      const b = cpu1[k]!;
      const applied0 = status0[k]!.node.applied;
      const applied1 = status1[k]!.node.applied;
      return {
        nodeId: status1[k]!.node.id,
        cpuUserMs: (b.user - a.user) / 1000,
        cpuSystemMs: (b.system - a.system) / 1000,
        appliedBatches: applied1.batches - applied0.batches,
        appliedRows: applied1.rows - applied0.rows,
      };
    });
    const cpuMs = perNode.reduce((n, p) => n + p.cpuUserMs + p.cpuSystemMs, 0);
    const postgresMs = config.postgres && pg0 !== undefined && pg1 !== undefined ? pg1 - pg0 : undefined;
    const appliedBatches = perNode.reduce((n, p) => n + p.appliedBatches, 0);
    const figures = {
      label: config.label,
      nodes: config.nodes,
      rows: d.rows,
      batches: d.batches,
      mb: d.bytes / 1e6,
      resentBatches: d.resent,
      /** Rows the cloud wrote into other sites' logs meanwhile (trailers go to every site). */
      forwardedLogRows: forwarded,
      wallMs,
      rowsPerSec: (d.rows / wallMs) * 1000,
      /** The cloud nodes' CPU (user + system), summed over the nodes. */
      cloudCpuMs: cpuMs,
      cloudCpuMsPer1000Rows: (cpuMs / d.rows) * 1000,
      cloudBusy: cpuMs / wallMs,
      /** The PostgreSQL server's CPU (postmaster and backends), where the SQL work of a PostgreSQL cloud runs. */
      postgresCpuMs: postgresMs,
      postgresCpuMsPer1000Rows: postgresMs === undefined ? undefined : (postgresMs / d.rows) * 1000,
      /** Apply transactions PostgreSQL ended as deadlocks meanwhile (its log): each costs deadlock_timeout (1 s) and a retry or a resend. */
      postgresDeadlocks: config.postgres ? deadlocks : undefined,
      perNode: perNode.map((p) => ({
        ...p,
        shareOfAppliedBatches: appliedBatches > 0 ? p.appliedBatches / appliedBatches : 0,
      })),
    };
    console.log(
      `  ${d.rows} rows in ${ms(wallMs / 1000)} s: ${figures.rowsPerSec.toFixed(0)} rows/s applied, ` +
        `cloud CPU ${ms(figures.cloudCpuMsPer1000Rows, 1)} ms per 1,000 rows (${(figures.cloudBusy * 100).toFixed(0)} % of one core)` +
        (postgresMs === undefined
          ? ''
          : `, PostgreSQL ${ms(figures.postgresCpuMsPer1000Rows!, 1)} ms per 1,000 rows`),
    );
    console.log(
      `  ${d.batches} batches sent (${d.resent} of them again after an ack timeout), ${ms(figures.mb, 1)} MB; ` +
        `the cloud wrote ${forwarded} rows into sites' logs meanwhile`,
    );
    if (config.postgres) console.log(`  PostgreSQL ended ${deadlocks} transactions as deadlocks`);
    if (config.nodes > 1) {
      console.log(
        `  applied batches per node: ${figures.perNode
          .map((p) => `${p.nodeId} ${p.appliedBatches} (${(p.shareOfAppliedBatches * 100).toFixed(0)} %)`)
          .join(', ')}`,
      );
    }

    // Every row arrived once: per entity, the cloud gained the template's distinct records once per site.
    const after = await cloud.call<Counts>('checksums');
    const distinct = new Map<string, Set<string>>();
    for (const [entity, id] of JSON.parse(readFileSync(t.rowsFile, 'utf8')) as Array<[string, string]>) {
      if (!distinct.has(entity)) distinct.set(entity, new Set());
      distinct.get(entity)!.add(id);
    }
    const wrong = [...distinct].filter(
      ([entity, ids]) => (after[entity]?.count ?? 0) - (before[entity]?.count ?? 0) !== ids.size * SITES,
    );
    const deadLetters = await cloud.call<number>('deadLetters');
    const counts = Object.fromEntries(
      [...distinct].map(([e, ids]) => [
        e,
        { expected: ids.size * SITES, gained: (after[e]?.count ?? 0) - (before[e]?.count ?? 0) },
      ]),
    );
    const at = `${config.name}:`;
    checks.push([
      `${at} every site's every row acknowledged (${d.rows} = ${SITES} x ${t.perSite})`,
      d.rows === SITES * t.perSite,
    ]);
    checks.push([
      `${at} the cloud gained each site's records exactly once (${wrong.length ? `wrong: ${wrong.map(([e]) => e).join(', ')}` : 'all entities'})`,
      wrong.length === 0,
    ]);
    checks.push([`${at} no dead letters at the cloud (${deadLetters})`, deadLetters === 0]);
    if (config.nodes > 1) {
      checks.push([
        `${at} every node applied batches (${perNode.map((p) => p.appliedBatches).join(' + ')})`,
        perNode.every((p) => p.appliedBatches > 0),
      ]);
    }
    return { ...figures, counts };
  } finally {
    for (const c of children) await c.exit();
    await broker.process.stop();
  }
}

/**
 * The simulated sites' report, or undefined when they have not drained within TIMEOUT_MS; rejects
 * when a cloud node exits meanwhile (a crash would otherwise leave the run waiting forever).
 */
async function untilDone(done: Promise<Done>, nodes: BenchChild[]): Promise<Done | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      done,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), TIMEOUT_MS);
      }),
      ...nodes.map(
        (n, k) =>
          new Promise<never>((_, reject) =>
            n.child.once('exit', (code, signal) =>
              reject(new Error(`cloud node ${k} exited (${signal ?? code}) during the ingest`)),
            ),
          ),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A real edge of the first site writes its offline work; its change log becomes every site's. */
async function writeTemplate(
  brokerUrl: string,
  refs: WorkloadRefs,
  children: BenchChild[],
): Promise<{ rowsFile: string; refs: WorkloadRefs; perSite: number }> {
  console.log(`A real edge of ${siteId(0)} writes about ${ROWS} rows offline...`);
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
  await masterDataArrived(edge, refs);
  await waitFor(async () => (await edge.call<number>('queued')) === 0, { timeoutMs: 30_000, intervalMs: 50 });
  await edge.call('stop');
  await edge.call('generate', { refs, target: ROWS });
  const rowsFile = join(dir, 'template-rows.json');
  const perSite = await edge.call<number>('exportLog', { peer: 'cloud', file: rowsFile });
  await edge.exit();
  return { rowsFile, refs, perSite };
}

/** Mosquitto with the deploy config on a loopback port; the cloud and every site in its password file. */
async function startMosquitto(brokerDir: string): Promise<{ url: string; process: MosquittoProcess }> {
  mkdirSync(brokerDir, { recursive: true });
  const passwdFile = join(brokerDir, 'passwd');
  const lines = [`cloud:${hashMosquittoPassword(CLOUD_PASSWORD)}`];
  const siteHash = hashMosquittoPassword(SITE_PASSWORD);
  for (let k = 0; k < SITES; k++) lines.push(`${siteId(k)}:${siteHash}`);
  writeFileSync(passwdFile, `${lines.join('\n')}\n`, { mode: 0o600 });
  const port = await freePort();
  const process = new MosquittoProcess({ dir: brokerDir, port, passwdFile });
  await process.start();
  return { url: `mqtt://127.0.0.1:${port}`, process };
}

/** A fresh database on the cluster; its URL. */
async function createDatabase(c: PostgresCluster, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: c.adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return c.adminUrl.replace(/\/postgres$/, `/${name}`);
}

/** pg_stat_statements: emptied before a drain, its top statements by total time printed after it. */
async function topStatements(url: string, what: 'reset' | 'print'): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    if (what === 'reset') {
      await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await c.query('SELECT pg_stat_statements_reset()');
      return;
    }
    const { rows } = await c.query(
      `SELECT calls, rows, round(total_exec_time::numeric, 0) AS ms,
              round((100 * total_exec_time / sum(total_exec_time) OVER ())::numeric, 1) AS pct,
              regexp_replace(query, '\\s+', ' ', 'g') AS query
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY total_exec_time DESC LIMIT $1`,
      [TOP_STATEMENTS],
    );
    console.log('  PostgreSQL statements by total time (calls, rows, ms, % of all):');
    for (const r of rows) {
      console.log(`  ${r.calls}\t${r.rows}\t${r.ms}\t${r.pct}%\t${String(r.query).slice(0, 220)}`);
    }
  } finally {
    await c.end();
  }
}

/** The PostgreSQL server's CPU so far (postmaster, backends, and backends that ended). */
function postgresCpuMs(): number | undefined {
  if (!cluster) return undefined;
  const pid = Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return processTreeCpuMs(pid);
}

/** "deadlock detected" errors in the PostgreSQL server's log so far. */
function postgresDeadlocks(): number {
  if (!cluster) return 0;
  return (readFileSync(cluster.logFile, 'utf8').match(/ERROR: {2}deadlock detected/g) ?? []).length;
}

function printTable(): void {
  console.log(
    '\nconfig                 rows/s   node CPU ms/1k rows   PostgreSQL CPU ms/1k rows   batches per node',
  );
  for (const c of CONFIGS) {
    const f = results[c.name] as {
      error?: string;
      finished?: boolean;
      rowsPerSec: number;
      cloudCpuMsPer1000Rows: number;
      postgresCpuMsPer1000Rows?: number;
      postgresDeadlocks?: number;
      perNode: Array<{ appliedBatches: number }>;
    };
    if (f.error || f.finished === false) {
      const what = f.error
        ? `failed: ${f.error}`
        : `not drained (${f.rowsPerSec.toFixed(0)} rows/s applied meanwhile)`;
      console.log(`${c.label.padEnd(22)} ${what}`);
      continue;
    }
    console.log(
      `${c.label.padEnd(22)} ${f.rowsPerSec.toFixed(0).padStart(6)}   ${ms(f.cloudCpuMsPer1000Rows, 1).padStart(19)}   ` +
        `${(f.postgresCpuMsPer1000Rows === undefined ? '-' : ms(f.postgresCpuMsPer1000Rows, 1)).padStart(25)}   ` +
        `${String(f.postgresDeadlocks ?? '-').padStart(9)}   ` +
        f.perNode.map((p) => p.appliedBatches).join(' + '),
    );
  }
}
