import { expect } from 'vitest';
import type { Client } from '../../helpers/http.js';

/** Master data made at the cloud over HTTP for a site: a yard with a spot and a door, a carrier, a yard driver, a user. */
export async function cloudMasterData(api: Client, siteId: string, tag = 'A') {
  const yard = await api.post('/api/yard', {
    code: `Y${tag}`,
    name: `Yard ${tag}`,
    timeZone: 'America/Chicago',
    siteId,
  });
  expect(yard.status, yard.text).toBe(201);
  const yardId = yard.body.id as string;
  const spot = await api.post(`/api/yard/${yardId}/location`, { kind: 'spot', name: `A-${tag}` });
  expect(spot.status, spot.text).toBe(201);
  const door = await api.post(`/api/yard/${yardId}/location`, { kind: 'door', name: `D-${tag}` });
  expect(door.status, door.text).toBe(201);
  const carrier = await api.post('/api/carrier', { name: `Carrier ${tag}`, scac: `SC${tag}`.slice(0, 4) });
  expect(carrier.status, carrier.text).toBe(201);
  const driver = await api.post('/api/driver', {
    kind: 'yard',
    firstName: 'Jo',
    lastName: `Jockey ${tag}`,
    driverCode: `J${tag}`,
    pin: '2468',
  });
  expect(driver.status, driver.text).toBe(201);
  const user = await api.post('/api/user', {
    username: `gate-${tag}`,
    password: 'gate-password-1',
    role: 'gate',
  });
  expect(user.status, user.text).toBe(201);
  return {
    yardId,
    spotId: spot.body.id as string,
    doorId: door.body.id as string,
    carrierId: carrier.body.id as string,
    driverId: driver.body.id as string,
    driverCode: `J${tag}`,
    userId: user.body.id as string,
  };
}

export type MasterData = Awaited<ReturnType<typeof cloudMasterData>>;

export async function createTask(api: Client, m: MasterData): Promise<string> {
  const task = await api.post('/api/yard-task', {
    yardId: m.yardId,
    type: 'move',
    fromLocationId: m.spotId,
    toLocationId: m.doorId,
    priority: 2,
  });
  expect(task.status, task.text).toBe(201);
  return task.body.id as string;
}

/** A gate and a truck check-in at the edge; returns the movement and truck ids. */
export async function checkIn(edge: Client, m: MasterData, trailer: string, gateId?: string) {
  let gate = gateId;
  if (!gate) {
    const made = await edge.post(`/api/yard/${m.yardId}/gate`, {
      name: `Gate ${trailer}`,
      direction: 'both',
    });
    expect(made.status, made.text).toBe(201);
    gate = made.body.id as string;
  }
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
