import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entityChecksums } from '../../shared/sync/checksum.js';
import { Client } from '../helpers/http.js';
import { SITE, SyncPair, total } from './sync-apply-fixture.js';

let pair: SyncPair;

beforeEach(async () => {
  pair = await SyncPair.start();
});
afterEach(async () => {
  await pair.close();
});

const count = (app: { db: { sqlite: import('better-sqlite3').Database } }, sql: string, ...args: unknown[]) =>
  app.db.sqlite
    .prepare(sql)
    .pluck()
    .get(...args) as number;

/** Master data made at the cloud over HTTP: a yard of SITE with a spot and a door, a carrier, a yard driver, a user. */
async function cloudMasterData() {
  const api = pair.cloudApi;
  const yard = await api.post('/api/yard', {
    code: 'NTH',
    name: 'North',
    timeZone: 'America/Chicago',
    siteId: SITE,
  });
  expect(yard.status, yard.text).toBe(201);
  const yardId = yard.body.id as string;
  const spot = await api.post(`/api/yard/${yardId}/location`, { kind: 'spot', name: 'A-01' });
  const door = await api.post(`/api/yard/${yardId}/location`, { kind: 'door', name: 'D-01' });
  expect(door.status, door.text).toBe(201);
  const carrier = await api.post('/api/carrier', { name: 'Acme Freight', scac: 'ACME' });
  expect(carrier.status, carrier.text).toBe(201);
  const driver = await api.post('/api/driver', {
    kind: 'yard',
    firstName: 'Jo',
    lastName: 'Jockey',
    driverCode: 'J01',
    pin: '2468',
  });
  expect(driver.status, driver.text).toBe(201);
  const user = await api.post('/api/user', {
    username: 'gatekeeper',
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
    userId: user.body.id as string,
  };
}

function expectSameRows(entities: string[]) {
  const cloud = entityChecksums(pair.cloud.db.sqlite);
  const edge = entityChecksums(pair.edge.db.sqlite);
  for (const e of entities) {
    expect(edge[e], e).toEqual(cloud[e]);
    expect(cloud[e]!.count, e).toBeGreaterThan(0);
  }
}

describe('apply: records reach the side that needs them', () => {
  it('cloud master data reaches the edge; the edge’s movements, inspections, sessions and task progress reach the cloud', async () => {
    const m = await cloudMasterData();
    const task = await pair.cloudApi.post('/api/yard-task', {
      yardId: m.yardId,
      type: 'move',
      fromLocationId: m.spotId,
      toLocationId: m.doorId,
      priority: 2,
    });
    expect(task.status, task.text).toBe(201);

    const down = total(pair.down());
    expect(down.deadLetters).toBe(0);
    expect(down.applied).toBeGreaterThan(0);
    expectSameRows(['yard', 'location', 'carrier', 'driver', 'user', 'yard_task']);

    // The edge works with what it received: admin login, the driver's PIN, the yard.
    const edge = await pair.loginEdge();
    const gate = await edge.post(`/api/yard/${m.yardId}/gate`, { name: 'Main', direction: 'both' });
    expect(gate.status, gate.text).toBe(201);
    const checkIn = await edge.post('/api/movement', {
      yardId: m.yardId,
      gateId: gate.body.id,
      direction: 'in',
      trailer: { number: 'TR-1', carrierId: m.carrierId },
      truck: { plate: 'TX1', plateRegion: 'TX' },
      driverId: m.driverId,
      locationId: m.spotId,
    });
    expect(checkIn.status, checkIn.text).toBe(201);
    const inspection = await edge.post(`/api/truck/${checkIn.body.truckId}/inspections`, {
      yardId: m.yardId,
      inspectedAt: new Date(pair.clock.now()).toISOString(),
      result: 'pass',
      items: [{ code: 'brakes', ok: true }],
    });
    expect(inspection.status, inspection.text).toBe(201);
    const login = await edge.as(undefined).post('/api/auth/driver-login', { driverCode: 'J01', pin: '2468' });
    expect(login.status, login.text).toBe(200);
    const driver = edge.as(login.body.token);
    const session = await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId });
    expect(session.status, session.text).toBe(201);
    const at = new Date(pair.clock.now()).toISOString();
    const points = await driver.post('/api/yard-task/driver/session/locations', {
      points: [
        { at, lat: 32.7, lon: -96.8 },
        { at, lat: 32.71, lon: -96.81 },
      ],
    });
    expect(points.status, points.text).toBeLessThan(300);
    // Auto-dispatch at the edge gave the task to the driver once the session started.
    const assigned = await edge.get(`/api/yard-task/${task.body.id}`);
    expect(assigned.body).toMatchObject({ status: 'ASSIGNED', driverId: m.driverId });
    pair.clock.advance(60_000);
    expect(
      (await driver.post('/api/yard-task/driver/start', { taskIds: [task.body.id] })).body.results[0].ok,
    ).toBe(true);
    pair.clock.advance(60_000);
    expect(
      (await driver.post('/api/yard-task/driver/complete', { taskIds: [task.body.id] })).body.results[0].ok,
    ).toBe(true);

    const up = total(pair.up());
    expect(up.deadLetters).toBe(0);
    expectSameRows([
      'gate',
      'movement',
      'truck',
      'trailer',
      'truck_inspection',
      'driver_session',
      'session_location',
      'yard_task',
      'task_event',
    ]);
    const atCloud = await pair.cloudApi.get(`/api/yard-task/${task.body.id}`);
    expect(atCloud.body).toMatchObject({ status: 'COMPLETED', driverId: m.driverId });
    // Nothing the cloud applied needs to go back: the site's down log gained nothing new but what
    // the site itself lacks.
    pair.settle();
    const all = Object.keys(entityChecksums(pair.cloud.db.sqlite));
    expect(entityChecksums(pair.edge.db.sqlite)).toEqual(
      Object.fromEntries(all.map((e) => [e, entityChecksums(pair.cloud.db.sqlite)[e]])),
    );
    expect(count(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(new Client(pair.cloud.url)).toBeDefined();
  });
});
