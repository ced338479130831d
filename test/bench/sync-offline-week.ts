import { join } from 'node:path';
import { type BenchChild, type Check, forkChild, ms, waitFor } from './sync-lib.js';
import type { WorkloadRefs } from './sync-workload.js';

/**
 * The week-offline catch-up workload of the sync benchmarks (sync-catchup.ts over loopback,
 * sync-wire.ts over a shaped link): a cloud and an edge, each a sync-node.ts child with its own
 * SQLite file, and the edge's week of yard work queued for the cloud.
 */
export interface OfflineWeekOptions {
  /** The children's data directories are `dir`/cloud and `dir`/edge. */
  dir: string;
  /** Environment of both children (YARD_MQTT_URL, log level, admin...). */
  env: NodeJS.ProcessEnv;
  siteId: string;
  /** Change-log rows to queue at the edge. */
  changes: number;
  /** Yard drivers in the workload. */
  drivers: number;
  /** Every child forked is added here, for the caller to end whatever happens. */
  children: BenchChild[];
}

export interface OfflineWeek {
  cloud: BenchChild;
  edge: BenchChild;
  refs: WorkloadRefs;
  generated: { rounds: number; rows: number; ms: number };
  /** Rows the edge has queued for the cloud, and its last change-log seq. */
  queued: number;
  topSeq: number;
}

/** A cloud or edge node of the benchmarks on its data directory (not started). */
export async function forkSyncNode(
  role: 'cloud' | 'edge',
  options: { dataDir: string; siteId: string; env: NodeJS.ProcessEnv; children: BenchChild[] },
): Promise<BenchChild> {
  const child = await forkChild('test/bench/sync-node.ts', {
    ...options.env,
    YARD_ROLE: role,
    ...(role === 'edge' ? { YARD_SITE_ID: options.siteId } : {}),
    YARD_DATA_DIR: options.dataDir,
  });
  options.children.push(child);
  return child;
}

/** Waits until the cloud's master data for the site (seedSite) has reached the edge; throws after 30 s. */
export async function masterDataArrived(edge: BenchChild, refs: WorkloadRefs): Promise<void> {
  const arrived = await waitFor(
    async () =>
      (await edge.call<boolean>('has', { table: 'yard', ids: [refs.yardId] })) &&
      (await edge.call<boolean>('has', { table: 'driver', ids: refs.driverIds })) &&
      (await edge.call<boolean>('has', { table: 'location', ids: refs.locationIds })) &&
      (await edge.call<boolean>('has', { table: 'app_user', ids: [refs.staff.id] })),
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  if (!arrived) throw new Error("the cloud's master data did not reach the edge within 30 s");
}

/**
 * 1. The cloud registers the site and makes its master data (yard, spots, yard drivers, admin); the
 *    edge links up and receives it.
 * 2. The edge's link goes down; the edge writes a week of yard work through its services
 *    (sync-workload.ts: location pings, gate movements, tasks) until `changes` rows are queued. It
 *    then restarts (a fresh app on the same database, as after a reboot), not started: its start()
 *    is the link coming back. The cloud is left running.
 */
export async function prepareOfflineWeek(o: OfflineWeekOptions): Promise<OfflineWeek> {
  const node = { siteId: o.siteId, env: o.env, children: o.children };
  const cloud = await forkSyncNode('cloud', { ...node, dataDir: join(o.dir, 'cloud') });
  await cloud.call('start');
  const refs = await cloud.call<WorkloadRefs>('seedSite', {
    siteId: o.siteId,
    drivers: o.drivers,
    locations: 20,
  });

  const edge = await forkSyncNode('edge', { ...node, dataDir: join(o.dir, 'edge') });
  await edge.call('start');
  await masterDataArrived(edge, refs);
  // A yard box in service has sent the cloud its work and had it acknowledged (and so learnt what
  // the cloud's acks offer: compression, docs/sync.md "On the wire") before it went offline.
  await edge.call('generate', { refs, target: 50 });
  await waitFor(async () => (await edge.call<number>('queued')) === 0, { timeoutMs: 30_000, intervalMs: 50 });

  console.log(`Edge offline: writing ${o.changes} changes through the services...`);
  await edge.call('stop');
  const sent = await edge.call<number>('logRows', { peer: 'cloud' });
  const generated = await edge.call<{ rounds: number; rows: number; ms: number }>('generate', {
    refs,
    target: sent + o.changes,
  });
  console.log(
    `  ${generated.rows} rows in the edge's log (${generated.rounds} rounds) in ${ms(generated.ms / 1000, 1)} s`,
  );
  await edge.call('reopen');
  const queued = await edge.call<number>('queued');
  const topSeq = await edge.call<number>('topSeq');
  return { cloud, edge, refs, generated, queued, topSeq };
}

/**
 * The link comes back: from the edge's start() until the cloud has acknowledged its last row (the
 * edge's stored acknowledged position), in milliseconds. Throws when that takes over `timeoutMs`.
 */
export async function timedDrain(edge: BenchChild, timeoutMs: number): Promise<number> {
  const { at: startedAt } = await edge.call<{ at: number }>('start');
  const drained = await edge.call<{ at: number | null; queued?: number }>('drained', {
    peer: 'cloud',
    timeoutMs,
  });
  if (drained.at === null) {
    throw new Error(`the edge still had ${drained.queued} rows queued after ${timeoutMs / 1000} s`);
  }
  if (drained.queued !== 0)
    throw new Error(`the cloud acknowledged the last row, yet ${drained.queued} are queued`);
  return drained.at - startedAt;
}

type Sums = Record<string, { count: number; checksum: string }>;

/** After a drain: what the cloud applied, against what the edge has. */
export async function compareSides(
  cloud: BenchChild,
  edge: BenchChild,
  expected: { siteId: string; topSeq: number },
): Promise<{
  applied: { cloudApplied: number; edgeTopSeq: number; deadLetters: number; differing: string[] } & {
    cloud: Sums;
    edge: Sums;
  };
  checks: Check[];
}> {
  const applied = await cloud.call<number>('applied', { peer: expected.siteId });
  const deadLetters = await cloud.call<number>('deadLetters');
  const [cloudSums, edgeSums] = await Promise.all([
    cloud.call<Sums>('checksums'),
    edge.call<Sums>('checksums'),
  ]);
  const differing = Object.keys(edgeSums).filter(
    (e) => JSON.stringify(edgeSums[e]) !== JSON.stringify(cloudSums[e]),
  );
  const top = expected.topSeq;
  return {
    applied: {
      cloudApplied: applied,
      edgeTopSeq: top,
      deadLetters,
      differing,
      cloud: cloudSums,
      edge: edgeSums,
    },
    checks: [
      [`cloud applied up to the edge's last seq (${applied} >= ${top})`, applied >= top],
      [`no dead letters at the cloud (${deadLetters})`, deadLetters === 0],
      [
        `same rows on both sides, count and checksum per entity (${differing.length ? `differing: ${differing.join(', ')}` : 'all equal'})`,
        differing.length === 0,
      ],
    ],
  };
}
