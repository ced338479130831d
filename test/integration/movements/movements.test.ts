import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../../shared/bus.js';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import type { RelayBinding } from '../../../shared/hardware.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { copyEdgeRows } from '../../helpers/edge-rows.js';
import { Client, clientWithRole, query, rows } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

// Recording movements (check-in and check-out, gates and relays, the driver check) is the edge's:
// those suites run at an edge on SQLite. The cloud's side, on each database, is at the end.

const RELAY: RelayBinding = { driver: 'simulated', channel: 1, pulseMs: 200, activeLow: false };

let t: TestApp;
let admin: Client;
const clock = new ManualClock(Date.parse('2026-01-15T12:00:00Z'));
const events: PublishedEvent[] = [];
let yardId: string;
let otherYardId: string;
let inGate: string;
let bothGate: string;
let manualGate: string;
let foreignGate: string;
let spotId: string;
let carrierId: string;
let blockedCarrierId: string;
let driverId: string;

const seedDriver = (extra: Record<string, unknown> = {}) =>
  seedRows(t).driver({
    kind: 'carrier',
    carrierId,
    firstName: 'Dana',
    lastName: 'Cruz',
    licenseNumber: `L${Math.random().toString(36).slice(2, 9).toUpperCase()}`,
    licenseRegion: 'TX',
    licenseExpiresOn: '2030-01-01',
    ...extra,
  });

const count = (table: string) => rows(t.db, `SELECT count(*) AS n FROM ${table}`)[0].n as number;
const snapshot = () => ({
  movement: count('movement'),
  visit: count('visit'),
  trailer: count('trailer'),
  truck: count('truck'),
  changeLog: count('change_log'),
  trailers: rows(t.db, 'SELECT id, yard_id, version FROM trailer ORDER BY id'),
});

beforeAll(async () => {
  t = await startTestApp({ clock });
  admin = new Client(t.url, t.adminToken);
  t.core.bus.subscribe((e) => events.push(e));
  const seedRow = seedRows(t);
  yardId = await seedRow.yard('DAL');
  otherYardId = await seedRow.yard('HOU');
  inGate = await seedRow.gate(yardId, 'Inbound', RELAY, 'in');
  bothGate = await seedRow.gate(yardId, 'Main', RELAY);
  manualGate = await seedRow.gate(yardId, 'Side', null);
  foreignGate = await seedRow.gate(otherYardId, 'Houston', RELAY);
  spotId = await seedRow.location(yardId, 'A-01');
  carrierId = await seedRow.carrier('Acme', { scac: 'ACME' });
  blockedCarrierId = await seedRow.carrier('Shady', { scac: 'SHDY', status: 'blocked' });
  driverId = await seedDriver();
});
afterAll(() => t.close());

