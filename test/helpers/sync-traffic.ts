import type Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { AppDatabase } from '../../shared/db/database.js';
import { cloudMasterData, type MasterData } from '../integration/sync/link-fixture.js';
import { type Client, query } from './http.js';
import { checksumsOf } from './sync-harness.js';
import type { SyncWorld, WorldNode } from './sync-world.js';
import { waitFor } from './wait-for.js';

/**
 * Realistic traffic over HTTP for the sync fault tests, and the end-of-test comparison: both sides
 * hold the same rows (count and checksum per entity), the same derived visits, no dead letters.
 */

export interface SiteRefs extends MasterData {
  siteId: string;
  gateId: string;
  /** The yard driver, logged in at the edge with an open session. */
  driver: Client;
}

/** Master data at the cloud, delivered to the edge; a gate and the driver's session at the edge. */
export async function prepareSite(world: SyncWorld, edge: WorldNode, tag = 'A'): Promise<SiteRefs> {
  const m = await cloudMasterData(world.cloud.client, edge.siteId, tag);
  await settled(world, edge);
  const gate = await edge.client.post(`/api/yard/${m.yardId}/gate`, {
    name: `Gate ${tag}`,
    direction: 'both',
  });
  expect(gate.status, gate.text).toBe(201);
  const driver = await driverLogin(edge.client, m.driverCode);
  const session = await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId });
  expect(session.status, session.text).toBe(201);
  return { ...m, siteId: edge.siteId, gateId: gate.body.id, driver };
}

/** After the edge restarted (new HTTP port): the driver's token still holds, at the new address. */
export function rebindDriver(s: SiteRefs, edge: WorldNode): void {
  s.driver = edge.client.as(s.driver.token);
}

export async function driverLogin(edge: Client, driverCode: string): Promise<Client> {
  const login = await edge.as(undefined).post('/api/auth/driver-login', { driverCode, pin: '2468' });
  expect(login.status, login.text).toBe(200);
  return edge.as(login.body.token);
}

export interface EdgeWorkOptions {
  /** Trailers checked in (each with its truck); every other one is checked out again. */
  checkIns?: number;
  /** Location batches of `points` pings from the driver's phone. */
  locationBatches?: number;
  points?: number;
}

/**
 * An hour at the gate and in the yard, at the edge: check-ins and check-outs, an inspection, the
 * driver's location pings, and a task made at the edge that the driver starts and completes.
 * `tag` makes the round's trailer numbers unique. Returns the ids written.
 */
export async function edgeWork(edge: Client, s: SiteRefs, tag: string, o: EdgeWorkOptions = {}) {
  const movementIds: string[] = [];
  const checkIns = o.checkIns ?? 4;
  for (let k = 0; k < checkIns; k++) {
    const unit = {
      trailer: { number: `${tag}-${k}`, carrierId: s.carrierId },
      truck: { plate: `${tag}P${k}`, plateRegion: 'TX' },
    };
    const inn = await edge.post('/api/movement', {
      yardId: s.yardId,
      gateId: s.gateId,
      direction: 'in',
      ...unit,
      driverId: s.driverId,
      locationId: s.spotId,
    });
    expect(inn.status, inn.text).toBe(201);
    movementIds.push(inn.body.id);
    if (k === 0) {
      const inspection = await edge.post(`/api/truck/${inn.body.truckId}/inspections`, {
        yardId: s.yardId,
        inspectedAt: new Date().toISOString(),
        result: 'pass',
        items: [{ code: 'brakes', ok: true }],
      });
      expect(inspection.status, inspection.text).toBe(201);
    }
    if (k % 2 === 1) {
      const out = await edge.post('/api/movement', {
        yardId: s.yardId,
        gateId: s.gateId,
        direction: 'out',
        ...unit,
      });
      expect(out.status, out.text).toBe(201);
      movementIds.push(out.body.id);
    }
  }
  const locations = await pings(s, o.locationBatches ?? 1, o.points ?? 50);
  const task = await edge.post('/api/yard-task', {
    yardId: s.yardId,
    type: 'other',
    fromLocationId: s.spotId,
    toLocationId: s.doorId,
    driverId: s.driverId,
  });
  expect(task.status, task.text).toBe(201);
  for (const step of ['start', 'complete']) {
    const done = await s.driver.post(`/api/yard-task/driver/${step}`, { taskIds: [task.body.id] });
    expect(done.body.results?.[0]?.ok, done.text).toBe(true);
  }
  return { movementIds, locations, taskId: task.body.id as string };
}

