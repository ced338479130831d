import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { copyEdgeRows, recountDashboardRollups } from '../../helpers/edge-rows.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS, type TestDialect } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Per yard, the movements of each yard's own local day in one request (docs/api.md "Dashboard"):
 * the all-yards overview asks once, not once per yard. Movements are recorded at an edge; at the
 * cloud (each database) their rows arrive and the rollups are recounted from them.
 */
type Side = { role: 'edge' } | { role: 'cloud'; dialect: TestDialect };
const SIDES: Array<[string, Side]> = [
  ['edge', { role: 'edge' }],
  ...TEST_DIALECTS.map((dialect): [string, Side] => [`cloud, ${dialect}`, { role: 'cloud', dialect }]),
];

describe.each(SIDES)('per-yard movements of the local day (%s)', (_name, side) => {
  let edge: TestApp;
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));
  let chicago: string;
  let kolkata: string;
  let berlin: string;

  async function move(body: Record<string, unknown>) {
    const res = await new Client(edge.url, edge.adminToken).post('/api/movement', body);
    if (res.status !== 201) throw new Error(`movement: ${res.status} ${res.text}`);
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
    kolkata = await seedRow.yard('KOL', { timeZone: 'Asia/Kolkata' }); // UTC+05:30: days start on a half hour
    berlin = await seedRow.yard('BER', { timeZone: 'Europe/Berlin' });
    // Chicago, around the US DST start (Sunday 2026-03-08, a 23-hour day).
    await move({ yardId: chicago, direction: 'in', at: '2026-03-09T04:30:00Z', truck: { plate: 'C1' } }); // Mar 8, 23:30 CDT
    await move({ yardId: chicago, direction: 'out', at: '2026-03-09T05:30:00Z', truck: { plate: 'C1' } }); // Mar 9, 00:30 CDT
    await move({ yardId: chicago, direction: 'in', at: '2026-03-10T04:45:00Z', truck: { plate: 'C2' } }); // Mar 9, 23:45 CDT
    // Kolkata: 20 minutes either side of its midnight, inside one UTC hour.
    await move({ yardId: kolkata, direction: 'in', at: '2026-03-08T18:20:00Z', truck: { plate: 'K1' } }); // Mar 8, 23:50 IST
    await move({ yardId: kolkata, direction: 'in', at: '2026-03-08T18:40:00Z', truck: { plate: 'K2' } }); // Mar 9, 00:10 IST
    await move({ yardId: kolkata, direction: 'out', at: '2026-03-09T18:20:00Z', truck: { plate: 'K1' } }); // Mar 9, 23:50 IST
    if (side.role === 'cloud') {
      await copyEdgeRows(edge.db, t.db, ['yard', 'carrier', 'trailer', 'truck', 'movement', 'visit']);
      await recountDashboardRollups(t);
    }
  });
  afterAll(async () => {
    if (t !== edge) await t?.close();
    await edge?.close();
  });

  const figures = (res: { body: { items: any[] } }) =>
    res.body.items.map((i) => [i.yardCode, i.from, i.to, i.in, i.out]);

  it('every yard in one answer, each over its own local day (a :30 zone, a 23-hour DST day)', async () => {
    const res = await admin.get('/api/dashboard/yard/movement?at=2026-03-09T12:00:00Z');
    expect(res.status).toBe(200);
    expect(figures(res)).toEqual([
      ['BER', '2026-03-08T23:00:00.000Z', '2026-03-09T23:00:00.000Z', 0, 0],
      ['CHI', '2026-03-09T05:00:00.000Z', '2026-03-10T05:00:00.000Z', 1, 1],
      ['KOL', '2026-03-08T18:30:00.000Z', '2026-03-09T18:30:00.000Z', 1, 1],
    ]);
    expect(res.body.items[0]).toMatchObject({ yardId: berlin, timeZone: 'Europe/Berlin' });
    expect(res.body.items[1]).toMatchObject({
      yardId: chicago,
      yardName: expect.any(String),
      timeZone: 'America/Chicago',
    });
    const dst = await admin.get(`/api/dashboard/yard/movement?yardId=${chicago}&at=2026-03-08T12:00:00Z`);
    expect(figures(dst)).toEqual([['CHI', '2026-03-08T06:00:00.000Z', '2026-03-09T05:00:00.000Z', 1, 0]]);
  });

  it("by default today, and the same counts as each yard's own day bucket", async () => {
    const res = await admin.get('/api/dashboard/yard/movement');
    expect(res.body.items.find((i: any) => i.yardId === chicago)).toMatchObject({
      from: '2026-03-10T05:00:00.000Z',
      in: 0,
      out: 0,
    });
    const at = '2026-03-09T18:25:00.000Z';
    const all = await admin.get(`/api/dashboard/yard/movement?at=${at}`);
    for (const item of all.body.items) {
      const one = await admin.get(
        `/api/dashboard/movement?yardId=${item.yardId}&bucket=day&from=2026-03-09T18:24:59.000Z&to=${at}`,
      );
      expect([item.yardCode, item.in, item.out]).toEqual([
        item.yardCode,
        one.body.totals.in,
        one.body.totals.out,
      ]);
    }
  });

  it('a yard-scoped user gets only its yards; another yard is 403, an unknown one 404', async () => {
    const scoped = await clientWithRole(admin, 'viewer', { yardIds: [kolkata] });
    const res = await scoped.get('/api/dashboard/yard/movement?at=2026-03-09T12:00:00Z');
    expect(res.status).toBe(200);
    expect(figures(res)).toEqual([['KOL', '2026-03-08T18:30:00.000Z', '2026-03-09T18:30:00.000Z', 1, 1]]);
    const other = await scoped.get(`/api/dashboard/yard/movement?yardId=${chicago}`);
    expect([other.status, other.body.code]).toEqual([403, 'forbidden']);
    expect((await admin.get(`/api/dashboard/yard/movement?yardId=${newId()}`)).status).toBe(404);
    const none = await clientWithRole(admin, 'viewer', { yardIds: [] });
    expect((await none.get('/api/dashboard/yard/movement')).body.items).toEqual([]);
  });

  it('bad input: 400 problem+json naming the query fields', async () => {
    const bad = await admin.get('/api/dashboard/yard/movement?yardId=x&at=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(bad.body.code).toBe('validation-failed');
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['query.yardId', 'query.at']),
    );
  });
});