describe('check-in and check-out', () => {
  it('checks in an unknown trailer and truck: creates them, puts them in the yard, opens a visit', async () => {
    const res = await admin.post('/api/movement', {
      yardId,
      gateId: inGate,
      direction: 'in',
      at: '2026-01-15T10:00:00Z',
      trailer: { number: 'TR-100', carrierId, type: 'reefer' },
      truck: { plate: ' tx 1234 ', plateRegion: 'TX', unitNumber: '77' },
      driverId,
      locationId: spotId,
      loadStatus: 'loaded',
      sealNumber: 'S-9',
      plateRead: 'TX1234',
      notes: 'dock 4',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/movement/${res.body.id}`);
    expect(res.body).toMatchObject({
      yardId,
      gateId: inGate,
      direction: 'in',
      at: '2026-01-15T10:00:00.000Z',
      driverId,
      carrierId,
      locationId: spotId,
      loadStatus: 'loaded',
      sealNumber: 'S-9',
      warnings: [],
      actuation: null,
      actuationId: null,
      overrideReason: null,
    });
    const { trailerId, truckId } = res.body.createdUnits;
    expect(res.body).toMatchObject({ trailerId, truckId });
    expect(rows(t.db, 'SELECT * FROM trailer WHERE id = ?', trailerId)[0]).toMatchObject({
      number: 'TR-100',
      carrier_id: carrierId,
      type: 'reefer',
      yard_id: yardId,
      location_id: spotId,
      load_status: 'loaded',
      seal_number: 'S-9',
      arrived_at: Date.parse('2026-01-15T10:00:00Z'),
    });
    expect(rows(t.db, 'SELECT plate, yard_id, unit_number FROM truck WHERE id = ?', truckId)[0]).toEqual({
      plate: 'TX 1234',
      yard_id: yardId,
      unit_number: '77',
    });
    expect(rows(t.db, 'SELECT * FROM visit WHERE in_movement_id = ?', res.body.id)[0]).toMatchObject({
      yard_id: yardId,
      unit_kind: 'trailer',
      trailer_id: trailerId,
      truck_id: truckId,
      carrier_id: carrierId,
      out_at: null,
    });
    const logged = rows(
      t.db,
      'SELECT entity FROM change_log WHERE entity_id IN (?, ?, ?)',
      res.body.id,
      trailerId,
      truckId,
    );
    expect(logged.map((l) => l.entity).sort()).toEqual(['movement', 'trailer', 'truck']);
    expect(events.at(-1)).toMatchObject({ type: 'movement.created', yardId, data: { id: res.body.id } });
    expect((await admin.get(`/api/movement/${res.body.id}`)).body.trailerId).toBe(trailerId);
  });

  it('a second check-in of a unit in a yard is 409 already-in-yard and changes nothing; force records a warning', async () => {
    const before = snapshot();
    const again = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      trailer: { number: 'tr-100' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'already-in-yard', unit: 'trailer', yardId });
    expect(snapshot()).toEqual(before);

    const forced = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      trailer: { number: 'TR-100' },
      force: true,
      at: '2026-01-15T10:30:00Z',
    });
    expect(forced.status).toBe(201);
    expect(forced.body.warnings).toEqual([expect.stringMatching(/^already-in-yard: /)]);
    expect(forced.body.createdUnits.trailerId).toBeNull();
    const visits = rows(
      t.db,
      'SELECT in_movement_id, out_at FROM visit WHERE trailer_id = ? ORDER BY in_at',
      forced.body.trailerId,
    );
    expect(visits).toHaveLength(2);
    expect(visits[0].out_at).toBe(Date.parse('2026-01-15T10:30:00Z'));
    expect(visits[1]).toEqual({ in_movement_id: forced.body.id, out_at: null });
  });

  it('finds a trailer by its number typed in any case, letters beyond ASCII too', async () => {
    const first = await admin.post('/api/movement', { yardId, direction: 'in', trailer: { number: 'Öl-1' } });
    expect(first.status, first.text).toBe(201);
    const before = snapshot();
    const again = await admin.post('/api/movement', { yardId, direction: 'in', trailer: { number: 'öl-1' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'already-in-yard', unit: 'trailer' });
    expect(snapshot()).toEqual(before);
  });

  it('checks out: takes units out of the yard and closes the visit with its dwell', async () => {
    const trailer = rows(t.db, "SELECT id FROM trailer WHERE number = 'TR-100'")[0].id;
    const truck = rows(t.db, "SELECT id FROM truck WHERE plate = 'TX 1234'")[0].id;
    const out = await admin.post('/api/movement', {
      yardId,
      gateId: bothGate,
      direction: 'out',
      at: '2026-01-15T11:30:00Z',
      trailer: { id: trailer },
      truck: { plate: 'tx 1234' },
      loadStatus: 'empty',
    });
    expect(out.status).toBe(201);
    expect(out.body).toMatchObject({ trailerId: trailer, truckId: truck, warnings: [] });
    expect(
      rows(
        t.db,
        'SELECT yard_id, location_id, arrived_at, load_status FROM trailer WHERE id = ?',
        trailer,
      )[0],
    ).toEqual({
      yard_id: null,
      location_id: null,
      arrived_at: null,
      load_status: 'empty',
    });
    expect(rows(t.db, 'SELECT yard_id FROM truck WHERE id = ?', truck)[0].yard_id).toBeNull();
    const visits = await admin.get(`/api/visit?trailerId=${trailer}`);
    expect(visits.status).toBe(200);
    expect(visits.body.items[0]).toMatchObject({
      outMovementId: out.body.id,
      open: false,
      dwellMs: 3_600_000,
      dwell: 'PT1H',
    });

    const before = snapshot();
    const notIn = await admin.post('/api/movement', { yardId, direction: 'out', trailer: { id: trailer } });
    expect(notIn.status).toBe(409);
    expect(notIn.body.code).toBe('not-in-yard');
    const unknownOut = await admin.post('/api/movement', {
      yardId,
      direction: 'out',
      trailer: { number: 'NEW-1' },
    });
    expect(unknownOut.status).toBe(409);
    expect(snapshot()).toEqual(before);
    const forced = await admin.post('/api/movement', {
      yardId,
      direction: 'out',
      trailer: { id: trailer },
      force: true,
    });
    expect(forced.status).toBe(201);
    expect(forced.body.warnings).toEqual([expect.stringMatching(/^not-in-yard: /)]);
  });

  it('a truck on its own opens and closes a truck visit; open visits dwell up to now', async () => {
    const inn = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      truck: { plate: 'BOB-1' },
      at: '2026-01-15T09:00:00Z',
    });
    expect(inn.status).toBe(201);
    const open = await admin.get(`/api/visit?open=true&yardId=${yardId}`);
    const visit = open.body.items.find((v: any) => v.truckId === inn.body.truckId);
    expect(visit).toMatchObject({ unitKind: 'truck', open: true, dwellMs: 3 * 3_600_000, outAt: null });
    const out = await admin.post('/api/movement', {
      yardId,
      direction: 'out',
      truck: { id: inn.body.truckId },
    });
    expect(out.status).toBe(201);
    expect(rows(t.db, 'SELECT out_movement_id FROM visit WHERE id = ?', visit.id)[0].out_movement_id).toBe(
      out.body.id,
    );
  });
});

describe('concurrent movements', () => {
  it('share commits but stay separate: one check-in of a trailer wins, a refused one writes nothing', async () => {
    const before = count('movement');
    const same = await Promise.all(
      Array.from({ length: 6 }, () =>
        admin.post('/api/movement', { yardId, direction: 'in', trailer: { number: 'RACE-1' } }),
      ),
    );
    expect(same.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const distinct = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        admin.post('/api/movement', { yardId, direction: 'in', truck: { plate: `RACE-T${i}` } }),
      ),
    );
    expect(distinct.every((r) => r.status === 201)).toBe(true);
    expect(count('movement')).toBe(before + 7);
    expect(rows(t.db, "SELECT count(*) AS n FROM trailer WHERE number = 'RACE-1'")[0].n).toBe(1);
  });
});

describe('driver check', () => {
  it('refuses a blocked driver, an expired licence and a blocked carrier with 409 and writes nothing', async () => {
    const blocked = await seedDriver({ status: 'blocked' });
    const expired = await seedDriver({ licenseExpiresOn: '2025-12-31' });
    const ofBlockedCarrier = await seedDriver({ carrierId: blockedCarrierId });
    const cases: Array<[string, string]> = [
      [blocked, 'driver-blocked'],
      [expired, 'license-expired'],
      [ofBlockedCarrier, 'carrier-blocked'],
    ];
    for (const [id, reason] of cases) {
      const before = snapshot();
      const res = await admin.post('/api/movement', {
        yardId,
        direction: 'in',
        driverId: id,
        trailer: { number: `D-${reason}` },
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('driver-not-allowed');
      expect(res.body.reasons).toContain(reason);
      expect(snapshot()).toEqual(before);
    }
    const overridden = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      driverId: blocked,
      trailer: { number: 'D-OVR' },
      override: { reason: 'supervisor approved by phone' },
    });
    expect(overridden.status).toBe(201);
    expect(overridden.body.overrideReason).toBe('supervisor approved by phone');
    expect(overridden.body.warnings).toEqual(['driver-override: driver-blocked']);
  });

  it('with gate.requireDriverCheck off a refused driver passes', async () => {
    const blocked = await seedDriver({ status: 'blocked' });
    expect(
      (await admin.put('/api/settings', { settings: { 'gate.requireDriverCheck': false } })).status,
    ).toBe(200);
    const res = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      driverId: blocked,
      trailer: { number: 'D-OFF' },
    });
    await admin.put('/api/settings', { settings: { 'gate.requireDriverCheck': null } });
    expect(res.status).toBe(201);
    expect(res.body.overrideReason).toBeNull();
  });
});

describe('gates, actuation, snapshot', () => {
  it('actuate pulses the gate after recording; the actuation links back to the movement', async () => {
    const res = await admin.post('/api/movement', {
      yardId,
      gateId: bothGate,
      direction: 'in',
      trailer: { number: 'ACT-1' },
      actuate: true,
      snapshot: true,
    });
    expect(res.status).toBe(201);
    expect(res.body.actuation).toMatchObject({ result: 'ok', code: null, error: null });
    expect(res.body.actuationId).toBe(res.body.actuation.id);
    expect(res.body.warnings).toEqual(['snapshot-unavailable: gate Main has no enabled cameras']);
    expect(t.gates.history.at(-1)).toMatchObject({ gateId: bothGate });
    expect(
      rows(t.db, 'SELECT movement_id, result FROM gate_actuation WHERE id = ?', res.body.actuationId)[0],
    ).toEqual({
      movement_id: res.body.id,
      result: 'ok',
    });
    expect((await admin.get(`/api/movement/${res.body.id}`)).body.actuationId).toBe(res.body.actuationId);
  });

  it('the movement stands when the gate cannot be pulsed; the answer says why', async () => {
    const res = await admin.post('/api/movement', {
      yardId,
      gateId: manualGate,
      direction: 'in',
      trailer: { number: 'ACT-2' },
      actuate: true,
    });
    expect(res.status).toBe(201);
    expect(res.body.actuation).toMatchObject({ result: 'refused', code: 'no-relay' });
    expect(rows(t.db, 'SELECT id FROM movement WHERE id = ?', res.body.id)).toHaveLength(1);
  });

  it('a gate of another yard is 404, a gate of the wrong direction 409 gate-direction', async () => {
    const before = snapshot();
    const foreign = await admin.post('/api/movement', {
      yardId,
      gateId: foreignGate,
      direction: 'in',
      trailer: { number: 'G-1' },
    });
    expect(foreign.status).toBe(404);
    const wrongWay = await admin.post('/api/movement', {
      yardId,
      gateId: inGate,
      direction: 'out',
      trailer: { number: 'G-1' },
    });
    expect(wrongWay.status).toBe(409);
    expect(wrongWay.body.code).toBe('gate-direction');
    expect(snapshot()).toEqual(before);
  });
});

describe('bad input', () => {
  it('answers 400 with field paths, 404 for unknown references, and writes nothing', async () => {
    const before = snapshot();
    const empty = await admin.post('/api/movement', { yardId, direction: 'in' });
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((e: any) => e.path)).toContain('body.trailer');
    const bad = await admin.post('/api/movement', {
      yardId: 'x',
      direction: 'sideways',
      at: 'yesterday',
      trailer: { id: newId(), number: 'BOTH' },
      extra: 1,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['body.yardId', 'body.direction', 'body.at']),
    );
    const both = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      trailer: { id: newId(), number: 'X' },
    });
    expect(both.status).toBe(400);
    expect(both.body.errors[0].path).toBe('body.trailer');
    const noGate = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      truck: { plate: 'Q1' },
      actuate: true,
    });
    expect(noGate.status).toBe(400);
    expect(noGate.body.errors[0].path).toBe('body.gateId');
    const future = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      truck: { plate: 'Q1' },
      at: '2026-01-16T00:00:00Z',
    });
    expect(future.status).toBe(400);
    expect(future.body.errors[0].path).toBe('body.at');

    const unknown = newId();
    for (const body of [
      { yardId: unknown, direction: 'in', truck: { plate: 'Q1' } },
      { yardId, direction: 'in', trailer: { id: unknown } },
      { yardId, direction: 'in', truck: { id: unknown } },
      { yardId, direction: 'in', truck: { plate: 'Q1' }, locationId: unknown },
      { yardId, direction: 'in', truck: { plate: 'Q1' }, driverId: unknown },
      { yardId, direction: 'in', truck: { plate: 'Q1' }, carrierId: unknown },
      { yardId, direction: 'in', truck: { plate: 'Q1' }, attachmentIds: [unknown] },
      { yardId, direction: 'in', truck: { plate: 'Q1' }, correctsId: unknown },
    ]) {
      const res = await admin.post('/api/movement', body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.code).toBe('not-found');
    }
    expect(snapshot()).toEqual(before);
    expect((await admin.get('/api/movement/nope')).status).toBe(400);
    expect((await admin.get(`/api/movement/${unknown}`)).status).toBe(404);
    expect((await admin.get('/api/movement?cursor=garbage')).status).toBe(400);
    expect((await admin.get('/api/visit?open=yes')).status).toBe(400);
  });
});

describe('lists and access', () => {
  it('the OpenAPI document lists the movement, visit, dashboard and hardware operations', async () => {
    const doc = (await admin.get('/v3/api-docs')).body;
    expect(doc.paths['/api/movement'].post.tags).toEqual(['Movement Controller']);
    expect(doc.paths['/api/visit'].get).toBeDefined();
    expect(doc.paths['/api/dashboard/yard/error5xx'].get.tags).toEqual(['Dashboard Controller']);
    expect(doc.paths['/api/hardware/gate/{gateId}/actuate'].post.tags).toEqual(['Hardware']);
    expect(doc.components.schemas).toHaveProperty('MovementCreate');
  });

  it('lists movements newest first with filters and keyset paging', async () => {
    const all = await admin.get(`/api/movement?yardId=${yardId}&limit=500`);
    const ats = all.body.items.map((m: any) => m.at);
    expect([...ats].sort().reverse()).toEqual(ats);
    const first = await admin.get(`/api/movement?yardId=${yardId}&limit=3`);
    const second = await admin.get(`/api/movement?yardId=${yardId}&limit=3&cursor=${first.body.nextCursor}`);
    expect([...first.body.items, ...second.body.items].map((m: any) => m.id)).toEqual(
      all.body.items.slice(0, 6).map((m: any) => m.id),
    );
    const outs = await admin.get(
      `/api/movement?direction=out&from=2026-01-15T11:00:00Z&to=2026-01-15T12:00:00Z`,
    );
    expect(outs.body.items.length).toBeGreaterThan(0);
    expect(outs.body.items.every((m: any) => m.direction === 'out' && m.at >= '2026-01-15T11:00')).toBe(true);
    const byCarrier = await admin.get(`/api/movement?carrierId=${carrierId}`);
    expect(byCarrier.body.items.every((m: any) => m.carrierId === carrierId)).toBe(true);
  });

  it('admin and gate record; other staff only read; yard scope limits what is seen and written', async () => {
    const gateUser = await clientWithRole(admin, 'gate');
    expect(
      (await gateUser.post('/api/movement', { yardId, direction: 'in', truck: { plate: 'ROLE-1' } })).status,
    ).toBe(201);
    for (const role of ['dispatcher', 'viewer', 'billing'] as const) {
      const c = await clientWithRole(admin, role);
      expect(
        (await c.post('/api/movement', { yardId, direction: 'in', truck: { plate: 'ROLE-2' } })).status,
      ).toBe(403);
      expect((await c.get('/api/movement')).status).toBe(200);
      expect((await c.get('/api/visit')).status).toBe(200);
    }
    const houston = await clientWithRole(admin, 'gate', { yardIds: [otherYardId] });
    const refused = await houston.post('/api/movement', {
      yardId,
      direction: 'in',
      truck: { plate: 'ROLE-3' },
    });
    expect(refused.status).toBe(403);
    const own = await houston.post('/api/movement', {
      yardId: otherYardId,
      direction: 'in',
      truck: { plate: 'ROLE-3' },
    });
    expect(own.status).toBe(201);
    const seen = await houston.get('/api/movement?limit=500');
    expect(seen.body.items.map((m: any) => m.id)).toEqual([own.body.id]);
    expect((await houston.get(`/api/visit`)).body.items.every((v: any) => v.yardId === otherYardId)).toBe(
      true,
    );
    expect((await houston.get(`/api/movement?yardId=${yardId}`)).status).toBe(403);
    const dallasMove = (await admin.get(`/api/movement?yardId=${yardId}&limit=1`)).body.items[0].id;
    expect((await houston.get(`/api/movement/${dallasMove}`)).status).toBe(404);
  });
});

/**
 * The cloud's side of movements, on each database (docs/architecture.md "Two databases, and several cloud nodes"). Movements are recorded at the edge
 * (above; the cloud answers 409 edge-owned): here an edge records a morning, its rows reach the
 * cloud, and the cloud answers the same lists, pages and visits as the edge does.
 */
describe.each(TEST_DIALECTS)('movements at the cloud (%s)', (dialect) => {
  const morning = new ManualClock(Date.parse('2026-01-15T12:00:00Z'));
  let edgeApp: TestApp;
  let cloud: TestApp<AppDatabase>;
  let atEdge: Client;
  let atCloud: Client;
  let north: string;
  let south: string;
  let carrier: string;
  let trailerId: string;

  beforeAll(async () => {
    edgeApp = await startTestApp({ clock: morning });
    cloud = await startTestApp({ clock: morning, dialect, env: { YARD_ROLE: 'cloud' } });
    atEdge = new Client(edgeApp.url, edgeApp.adminToken);
    atCloud = new Client(cloud.url, cloud.adminToken);
    const seedRow = seedRows(edgeApp);
    north = await seedRow.yard('NTH');
    south = await seedRow.yard('STH');
    const gate = await seedRow.gate(north, 'North gate', null);
    const spot = await seedRow.location(north, 'N-01');
    carrier = await seedRow.carrier('Cloudy Freight', { scac: 'CLDY' });
    const driver = await seedRow.driver({
      kind: 'carrier',
      carrierId: carrier,
      licenseExpiresOn: '2030-01-01',
    });
    const record = async (body: Record<string, unknown>) => {
      const res = await atEdge.post('/api/movement', body);
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    const first = await record({
      yardId: north,
      gateId: gate,
      direction: 'in',
      at: '2026-01-15T08:00:00Z',
      trailer: { number: 'CLD-1', carrierId: carrier },
      truck: { plate: 'CLD 77' },
      driverId: driver,
      locationId: spot,
      loadStatus: 'loaded',
    });
    trailerId = first.trailerId;
    await record({ yardId: north, direction: 'in', at: '2026-01-15T09:00:00Z', truck: { plate: 'CLD 78' } });
    await record({
      yardId: south,
      direction: 'in',
      at: '2026-01-15T09:30:00Z',
      trailer: { number: 'CLD-2' },
    });
    await record({ yardId: south, direction: 'in', at: '2026-01-15T10:00:00Z', truck: { plate: 'CLD 79' } });
    await record({ yardId: north, direction: 'out', at: '2026-01-15T10:30:00Z', trailer: { id: trailerId } });
    await copyEdgeRows(edgeApp.db, cloud.db, [
      'yard',
      'location',
      'gate',
      'carrier',
      'driver',
      'trailer',
      'truck',
      'movement',
      'visit',
    ]);
  });
  afterAll(async () => {
    await cloud?.close();
    await edgeApp?.close();
  });

  const countAtCloud = async (table: string) =>
    (await query(cloud.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

  it('refuses to record a movement (409 edge-owned) and writes nothing', async () => {
    const before = [
      await countAtCloud('movement'),
      await countAtCloud('visit'),
      await countAtCloud('trailer'),
    ];
    const res = await atCloud.post('/api/movement', {
      yardId: north,
      direction: 'in',
      trailer: { number: 'NO-1' },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'edge-owned', entity: 'movement' });
    expect([
      await countAtCloud('movement'),
      await countAtCloud('visit'),
      await countAtCloud('trailer'),
    ]).toEqual(before);
  });

  it('lists the movements as the edge does: filters, newest first, keyset pages, one by id', async () => {
    const paths = [
      '/api/movement?limit=500',
      `/api/movement?yardId=${north}`,
      `/api/movement?yardId=${south}&direction=in`,
      '/api/movement?direction=out',
      '/api/movement?from=2026-01-15T09:00:00Z&to=2026-01-15T10:00:00Z',
      `/api/movement?carrierId=${carrier}`,
      `/api/movement?trailerId=${trailerId}`,
    ];
    for (const path of paths) {
      const there = await atEdge.get(path);
      const here = await atCloud.get(path);
      expect(here.status, path).toBe(200);
      expect(here.body.items.length, path).toBeGreaterThan(0);
      expect(here.body, path).toEqual(there.body);
    }
    const all = (await atCloud.get('/api/movement?limit=500')).body.items;
    expect(all.map((m: any) => m.at)).toEqual([
      '2026-01-15T10:30:00.000Z',
      '2026-01-15T10:00:00.000Z',
      '2026-01-15T09:30:00.000Z',
      '2026-01-15T09:00:00.000Z',
      '2026-01-15T08:00:00.000Z',
    ]);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await atCloud.get(`/api/movement?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.body.items.map((m: any) => m.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all.map((m: any) => m.id));
    const one = await atCloud.get(`/api/movement/${all[4].id}`);
    expect(one.body).toEqual((await atEdge.get(`/api/movement/${all[4].id}`)).body);
    expect(one.body).toMatchObject({ trailerId, carrierId: carrier, loadStatus: 'loaded' });
  });

  it('lists the visits as the edge does: open and closed, with their dwell', async () => {
    for (const path of [
      '/api/visit?limit=500',
      '/api/visit?open=true',
      '/api/visit?open=false',
      `/api/visit?trailerId=${trailerId}`,
      `/api/visit?yardId=${south}`,
      '/api/visit?limit=1',
    ]) {
      const here = await atCloud.get(path);
      expect(here.status, path).toBe(200);
      expect(here.body, path).toEqual((await atEdge.get(path)).body);
    }
    const closed = (await atCloud.get(`/api/visit?trailerId=${trailerId}`)).body.items;
    expect(closed).toMatchObject([{ open: false, dwellMs: 2.5 * 3_600_000, dwell: 'PT2H30M' }]);
    const open = (await atCloud.get(`/api/visit?open=true&yardId=${south}`)).body.items;
    expect(open.map((v: any) => [v.unitKind, v.dwellMs])).toEqual([
      ['truck', 2 * 3_600_000],
      ['trailer', 2.5 * 3_600_000],
    ]);
  });

  it('a yard-scoped user at the cloud sees its yard only', async () => {
    const southern = await clientWithRole(atCloud, 'gate', { yardIds: [south] });
    const seen = (await southern.get('/api/movement?limit=500')).body.items;
    expect(seen.map((m: any) => m.yardId)).toEqual([south, south]);
    expect((await southern.get('/api/visit')).body.items.every((v: any) => v.yardId === south)).toBe(true);
    expect((await southern.get(`/api/movement?yardId=${north}`)).status).toBe(403);
    const northern = (await atCloud.get(`/api/movement?yardId=${north}&limit=1`)).body.items[0].id;
    expect((await southern.get(`/api/movement/${northern}`)).status).toBe(404);
  });
});
