import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seedRows } from '../../helpers/builders.js';
import { copyEdgeRows, recountDashboardRollups } from '../../helpers/edge-rows.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS, type TestDialect } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The all-yards overview in one request with only its numbers (docs/api.md "Dashboard",
 * docs/web-apps.md "Yard"): per yard the trailers in the yard, the movements of its local day and
 * the open tasks, each the same number as the fuller answer it replaces on the Yard screen.
 * Recorded at an edge; at the cloud (each database) the rows arrive and the rollups are recounted.
 */
type Side = { role: 'edge' } | { role: 'cloud'; dialect: TestDialect };
const SIDES: Array<[string, Side]> = [
  ['edge', { role: 'edge' }],
  ...TEST_DIALECTS.map((dialect): [string, Side] => [`cloud, ${dialect}`, { role: 'cloud', dialect }]),
];

describe.each(SIDES)('all-yards overview (%s)', (_name, side) => {
  let edge: TestApp;
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));
  let chicago: string;
  let kolkata: string;

  async function post(path: string, body: Record<string, unknown>) {
    const res = await new Client(edge.url, edge.adminToken).post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
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
    kolkata = await seedRow.yard('KOL', { timeZone: 'Asia/Kolkata' });
    await seedRow.yard('BER', { timeZone: 'Europe/Berlin' });
    // Chicago: two trailers in, one out again (today, 06:00 CDT); yesterday's check-in is not today's.
    await post('/api/movement', {
      yardId: chicago,
      direction: 'in',
      at: '2026-03-09T20:00:00Z',
      trailer: { number: 'OV-0' },
    });
    await post('/api/movement', {
      yardId: chicago,
      direction: 'in',
      at: '2026-03-10T11:00:00Z',
      trailer: { number: 'OV-1' },
    });
    await post('/api/movement', {
      yardId: chicago,
      direction: 'in',
      at: '2026-03-10T11:10:00Z',
      trailer: { number: 'OV-2' },
    });
    await post('/api/movement', {
      yardId: chicago,
      direction: 'out',
      at: '2026-03-10T11:20:00Z',
      trailer: { number: 'OV-2' },
    });
    await post('/api/movement', {
      yardId: kolkata,
      direction: 'in',
      at: '2026-03-10T11:30:00Z',
      trailer: { number: 'OV-3' },
    });
    if (side.role === 'cloud') {
      await copyEdgeRows(edge.db, t.db, ['yard', 'carrier', 'trailer', 'truck', 'movement', 'visit']);
      await recountDashboardRollups(t);
    }
    // Tasks (where the overview is read): two open in Chicago, one of them then cancelled; one in Kolkata.
    const task = async (yardId: string) => {
      const res = await admin.post('/api/yard-task', { yardId, type: 'other' });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    await task(chicago);
    const gone = await task(chicago);
    const cancel = await admin.patch(`/api/yard-task/${gone}`, {
      status: 'CANCELLED',
      cancelReason: 'not needed',
    });
    expect(cancel.status, cancel.text).toBe(200);
    await task(kolkata);
  });
  afterAll(async () => {
    if (t !== edge) await t?.close();
    await edge?.close();
  });

  it("gives each yard's numbers, equal to the fuller answers' for the same yard", async () => {
    const res = await admin.get('/api/dashboard/yard/overview');
    expect(res.status, res.text).toBe(200);
    expect(
      res.body.items.map((i: any) => [i.yardCode, i.trailersInYard, i.movementsToday, i.openTasks]),
    ).toEqual([
      ['BER', 0, 0, 0],
      ['CHI', 2, 3, 1],
      ['KOL', 1, 1, 1],
    ]);
    const trailers = (await admin.get('/api/dashboard/yard/trailer')).body.items;
    const today = (await admin.get('/api/dashboard/yard/movement')).body.items;
    const tasks = (await admin.get('/api/yard-task/summary')).body.items;
    for (const row of res.body.items) {
      expect(row.trailersInYard).toBe(
        trailers.find((f: any) => f.yardId === row.yardId)?.trailersInYard ?? 0,
      );
      const m = today.find((d: any) => d.yardId === row.yardId);
      expect(row.movementsToday).toBe(m.in + m.out);
      const c = tasks.find((s: any) => s.yardId === row.yardId).counts;
      expect(row.openTasks).toBe(c.QUEUED + c.ASSIGNED + c.IN_PROGRESS);
    }
  });

  it("shows only the yards of the caller's scope", async () => {
    const scoped = await clientWithRole(admin, 'viewer', { yardIds: [kolkata] });
    const res = await scoped.get('/api/dashboard/yard/overview');
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((i: any) => [i.yardId, i.trailersInYard, i.openTasks])).toEqual([
      [kolkata, 1, 1],
    ]);
    const none = await clientWithRole(admin, 'viewer', { yardIds: [] });
    expect((await none.get('/api/dashboard/yard/overview')).body).toEqual({ items: [] });
  });
});