/** The driver's phone: `batches` location uploads of `points` pings each. Returns how many were stored. */
export async function pings(s: SiteRefs, batches: number, points: number): Promise<number> {
  let stored = 0;
  for (let b = 0; b < batches; b++) {
    const now = Date.now();
    const res = await s.driver.post('/api/yard-task/driver/session/locations', {
      points: Array.from({ length: points }, (_, p) => ({
        at: new Date(now - (points - p) * 10).toISOString(),
        lat: 32.7 + ((b * 7 + p) % 1000) / 1e5,
        lon: -96.8 - ((b * 3 + p) % 1000) / 1e5,
        accuracyM: 5,
      })),
    });
    expect(res.status, res.text).toBe(200);
    stored += res.body.accepted as number;
  }
  return stored;
}

/**
 * The office, at the cloud: a carrier, a yard driver, a user, a driver's phone number changed, and
 * a queued task for the site's yard (the edge dispatches it to a driver with a session).
 */
export async function cloudWork(cloud: Client, s: SiteRefs, tag: string) {
  const carrier = await cloud.post('/api/carrier', { name: `Carrier ${tag}` });
  expect(carrier.status, carrier.text).toBe(201);
  const driver = await cloud.post('/api/driver', {
    kind: 'yard',
    firstName: 'New',
    lastName: `Driver ${tag}`,
    driverCode: `D${tag}`.replace(/[^A-Za-z0-9]/g, '').slice(0, 20),
    pin: '1357',
  });
  expect(driver.status, driver.text).toBe(201);
  const user = await cloud.post('/api/user', {
    username: `user-${tag}`.toLowerCase().replace(/[^a-z0-9-]/g, '-'),
    password: 'user-password-1',
    role: 'viewer',
  });
  expect(user.status, user.text).toBe(201);
  const phone = await cloud.patch(`/api/driver/${s.driverId}`, {
    phone: `+1555${String(Date.now()).slice(-7)}`,
  });
  expect(phone.status, phone.text).toBe(200);
  const task = await cloud.post('/api/yard-task', {
    yardId: s.yardId,
    type: 'other',
    fromLocationId: s.spotId,
    toLocationId: s.doorId,
    priority: 2,
  });
  expect(task.status, task.text).toBe(201);
  return { carrierId: carrier.body.id as string, taskId: task.body.id as string };
}

// ---- comparison ----

export function scalar(sqlite: Database.Database, sql: string, ...args: unknown[]): number {
  return Number(
    sqlite
      .prepare(sql)
      .pluck()
      .get(...args) ?? 0,
  );
}

/** `scalar` on either database (a cloud on PostgreSQL): the first column of the first row, as a number. */
export async function scalarAt(db: AppDatabase, sql: string, ...args: unknown[]): Promise<number> {
  const [row] = await query(db, sql, ...args);
  return Number((row === undefined ? undefined : Object.values(row)[0]) ?? 0);
}

/** Entities whose count:checksum differ between the two databases. */
export async function differing(a: AppDatabase, b: AppDatabase, entities?: string[]) {
  const x = await checksumsOf(a);
  const y = await checksumsOf(b);
  const diff: Record<string, string> = {};
  for (const entity of entities ?? Object.keys(x)) {
    const left = `${x[entity]?.count}:${x[entity]?.checksum}`;
    const right = `${y[entity]?.count}:${y[entity]?.checksum}`;
    if (left !== right) diff[entity] = `${left} / ${right}`;
  }
  return diff;
}

