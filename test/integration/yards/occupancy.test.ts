import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * A yard's occupancy in one request (docs/web-apps.md "Yard", docs/api.md): trailers against
 * capacity, the active spots, doors and staging lanes and how many hold a trailer, and the trailers
 * on none of them. The Yard screen's occupancy panel without reading every place page by page.
 */
describe.each(TEST_DIALECTS)('yard occupancy (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  let yardEmpty: string;
  const place: Record<string, string> = {};

  async function location(yardId: string, body: Record<string, unknown>) {
    const res = await admin.post(`/api/yard/${yardId}/location`, body);
    expect(res.status, res.text).toBe(201);
    place[body.name as string] = res.body.id;
    return res.body.id as string;
  }

  async function trailer(number: string, yardId: string, locationId: string | null) {
    const res = await admin.post('/api/trailer', { number });
    expect(res.status, res.text).toBe(201);
    await t.core.changes.update(t.core.kysely, 'trailer', res.body.id, {
      yardId,
      locationId,
      arrivedAt: Date.parse('2026-03-01T00:00:00Z'),
    });
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    yardA = await seedRows(t).yard('OA');
    yardB = await seedRows(t).yard('OB', { capacity: 40 });
    yardEmpty = await seedRows(t).yard('OE');
    await location(yardA, { kind: 'spot', name: 'S1', capacity: 2 });
    await location(yardA, { kind: 'door', name: 'D1' });
    await location(yardA, { kind: 'staging', name: 'L1', capacity: 5 });
    await location(yardA, { kind: 'spot', name: 'S-OFF', capacity: 3, status: 'inactive' });
    await location(yardA, { kind: 'zone', name: 'Z1', capacity: 50 });
    await location(yardB, { kind: 'spot', name: 'B1', capacity: 7 });
    // Yard A: two on S1, one on D1, L1 empty; one on the inactive spot, one in the zone, one nowhere.
    await trailer('OC-1', yardA, place.S1!);
    await trailer('OC-2', yardA, place.S1!);
    await trailer('OC-3', yardA, place.D1!);
    await trailer('OC-4', yardA, place['S-OFF']!);
    await trailer('OC-5', yardA, place.Z1!);
    await trailer('OC-6', yardA, null);
    await trailer('OC-B', yardB, place.B1!);
    await trailer('OC-B2', yardB, null);
  });
  afterAll(() => t.close());

  it("counts the yard's places and trailers; capacity from the places unless the yard record sets it", async () => {
    const a = await admin.get(`/api/yard/${yardA}/occupancy`);
    expect(a.status, a.text).toBe(200);
    expect(a.body).toEqual({
      yardId: yardA,
      trailers: 6,
      capacity: 2 + 1 + 5,
      capacitySource: 'places',
      places: 3,
      placesInUse: 2,
      unplaced: 3,
    });
    const b = await admin.get(`/api/yard/${yardB}/occupancy`);
    expect(b.body).toEqual({
      yardId: yardB,
      trailers: 2,
      capacity: 40,
      capacitySource: 'yard',
      places: 1,
      placesInUse: 1,
      unplaced: 1,
    });
    const empty = await admin.get(`/api/yard/${yardEmpty}/occupancy`);
    expect(empty.body).toEqual({
      yardId: yardEmpty,
      trailers: 0,
      capacity: 0,
      capacitySource: 'places',
      places: 0,
      placesInUse: 0,
      unplaced: 0,
    });
  });

  it('follows a trailer moved onto a place and a place set inactive', async () => {
    const before = (await admin.get(`/api/yard/${yardA}/occupancy`)).body;
    const lone = (await admin.get(`/api/trailer?q=OC-6&limit=5`)).body.items[0];
    const moved = await admin.patch(`/api/trailer/${lone.id}`, { locationId: place.L1 });
    expect(moved.status, moved.text).toBe(200);
    const after = (await admin.get(`/api/yard/${yardA}/occupancy`)).body;
    expect([after.placesInUse, after.unplaced]).toEqual([before.placesInUse + 1, before.unplaced - 1]);
    const off = await admin.patch(`/api/yard/${yardA}/location/${place.D1}`, { status: 'inactive' });
    expect(off.status, off.text).toBe(200);
    const less = (await admin.get(`/api/yard/${yardA}/occupancy`)).body;
    expect([less.places, less.placesInUse, less.unplaced, less.capacity]).toEqual([
      after.places - 1,
      after.placesInUse - 1,
      after.unplaced + 1,
      after.capacity - 1,
    ]);
  });

  it('a yard outside the scope is 403, an unknown one 404, a bad id 400', async () => {
    const scoped = await clientWithRole(admin, 'viewer', { yardIds: [yardB] });
    expect((await scoped.get(`/api/yard/${yardB}/occupancy`)).status).toBe(200);
    const other = await scoped.get(`/api/yard/${yardA}/occupancy`);
    expect([other.status, other.body.code]).toEqual([403, 'forbidden']);
    const unknown = await admin.get(`/api/yard/${newId()}/occupancy`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not-found']);
    const bad = await admin.get('/api/yard/x/occupancy');
    expect([bad.status, bad.body.code]).toEqual([400, 'validation-failed']);
  });
});
