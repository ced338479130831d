import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { copyEdgeRows, recountDashboardRollups } from '../../helpers/edge-rows.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS, type TestDialect } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The dashboard at an edge, its figures following each movement recorded there, and at the cloud on
 * each database (docs/architecture.md "Two databases, and several cloud nodes"): movements are the edge's (the cloud answers 409 edge-owned), so they are
 * recorded at an edge, their rows reach the cloud, and the cloud's rollups are recounted from them.
 */
type Side = { role: 'edge' } | { role: 'cloud'; dialect: TestDialect };
const SIDES: Array<[string, Side]> = [
  ['edge', { role: 'edge' }],
  ...TEST_DIALECTS.map((dialect): [string, Side] => [`cloud, ${dialect}`, { role: 'cloud', dialect }]),
];

describe.each(SIDES)('dashboard (%s)', (_name, side) => {
  let edge: TestApp;
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));
  let chicago: string;
  let berlin: string;
  let acme: string;
  let beta: string;

  /** A movement recorded at the edge. */
  async function move(body: Record<string, unknown>) {
    const res = await new Client(edge.url, edge.adminToken).post('/api/movement', body);
    if (res.status !== 201) throw new Error(`movement: ${res.status} ${res.text}`);
    return res.body;
  }

  /** At the cloud: the edge's rows arrived, its rollups recounted from them (at an edge the figures follow each write). */
  async function arrive() {
    if (side.role === 'edge') return;
    await copyEdgeRows(edge.db, t.db, ['yard', 'carrier', 'trailer', 'truck', 'movement', 'visit']);
    await recountDashboardRollups(t);
  }

  beforeAll(async () => {
    edge = await startTestApp({ clock });
    t =
      side.role === 'edge'
        ? edge
        : await startTestApp({ clock, dialect: side.dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    const seedRow = seedRows(edge);
    chicago = await seedRow.yard('CHI', { timeZone: 'America/Chicago' });
    berlin = await seedRow.yard('BER', { timeZone: 'Europe/Berlin' });
    acme = await seedRow.carrier('Acme');
    beta = await seedRow.carrier('Beta');
    // Around the US DST start (Sunday 2026-03-08): Chicago days are 24 h, 23 h, 24 h long.
    await move({ yardId: chicago, direction: 'in', at: '2026-03-07T05:30:00Z', truck: { plate: 'A1' } }); // Mar 6, 23:30 CST
    await move({ yardId: chicago, direction: 'in', at: '2026-03-07T06:30:00Z', truck: { plate: 'A2' } }); // Mar 7, 00:30 CST
    await move({ yardId: chicago, direction: 'out', at: '2026-03-09T04:30:00Z', truck: { plate: 'A1' } }); // Mar 8, 23:30 CDT
    await move({ yardId: chicago, direction: 'out', at: '2026-03-09T05:30:00Z', truck: { plate: 'A2' } }); // Mar 9, 00:30 CDT
    await move({ yardId: berlin, direction: 'in', at: '2026-03-07T06:00:00Z', truck: { plate: 'B1' } });
    await arrive();
  });
  afterAll(async () => {
    if (t !== edge) await t?.close();
    await edge?.close();
  });

  describe('movement figures', () => {
    it("day buckets follow the yard's time zone across DST", async () => {
      const res = await admin.get(
        `/api/dashboard/movement?yardId=${chicago}&bucket=day&from=2026-03-06T12:00:00Z&to=2026-03-09T12:00:00Z`,
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ yardId: chicago, timeZone: 'America/Chicago', bucket: 'day' });
      expect(res.body.buckets).toEqual([
        { start: '2026-03-06T06:00:00.000Z', label: '2026-03-06', in: 1, out: 0 },
        { start: '2026-03-07T06:00:00.000Z', label: '2026-03-07', in: 1, out: 0 },
        { start: '2026-03-08T06:00:00.000Z', label: '2026-03-08', in: 0, out: 1 },
        { start: '2026-03-09T05:00:00.000Z', label: '2026-03-09', in: 0, out: 1 },
      ]);
      expect(res.body).toMatchObject({ from: '2026-03-06T06:00:00.000Z', to: '2026-03-10T05:00:00.000Z' });
      expect(res.body.totals).toEqual({ in: 2, out: 2 });
    });

    it('without a yard: UTC buckets over every yard in scope; a scoped user sees only their yards', async () => {
      const range = 'bucket=day&from=2026-03-07T00:00:00Z&to=2026-03-10T00:00:00Z';
      const all = await admin.get(`/api/dashboard/movement?${range}`);
      expect(all.body).toMatchObject({ yardId: null, timeZone: 'UTC' });
      expect(all.body.buckets.map((b: any) => [b.label, b.in, b.out])).toEqual([
        ['2026-03-07', 3, 0],
        ['2026-03-08', 0, 0],
        ['2026-03-09', 0, 2],
      ]);
      const berliner = await clientWithRole(admin, 'viewer', { yardIds: [berlin] });
      const scoped = await berliner.get(`/api/dashboard/movement?${range}`);
      expect(scoped.body.totals).toEqual({ in: 1, out: 0 });
      expect((await berliner.get(`/api/dashboard/movement?yardId=${chicago}`)).status).toBe(403);
    });

    it('hour buckets default to the last 24 hours', async () => {
      clock.set('2026-03-09T06:10:00Z');
      const res = await admin.get(`/api/dashboard/movement?yardId=${chicago}`);
      clock.set('2026-03-10T12:00:00Z');
      expect(res.status).toBe(200);
      expect(res.body.buckets).toHaveLength(25);
      expect(res.body.buckets.at(-1)).toMatchObject({ label: '2026-03-09T01:00', in: 0, out: 0 });
      expect(res.body.buckets.find((b: any) => b.out === 1).label).toBe('2026-03-08T23:00');
      expect(res.body.totals).toEqual({ in: 0, out: 2 });
    });

    it('bad input: 400 with paths; unknown yard 404', async () => {
      const bad = await admin.get('/api/dashboard/movement?bucket=week&from=yesterday&yardId=x');
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining(['query.bucket', 'query.from', 'query.yardId']),
      );
      const reversed = await admin.get(
        '/api/dashboard/movement?from=2026-03-09T00:00:00Z&to=2026-03-08T00:00:00Z',
      );
      expect(reversed.status).toBe(400);
      expect(reversed.body.errors[0].path).toBe('query.from');
      const tooLong = await admin.get(
        '/api/dashboard/movement?bucket=hour&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z',
      );
      expect(tooLong.status).toBe(400);
      expect((await admin.get(`/api/dashboard/movement?yardId=${newId()}`)).status).toBe(404);
    });
  });

  describe('yard figures', () => {
    it('trailers now in each yard by load status and carrier, with average dwell of open visits', async () => {
      await move({
        yardId: chicago,
        direction: 'in',
        at: '2026-03-10T08:00:00Z',
        trailer: { number: 'T1', carrierId: acme },
        loadStatus: 'loaded',
      });
      await move({
        yardId: chicago,
        direction: 'in',
        at: '2026-03-10T10:00:00Z',
        trailer: { number: 'T2', carrierId: acme },
        loadStatus: 'empty',
      });
      await move({
        yardId: chicago,
        direction: 'in',
        at: '2026-03-10T11:00:00Z',
        trailer: { number: 'T3', carrierId: beta },
      });
      await move({
        yardId: chicago,
        direction: 'out',
        at: '2026-03-10T11:30:00Z',
        trailer: { number: 'T3' },
      });
      await move({ yardId: berlin, direction: 'in', at: '2026-03-10T11:00:00Z', trailer: { number: 'T4' } });
      await arrive();
      const res = await admin.get('/api/dashboard/yard/trailer');
      expect(res.status).toBe(200);
      const chi = res.body.items.find((i: any) => i.yardId === chicago);
      expect(chi).toEqual({
        yardId: chicago,
        yardCode: 'CHI',
        yardName: 'Yard CHI',
        trailersInYard: 2,
        byLoadStatus: { empty: 1, loaded: 1, unknown: 0 },
        byCarrier: [{ carrierId: acme, carrierName: 'Acme', count: 2 }],
        openVisits: 2,
        averageDwellMs: 3 * 3_600_000, // 4 h and 2 h
      });
      const ber = res.body.items.find((i: any) => i.yardId === berlin);
      expect(ber).toMatchObject({
        trailersInYard: 1,
        byCarrier: [{ carrierId: null, carrierName: null, count: 1 }],
      });
      const one = await admin.get(`/api/dashboard/yard/trailer?yardId=${berlin}`);
      expect(one.body.items.map((i: any) => i.yardId)).toEqual([berlin]);
    });

    it('trucks now in each yard with average dwell since their check-in', async () => {
      await move({ yardId: chicago, direction: 'in', at: '2026-03-10T11:00:00Z', truck: { plate: 'C1' } });
      await move({ yardId: chicago, direction: 'in', at: '2026-03-10T09:00:00Z', truck: { plate: 'C2' } });
      await arrive();
      const res = await admin.get('/api/dashboard/yard/truck');
      expect(res.status).toBe(200);
      expect(res.body.items.find((i: any) => i.yardId === chicago)).toEqual({
        yardId: chicago,
        yardCode: 'CHI',
        yardName: 'Yard CHI',
        trucksInYard: 2,
        averageDwellMs: 2 * 3_600_000,
      });
      expect(res.body.items.find((i: any) => i.yardId === berlin)).toMatchObject({ trucksInYard: 1 });
      const scoped = await clientWithRole(admin, 'dispatcher', { yardIds: [chicago] });
      expect((await scoped.get('/api/dashboard/yard/truck')).body.items.map((i: any) => i.yardId)).toEqual([
        chicago,
      ]);
      expect((await scoped.get(`/api/dashboard/yard/truck?yardId=${berlin}`)).status).toBe(403);
    });
  });

  describe('error figures', () => {
    it('counts 4xx per yard and status from real responses, current without waiting for a flush', async () => {
      const chicagoFigures = async () =>
        (await admin.get('/api/dashboard/yard/error4xx')).body.items.find((i: any) => i.yardId === chicago);
      const countOf = (item: any, status: number) =>
        item.byStatus.find((s: any) => s.status === status)?.count ?? 0;
      const before = await chicagoFigures(); // earlier tests answered a 403 for Chicago
      await admin.get(`/api/movement?yardId=${chicago}&cursor=garbage`); // 400
      // An unknown trailer: 404 at the edge; at the cloud 409 edge-owned (movements are the edge's).
      await admin.post('/api/movement', { yardId: chicago, direction: 'in', trailer: { id: newId() } });
      await admin.post('/api/movement', { yardId: chicago, direction: 'in', trailer: { id: newId() } });
      await admin.get('/api/carrier/not-a-uuid'); // 400, no yard
      const res = await admin.get('/api/dashboard/yard/error4xx');
      expect(res.status).toBe(200);
      const chi = res.body.items.find((i: any) => i.yardId === chicago);
      expect(chi).toMatchObject({ yardCode: 'CHI', total: before.total + 3 });
      expect(countOf(chi, 400)).toBe(countOf(before, 400) + 1);
      const refused = side.role === 'edge' ? 404 : 409;
      expect(countOf(chi, refused)).toBe(countOf(before, refused) + 2);
      expect(chi.byStatus.map((s: any) => s.status)).toEqual(
        [...chi.byStatus.map((s: any) => s.status)].sort(),
      );
      expect(res.body.items.find((i: any) => i.yardId === berlin)).toMatchObject({
        yardCode: 'BER',
        byStatus: [{ status: 403, count: 1 }], // the Chicago dispatcher asking for Berlin
      });
      const unattributed = res.body.items.find((i: any) => i.yardId === null);
      expect(unattributed.total).toBeGreaterThanOrEqual(1);

      const scoped = await clientWithRole(admin, 'billing', { yardIds: [chicago] });
      const mine = await scoped.get('/api/dashboard/yard/error4xx');
      expect(mine.body.items.map((i: any) => i.yardId)).toEqual([chicago]);
    });

    it('counts every 4xx of a route that names the yard: bad input, a refused role, no token', async () => {
      const figures = async () => {
        const items = (await admin.get('/api/dashboard/yard/error4xx')).body.items as any[];
        const of = (yardId: string | null) => items.find((i) => i.yardId === yardId);
        return { chi: of(chicago), none: of(null) };
      };
      const countOf = (item: any, status: number) =>
        item?.byStatus.find((s: any) => s.status === status)?.count ?? 0;
      const viewer = await clientWithRole(admin, 'viewer');
      const before = await figures();
      expect((await admin.get(`/api/movement?yardId=${chicago}&limit=abc`)).status).toBe(400); // query schema
      const sideways = { yardId: chicago, direction: 'sideways', truck: { plate: 'Z1' } };
      expect((await admin.post('/api/movement', sideways)).status).toBe(400); // body schema
      expect((await admin.get(`/api/yard/${chicago}/location?limit=0`)).status).toBe(400); // path names it
      const door = { kind: 'door', name: 'Door 99' };
      expect((await viewer.post(`/api/yard/${chicago}/location`, door)).status).toBe(403); // role
      expect((await admin.as(undefined).get(`/api/yard/${chicago}`)).status).toBe(401);
      // An id that is no yard's is counted as unattributed: no figure (and no row) of its own.
      const ghost = newId();
      expect((await admin.get(`/api/movement?yardId=${ghost}&limit=abc`)).status).toBe(400);
      const after = await figures();
      expect(countOf(after.chi, 400) - countOf(before.chi, 400)).toBe(3);
      expect(countOf(after.chi, 403) - countOf(before.chi, 403)).toBe(1);
      expect(countOf(after.chi, 401) - countOf(before.chi, 401)).toBe(1);
      expect(countOf(after.none, 400) - countOf(before.none, 400)).toBe(1);
      expect(await query(t.db, 'SELECT * FROM http_error_stat WHERE yard_id = ?', ghost)).toEqual([]);
    });

    it('5xx over the default window (setting) or an explicit from/to', async () => {
      const minute = Math.floor(clock.now() / 60_000) * 60_000;
      const insertStat = (...values: unknown[]) =>
        query(
          t.db,
          'INSERT INTO http_error_stat (yard_id, minute, status, count) VALUES (?, ?, ?, ?)',
          ...values,
        );
      await insertStat(berlin, minute - 60_000, 503, 4);
      await insertStat(berlin, minute - 2 * 86_400_000, 500, 7); // outside the default 24 h window
      const res = await admin.get(`/api/dashboard/yard/error5xx?yardId=${berlin}`);
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([
        {
          yardId: berlin,
          yardCode: 'BER',
          yardName: 'Yard BER',
          total: 4,
          byStatus: [{ status: 503, count: 4 }],
        },
      ]);
      const wide = await admin.get(`/api/dashboard/yard/error5xx?yardId=${berlin}&from=2026-03-01T00:00:00Z`);
      expect(wide.body.items[0].total).toBe(11);
      expect(
        (await admin.put('/api/settings', { settings: { 'dashboard.errorWindowMinutes': 10_080 } })).status,
      ).toBe(200);
      const week = await admin.get(`/api/dashboard/yard/error5xx?yardId=${berlin}`);
      expect(week.body.items[0].total).toBe(11);
      expect(Date.parse(week.body.to) - Date.parse(week.body.from)).toBe(10_080 * 60_000);
    });
  });

  describe('access', () => {
    it('every staff role reads the dashboard; no token is 401', async () => {
      const paths = [
        '/api/dashboard/movement',
        '/api/dashboard/yard/error4xx',
        '/api/dashboard/yard/error5xx',
        '/api/dashboard/yard/trailer',
        '/api/dashboard/yard/truck',
      ];
      const viewer = await clientWithRole(admin, 'viewer');
      const gate = await clientWithRole(admin, 'gate');
      for (const path of paths) {
        expect((await viewer.get(path)).status).toBe(200);
        expect((await gate.get(path)).status).toBe(200);
        expect((await admin.as(undefined).get(path)).status).toBe(401);
      }
      expect((await query(t.db, 'SELECT count(*) AS n FROM movement'))[0].n).toBeGreaterThan(0);
    });
  });
});