const VISITS = `SELECT yard_id, unit_kind, trailer_id, truck_id, carrier_id, in_movement_id, out_movement_id, in_at, out_at
       FROM visit`;
const visitsSql = (yardIds?: string[]) =>
  `${VISITS}${yardIds ? ` WHERE yard_id IN (${yardIds.map(() => '?').join(', ')})` : ''} ORDER BY in_movement_id, unit_kind`;

/** Visits without their local ids (each side derives its own): what was in the yard, when. */
export function visits(sqlite: Database.Database, yardIds?: string[]): unknown[] {
  return sqlite.prepare(visitsSql(yardIds)).all(...(yardIds ?? []));
}

/** `visits` on either database. */
export function visitsAt(db: AppDatabase, yardIds?: string[]): Promise<unknown[]> {
  return query(db, visitsSql(yardIds), ...(yardIds ?? []));
}

/** Nothing left to send either way: each side's acknowledged position covers its log for the other. */
export async function queuesEmpty(cloud: AppDatabase, edge: AppDatabase, siteId: string): Promise<boolean> {
  const q = await queues(cloud, edge, siteId);
  return q.up.acked >= q.up.top && q.down.acked >= q.down.top;
}

/** Each direction's last seq written and acknowledged position (up: edge -> cloud). */
export async function queues(cloud: AppDatabase, edge: AppDatabase, siteId: string) {
  const top = (db: AppDatabase, peer: string) =>
    scalarAt(db, 'SELECT coalesce(max(seq), 0) FROM change_log WHERE peer = ?', peer);
  const acked = (db: AppDatabase, peer: string) =>
    scalarAt(db, 'SELECT coalesce(max(acked_seq), 0) FROM sync_cursor WHERE peer = ?', peer);
  return {
    up: { top: await top(edge, 'cloud'), acked: await acked(edge, 'cloud') },
    down: { top: await top(cloud, siteId), acked: await acked(cloud, siteId) },
  };
}

/**
 * Waits until the edge and the cloud hold the same rows and nothing is waiting to be sent either
 * way (`entities` limits the comparison, e.g. with several sites).
 */
export async function settled(
  world: SyncWorld,
  edge: WorldNode,
  options: { timeoutMs?: number; entities?: string[] } = {},
): Promise<void> {
  let diff: Record<string, string> = {};
  await waitFor(
    async () => {
      // The cheap check first: checksums read every row, and polling them would slow the sync down.
      const q = await queues(world.cloud.db, edge.db, edge.siteId);
      if (q.up.acked < q.up.top || q.down.acked < q.down.top) {
        diff = { queues: JSON.stringify(q) };
        return false;
      }
      diff = await differing(world.cloud.db, edge.db, options.entities);
      return Object.keys(diff).length === 0;
    },
    {
      timeoutMs: options.timeoutMs ?? 20_000,
      intervalMs: 100,
      what: () => `cloud and ${edge.siteId} settled (differing: ${JSON.stringify(diff)})`,
    },
  );
}

/**
 * The end of every fault test: 0 lost, 0 applied twice. Same rows per entity (count and checksum),
 * the same visits derived from the site's movements (a movement applied twice would open a second
 * visit), no dead letters on either side.
 */
export async function expectSameState(
  world: SyncWorld,
  edge: WorldNode,
  options: { timeoutMs?: number } = {},
) {
  await settled(world, edge, options);
  const cloud = world.cloud.db;
  expect(await differing(cloud, edge.db)).toEqual({});
  const yardIds = edge.sqlite.prepare('SELECT id FROM yard').pluck().all() as string[];
  const atEdge = visits(edge.sqlite);
  expect(atEdge.length).toBeGreaterThan(0);
  expect(await visitsAt(cloud, yardIds)).toEqual(atEdge);
  expect(await scalarAt(cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
  expect(scalar(edge.sqlite, 'SELECT count(*) FROM dead_letter')).toBe(0);
  expect(await scalarAt(cloud, 'SELECT count(*) FROM sync_pending')).toBe(0);
}
