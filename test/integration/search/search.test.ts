import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seedRows } from '../../helpers/builders.js';
import { copyEdgeRows } from '../../helpers/edge-rows.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The search across kinds (docs/api.md "Search"), at the cloud on each database: an edge records a
 * morning at two yards, its rows reach the cloud, and the office finds trailers, trucks, drivers
 * and carriers by part of a number, plate, name or SCAC, with where each unit is and since when.
 */
describe.each(TEST_DIALECTS)('search everywhere (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-15T12:00:00Z'));
  let edge: TestApp;
  let cloud: TestApp<AppDatabase>;
  let admin: Client;
  let north: string;
  let south: string;
  let northGate: string;
  let spot: string;
  let carrier: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    edge = await startTestApp({ clock });
    cloud = await startTestApp({ clock, dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(cloud.url, cloud.adminToken);
    const atEdge = new Client(edge.url, edge.adminToken);
    const row = seedRows(edge);
    north = await row.yard('NTH', { name: 'North yard' });
    south = await row.yard('STH', { name: 'South yard' });
    northGate = await row.gate(north, 'North gate', null);
    spot = await row.location(north, 'N-07');
    carrier = await row.carrier('Prairie Freight', { scac: 'PRFT' });
    await row.carrier('Prairie Rose Haulage', { scac: 'PRRH' });
    ids.driver = await row.driver({
      kind: 'carrier',
      carrierId: carrier,
      firstName: 'Prue',
      lastName: 'Fields',
    });
    const record = async (body: Record<string, unknown>) => {
      const res = await atEdge.post('/api/movement', body);
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    const parked = await record({
      yardId: north,
      gateId: northGate,
      direction: 'in',
      at: '2026-01-15T08:00:00Z',
      trailer: { number: 'PRFU 482113', carrierId: carrier },
      truck: { plate: 'IL 77 204' },
      locationId: spot,
    });
    ids.parked = parked.trailerId;
    ids.truck = parked.truckId;
    ids.exact = (
      await record({
        yardId: north,
        direction: 'in',
        at: '2026-01-15T09:00:00Z',
        trailer: { number: '4821' },
      })
    ).trailerId;
    ids.prefix = (
      await record({
        yardId: north,
        direction: 'in',
        at: '2026-01-15T09:10:00Z',
        trailer: { number: '48210' },
      })
    ).trailerId;
    ids.south = (
      await record({
        yardId: south,
        direction: 'in',
        at: '2026-01-15T09:30:00Z',
        trailer: { number: 'SOUF 482100' },
      })
    ).trailerId;
    const left = await record({
      yardId: north,
      direction: 'in',
      at: '2026-01-15T07:00:00Z',
      trailer: { number: 'LEFT 948217' },
    });
    ids.left = left.trailerId;
    await record({
      yardId: north,
      gateId: northGate,
      direction: 'out',
      at: '2026-01-15T10:30:00Z',
      trailer: { id: ids.left },
    });
    // A truck alone, in and out through the north gate; a truck that drops its trailer and leaves.
    ids.solo = (
      await record({ yardId: north, direction: 'in', at: '2026-01-15T06:00:00Z', truck: { plate: 'SOLO 1' } })
    ).truckId;
    await record({
      yardId: north,
      gateId: northGate,
      direction: 'out',
      at: '2026-01-15T06:30:00Z',
      truck: { id: ids.solo },
    });
    ids.drop = (
      await record({
        yardId: north,
        direction: 'in',
        at: '2026-01-15T06:40:00Z',
        truck: { plate: 'DROP 2' },
        trailer: { number: 'DROPPED 9' },
      })
    ).truckId;
    await record({
      yardId: north,
      gateId: northGate,
      direction: 'out',
      at: '2026-01-15T06:50:00Z',
      truck: { id: ids.drop },
    });
    await copyEdgeRows(edge.db, cloud.db, [
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
    // Known before it ever came: never checked in.
    ids.unseen = (await admin.post('/api/trailer', { number: 'NEWU 482177' })).body.id;
  });
  afterAll(async () => {
    await cloud?.close();
    await edge?.close();
  });

  const search = async (q: string, as: Client = admin, limit?: number) => {
    const res = await as.get(`/api/search?q=${encodeURIComponent(q)}${limit ? `&limit=${limit}` : ''}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    return res.body.items as Array<Record<string, any>>;
  };

  it('finds a trailer by part of its number, with its yard, spot and since when', async () => {
    const items = await search('482113');
    expect(items).toEqual([
      {
        kind: 'trailer',
        id: ids.parked,
        label: 'PRFU 482113',
        secondary: 'Prairie Freight (PRFT)',
        match: 'contains',
        where: {
          state: 'in-yard',
          yard: { id: north, name: 'North yard' },
          location: { id: spot, name: 'N-07' },
          since: '2026-01-15T08:00:00.000Z',
          gate: null,
        },
        appointment: null,
      },
    ]);
  });

  it('puts exact matches first, then those starting with the text, then those containing it; case and spaces ignored', async () => {
    const items = await search('4821');
    const trailers = items.filter((i) => i.kind === 'trailer');
    expect(trailers.map((i) => [i.label, i.match])).toEqual([
      ['4821', 'exact'],
      ['48210', 'prefix'],
      ['LEFT 948217', 'contains'],
      ['NEWU 482177', 'contains'],
      ['PRFU 482113', 'contains'],
      ['SOUF 482100', 'contains'],
    ]);
    expect((await search('prfu482113')).map((i) => [i.id, i.match])).toEqual([[ids.parked, 'exact']]);
    expect((await search('pRfU 48')).map((i) => [i.id, i.match])).toEqual([[ids.parked, 'prefix']]);
  });

  it('says when and through which gate a unit left, and that a unit never came', async () => {
    const [left] = await search('LEFT 948217');
    expect(left!.where).toEqual({
      state: 'left',
      yard: { id: north, name: 'North yard' },
      location: null,
      since: '2026-01-15T10:30:00.000Z',
      gate: { id: northGate, name: 'North gate' },
    });
    const [unseen] = await search('NEWU 482177');
    expect(unseen!.where).toEqual({
      state: 'not-arrived',
      yard: null,
      location: null,
      since: null,
      gate: null,
    });
  });

  it('finds trucks by plate, drivers by name and carriers by SCAC, each with its kind', async () => {
    const [truck] = await search('il77');
    expect(truck).toMatchObject({
      kind: 'truck',
      id: ids.truck,
      label: 'IL 77 204',
      secondary: null,
      match: 'prefix',
      where: { state: 'in-yard', yard: { id: north, name: 'North yard' }, since: '2026-01-15T08:00:00.000Z' },
    });
    const [solo] = await search('solo1');
    expect(solo!.where).toEqual({
      state: 'left',
      yard: { id: north, name: 'North yard' },
      location: null,
      since: '2026-01-15T06:30:00.000Z',
      gate: { id: northGate, name: 'North gate' },
    });
    const [dropped] = await search('drop 2');
    expect(dropped).toMatchObject({ kind: 'truck', match: 'exact' });
    expect(dropped!.where).toEqual({
      state: 'left',
      yard: { id: north, name: 'North yard' },
      location: null,
      since: null,
      gate: null,
    });
    const prairie = await search('pr');
    expect(prairie.find((i) => i.kind === 'driver')).toMatchObject({
      id: ids.driver,
      label: 'Prue Fields',
      secondary: 'Prairie Freight (PRFT)',
      match: 'prefix',
      where: null,
    });
    expect((await search('prft')).map((i) => [i.kind, i.label, i.secondary, i.match])).toEqual([
      ['carrier', 'Prairie Freight', 'PRFT', 'exact'],
    ]);
    const carriers = (await search('prairie')).filter((i) => i.kind === 'carrier');
    expect(carriers.map((i) => i.label)).toEqual(['Prairie Freight', 'Prairie Rose Haulage']);
  });

  it('answers at most limit hits, the best ones', async () => {
    const items = await search('4821', admin, 2);
    expect(items.map((i) => i.label)).toEqual(['4821', '48210']);
  });

  it('hides units in yards outside a scoped user’s scope; drivers and carriers as their lists show them', async () => {
    const northOnly = await clientWithRole(admin, 'viewer', { yardIds: [north] });
    const labels = (await search('4821', northOnly)).map((i) => i.label);
    expect(labels).not.toContain('SOUF 482100');
    expect(labels).toEqual(expect.arrayContaining(['4821', 'PRFU 482113', 'NEWU 482177']));
    const southOnly = await clientWithRole(admin, 'dispatcher', { yardIds: [south] });
    const [left] = await search('LEFT 948217', southOnly);
    // Out of every yard, so found; the yard and gate it left are not the south user's to see.
    expect(left!.where).toEqual({
      state: 'left',
      yard: null,
      location: null,
      since: '2026-01-15T10:30:00.000Z',
      gate: null,
    });
    expect(await search('482113', southOnly)).toEqual([]);
    expect((await search('prue', southOnly)).map((i) => i.id)).toEqual([ids.driver]);
  });

  it('refuses a missing or overlong text and a limit out of range (400), and no login (401)', async () => {
    for (const path of [
      '/api/search',
      '/api/search?q=',
      `/api/search?q=${'x'.repeat(101)}`,
      '/api/search?q=a&limit=51',
    ]) {
      const res = await admin.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe('validation-failed');
    }
    expect((await admin.as(undefined).get('/api/search?q=a')).status).toBe(401);
  });
});
