import { expect } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { type Client, query } from '../../helpers/http.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Master data made at the cloud over HTTP for a site: a yard with a spot and a door, a carrier, a yard driver, a user. */
export async function cloudMasterData(api: Client, siteId: string, tag = 'A') {
  const make = seed(api);
  const yardId = (
    await make.yard({ code: `Y${tag}`, name: `Yard ${tag}`, timeZone: 'America/Chicago', siteId })
  ).id as string;
  const spot = await make.location(yardId, { kind: 'spot', name: `A-${tag}` });
  const door = await make.location(yardId, { kind: 'door', name: `D-${tag}` });
  const carrier = await make.carrier({ name: `Carrier ${tag}`, scac: `SC${tag}`.slice(0, 4) });
  const driver = await make.driver({
    firstName: 'Jo',
    lastName: `Jockey ${tag}`,
    driverCode: `J${tag}`,
    pin: '2468',
  });
  const user = await make.user({ username: `gate-${tag}`, password: 'gate-password-1', role: 'gate' });
  return {
    yardId,
    spotId: spot.id as string,
    doorId: door.id as string,
    carrierId: carrier.id as string,
    driverId: driver.id as string,
    driverCode: `J${tag}`,
    userId: user.id as string,
  };
}

export type MasterData = Awaited<ReturnType<typeof cloudMasterData>>;

export async function createTask(api: Client, m: MasterData): Promise<string> {
  const task = await seed(api).task(m.yardId, {
    type: 'other',
    fromLocationId: m.spotId,
    toLocationId: m.doorId,
    priority: 2,
  });
  return task.id as string;
}

/**
 * A gate and a truck check-in at the edge; returns the movement and truck ids. It first waits for
 * the cloud's master data to reach the edge: the driver was made last of the records the check-in
 * names, and the cloud's changes reach a site in the order they were written.
 */
export async function checkIn(edge: Client, m: MasterData, trailer: string, gateId?: string) {
  await waitFor(async () => (await edge.get(`/api/driver/${m.driverId}`)).status === 200, {
    what: "the cloud's master data at the edge",
  });
  let gate = gateId;
  if (!gate)
    gate = (await seed(edge).gate(m.yardId, { name: `Gate ${trailer}`, direction: 'both' })).id as string;
  const movement = await edge.post('/api/movement', {
    yardId: m.yardId,
    gateId: gate,
    direction: 'in',
    trailer: { number: trailer, carrierId: m.carrierId },
    truck: { plate: `P-${trailer}`, plateRegion: 'TX' },
    driverId: m.driverId,
    locationId: m.spotId,
  });
  expect(movement.status, movement.text).toBe(201);
  return { gateId: gate, movementId: movement.body.id as string, truckId: movement.body.truckId as string };
}

/**
 * The yard driver's day at the edge: inspection of the truck, a session with location points,
 * the task started and completed.
 */
export async function driverWork(edge: Client, m: MasterData, truckId: string, taskId: string) {
  const inspection = await edge.post(`/api/truck/${truckId}/inspections`, {
    yardId: m.yardId,
    inspectedAt: new Date().toISOString(),
    result: 'pass',
    items: [{ code: 'brakes', ok: true }],
  });
  expect(inspection.status, inspection.text).toBe(201);
  const login = await edge
    .as(undefined)
    .post('/api/auth/driver-login', { driverCode: m.driverCode, pin: '2468' });
  expect(login.status, login.text).toBe(200);
  const driver = edge.as(login.body.token);
  const session = await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId });
  expect(session.status, session.text).toBe(201);
  const at = new Date().toISOString();
  const points = await driver.post('/api/yard-task/driver/session/locations', {
    points: [
      { at, lat: 32.7, lon: -96.8 },
      { at, lat: 32.71, lon: -96.81 },
    ],
  });
  expect(points.status, points.text).toBeLessThan(300);
  const assigned = await edge.get(`/api/yard-task/${taskId}`);
  expect(assigned.body).toMatchObject({ status: 'ASSIGNED', driverId: m.driverId });
  const started = await driver.post('/api/yard-task/driver/start', { taskIds: [taskId] });
  expect(started.body.results[0].ok, started.text).toBe(true);
  const completed = await driver.post('/api/yard-task/driver/complete', { taskIds: [taskId] });
  expect(completed.body.results[0].ok, completed.text).toBe(true);
  return { sessionId: session.body.id as string, driver };
}

export function count(
  app: { db: { sqlite: import('better-sqlite3').Database } },
  sql: string,
  ...args: unknown[]
) {
  return Number(
    app.db.sqlite
      .prepare(sql)
      .pluck()
      .get(...args) ?? 0,
  );
}

/** The first column of the first row (undefined when none), on either database (test/helpers/http.ts `query`). */
export async function valueAt(db: AppDatabase, sql: string, ...args: unknown[]): Promise<unknown> {
  const [row] = await query(db, sql, ...args);
  return row === undefined ? undefined : Object.values(row)[0];
}

/** A count(*) on either database, as a number. */
export async function countAt(db: AppDatabase, sql: string, ...args: unknown[]): Promise<number> {
  return Number((await valueAt(db, sql, ...args)) ?? 0);
}
