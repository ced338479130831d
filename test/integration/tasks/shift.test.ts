import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { seed } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * A whole shift through HTTP only, as a dispatcher and two yard drivers live it: sessions,
 * auto-dispatch by priority, start, complete, cancel, reassignment, and a driver who goes silent
 * turning offline after tasks.driverTimeoutSec.
 * At an edge on SQLite only: driver sessions and auto-dispatch are the edge's (docs/architecture.md "Two databases, and several cloud nodes").
 */
const clock = new ManualClock(Date.parse('2026-03-02T14:00:00Z'));
let t: TestApp;
let admin: Client;
let yardId: string;
const trailers: string[] = [];
const spots: string[] = [];
const drivers: Record<'ana' | 'ben', { id: string; api: Client }> = {} as never;

beforeAll(async () => {
  t = await startTestApp({ clock });
  admin = new Client(t.url, t.adminToken);
  yardId = (await seed(admin).yard({ code: 'SHIFT', name: 'Shift yard', timeZone: 'America/Chicago' })).id;
  const gate = (await admin.post(`/api/yard/${yardId}/gate`, { name: 'Gate', direction: 'both' })).body;
  for (let i = 0; i < 4; i++)
    spots.push((await admin.post(`/api/yard/${yardId}/location`, { kind: 'spot', name: `S${i}` })).body.id);
  for (let i = 0; i < 4; i++) {
    const m = await admin.post('/api/movement', {
      yardId,
      gateId: gate.id,
      direction: 'in',
      trailer: { number: `SH${i}` },
    });
    expect(m.status).toBe(201);
    trailers.push(m.body.trailerId);
  }
  for (const [name, code] of [
    ['ana', 'A1'],
    ['ben', 'B1'],
  ] as const) {
    const d = await admin.post('/api/driver', {
      kind: 'yard',
      firstName: name,
      lastName: 'Jockey',
      driverCode: code,
      pin: '4321',
    });
    expect(d.status).toBe(201);
    const login = await admin.as(undefined).post('/api/auth/driver-login', { driverCode: code, pin: '4321' });
    drivers[name] = { id: d.body.id, api: admin.as(login.body.token) };
  }
});
afterAll(() => t.close());

const task = (i: number, priority: number) => ({
  yardId,
  type: 'move',
  trailerId: trailers[i],
  toLocationId: spots[i],
  priority,
});
const myTasks = async (who: 'ana' | 'ben') =>
  (await drivers[who].api.get('/api/yard-task/driver/tasks')).body.items as any[];
// The organisation's yard drivers (also those with no session in any yard).
const availability = async () =>
  Object.fromEntries(
    ((await admin.get('/api/yard-task/drivers')).body.items as any[]).map((d) => [
      d.driverId,
      d.availability,
    ]),
  );

describe('a shift', () => {
  it('runs from the first session to a silent driver going offline', async () => {
    // The dispatcher queues three jobs before anyone is on shift.
    const created = await admin.post('/api/yard-task', { tasks: [task(0, 1), task(1, 3), task(2, 2)] });
    expect(created.status).toBe(201);
    const [low, urgent, normal] = created.body.items.map((x: any) => x.id);
    expect(
      (await admin.get(`/api/yard-task/by-status?status=QUEUED&yardId=${yardId}`)).body.items,
    ).toHaveLength(3);

    // Ana starts first and gets the most urgent job; Ben gets the next one.
    clock.advance(1000);
    expect((await drivers.ana.api.post('/api/yard-task/driver/session/start', { yardId })).status).toBe(201);
    expect((await myTasks('ana')).map((x) => x.id)).toEqual([urgent]);
    clock.advance(1000);
    expect((await drivers.ben.api.post('/api/yard-task/driver/session/start', { yardId })).status).toBe(201);
    expect((await myTasks('ben')).map((x) => x.id)).toEqual([normal]);

    // Ana does her job (her app sends a heartbeat every 30 s); completing frees her and the last
    // queued job comes to her at once.
    const work = async (ms: number) => {
      for (let left = ms; left > 0; left -= 30_000) {
        clock.advance(Math.min(30_000, left));
        for (const who of ['ana', 'ben'] as const)
          await drivers[who].api.post('/api/yard-task/driver/last-check', {});
      }
    };
    await work(60_000);
    expect(
      (await drivers.ana.api.post('/api/yard-task/driver/start', { taskIds: [urgent] })).body.results[0].ok,
    ).toBe(true);
    await work(240_000);
    const done = await drivers.ana.api.post('/api/yard-task/driver/complete', { taskIds: [urgent] });
    expect(done.body.results[0]).toMatchObject({ ok: true, task: { status: 'COMPLETED' } });
    expect((await admin.get(`/api/trailer/${trailers[1]}`)).body.locationId).toBe(spots[1]);
    expect((await myTasks('ana')).map((x) => x.id)).toEqual([low]);

    // A driver cannot touch someone else's task.
    const foreign = await drivers.ben.api.post('/api/yard-task/driver/start', { taskIds: [low] });
    expect(foreign.body.results[0]).toMatchObject({ ok: false, error: { status: 403 } });

    // Ben cancels his (the trailer is not where it should be).
    const cancelled = await drivers.ben.api.post('/api/yard-task/driver/cancel', {
      taskIds: [normal],
      reason: 'trailer not found',
    });
    expect(cancelled.body.results[0]).toMatchObject({
      ok: true,
      task: { status: 'CANCELLED', cancelReason: 'trailer not found' },
    });

    // The dispatcher moves Ana's waiting job to Ben.
    const moved = await admin.patch(`/api/yard-task/${low}`, { driverId: drivers.ben.id });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ status: 'ASSIGNED', driverId: drivers.ben.id });
    expect(await myTasks('ana')).toEqual([]);
    expect((await myTasks('ben')).map((x) => x.id)).toEqual([low]);

    // Ben goes silent; Ana keeps sending heartbeats. After the timeout Ben is offline.
    clock.advance(60_000);
    expect((await drivers.ana.api.post('/api/yard-task/driver/last-check', {})).status).toBe(200);
    clock.advance(70_000);
    expect((await drivers.ana.api.post('/api/yard-task/driver/last-check', {})).status).toBe(200);
    const now = await availability();
    expect(now[drivers.ben.id]).toBe('offline');
    expect(now[drivers.ana.id]).toBe('available');

    // A new job goes to the driver who is there.
    const fresh = await admin.post('/api/yard-task', task(3, 2));
    expect(fresh.body).toMatchObject({ status: 'ASSIGNED', driverId: drivers.ana.id });

    // The record: every transition in the history, and the day's figures in the summary.
    const history = (await admin.get(`/api/yard-task/${urgent}/history`)).body.items.map((e: any) => e.to);
    expect(history).toEqual(expect.arrayContaining(['QUEUED', 'ASSIGNED', 'IN_PROGRESS', 'COMPLETED']));
    const lowHistory = (await admin.get(`/api/yard-task/${low}/history`)).body.items;
    expect(lowHistory.some((e: any) => e.driverId === drivers.ben.id)).toBe(true);
    const summary = (await admin.get(`/api/yard-task/summary/${yardId}`)).body;
    expect(summary.completedToday).toBe(1);

    // End of shift.
    expect((await drivers.ana.api.post('/api/yard-task/driver/session/end', {})).status).toBe(200);
    expect((await availability())[drivers.ana.id]).toBe('offline');
  });
});
