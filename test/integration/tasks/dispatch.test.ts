import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { type Client, clientWithRole, query } from '../../helpers/http.js';
import {
  act,
  count,
  endSession,
  heartbeat,
  newYard,
  openSession,
  setSettings,
  startTaskWorld,
  type TaskWorld,
  yardDriver,
} from './fixture.js';

// At an edge on SQLite only: auto-dispatch and driver sessions are the edge's (docs/architecture.md "Two databases, and several cloud nodes"); the cloud
// never dispatches on its own.
let w: TaskWorld;
let admin: Client;
const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));
const MIN = 60_000;

beforeAll(async () => {
  w = await startTaskWorld(clock);
  admin = w.admin;
});
afterAll(() => w.t.close());

async function task(yardId: string, priority = 1, extra: Record<string, unknown> = {}) {
  const res = await admin.post('/api/yard-task', { yardId, type: 'other', priority, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const statusOf = async (id: string) => (await admin.get(`/api/yard-task/${id}`)).body;

async function drivers(yardId: string) {
  const res = await admin.get(`/api/yard-task/drivers?yardId=${yardId}`);
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries(res.body.items.map((d: any) => [d.driverId, d]));
}

describe('auto-dispatch', () => {
  it('is on by default: a new task goes at once to the available driver, with an event', async () => {
    const yard = await newYard(w, 'D1');
    const ann = await yardDriver(w, 'Ann');
    await openSession(w, ann.id, yard);
    const seen = w.events.length;
    const t1 = await task(yard);
    expect(t1).toMatchObject({ status: 'ASSIGNED', driverId: ann.id });
    const assigned = w.events.slice(seen).filter((e) => e.type === 'task.assigned');
    expect(assigned).toHaveLength(1);
    expect(assigned[0]).toMatchObject({ yardId: yard, driverId: ann.id });
    const history = (await admin.get(`/api/yard-task/${t1.id}/history`)).body.items;
    expect(history.at(-1)).toMatchObject({ from: 'QUEUED', to: 'ASSIGNED', actorKind: 'system' });
    // Ann is now busy (one open task is the default limit): the next task waits.
    const t2 = await task(yard);
    expect(t2.status).toBe('QUEUED');
    expect((await drivers(yard))[ann.id]).toMatchObject({ availability: 'busy', openTasks: 1 });
    // Completing frees Ann, and the waiting task is hers before the complete call returns.
    await act(ann.client, 'start', t1.id);
    await act(ann.client, 'complete', t1.id);
    expect(await statusOf(t2.id)).toMatchObject({ status: 'ASSIGNED', driverId: ann.id });
  });

  it('hands out the most urgent, then oldest task to the driver idle longest (ties by id)', async () => {
    const yard = await newYard(w, 'D2');
    await setSettings(w, { 'tasks.autoAssign': false });
    const old = await task(yard, 1);
    clock.advance(MIN);
    const urgent = await task(yard, 3);
    clock.advance(MIN);
    const newer = await task(yard, 1);
    clock.advance(MIN);
    const last = await task(yard, 0);
    const [p, q, r] = [await yardDriver(w, 'P'), await yardDriver(w, 'Q'), await yardDriver(w, 'R')];
    // R started first; P and Q at the same time, so between them the lower id is "longer idle".
    const start = clock.now();
    await openSession(w, r.id, yard, start - 10 * MIN);
    await openSession(w, p.id, yard, start - 5 * MIN);
    await openSession(w, q.id, yard, start - 5 * MIN);
    const [first, second] = [p.id, q.id].sort();
    await setSettings(w, { 'tasks.autoAssign': true });
    await w.t.core.services.tasks.dispatch(yard);
    expect((await statusOf(urgent.id)).driverId).toBe(r.id);
    expect((await statusOf(old.id)).driverId).toBe(first);
    expect((await statusOf(newer.id)).driverId).toBe(second);
    expect((await statusOf(last.id)).status).toBe('QUEUED');
  });

  it('a driver who completed a task recently waits behind one idle since the session start', async () => {
    const yard = await newYard(w, 'D3');
    const [early, late] = [await yardDriver(w, 'Early'), await yardDriver(w, 'Late')];
    await openSession(w, early.id, yard, clock.now() - 60 * MIN);
    const first = await task(yard);
    expect(first.driverId).toBe(early.id);
    await openSession(w, late.id, yard, clock.now() - 30 * MIN);
    clock.advance(MIN);
    await act(early.client, 'start', first.id);
    clock.advance(MIN);
    await act(early.client, 'complete', first.id);
    // Early has been idle since just now; Late since its session start 32 min ago.
    const next = await task(yard);
    expect(next.driverId).toBe(late.id);
    const third = await task(yard);
    expect(third.driverId).toBe(early.id);
  });

  it('with autoAssign off nothing is assigned; unassigning with it on hands the task out again', async () => {
    const yard = await newYard(w, 'D4');
    const dee = await yardDriver(w, 'Dee');
    await openSession(w, dee.id, yard);
    await setSettings(w, { 'tasks.autoAssign': false });
    const t1 = await task(yard);
    expect(t1.status).toBe('QUEUED');
    await w.t.core.services.tasks.dispatch(yard);
    expect((await statusOf(t1.id)).status).toBe('QUEUED');
    await setSettings(w, { 'tasks.autoAssign': true });
    const t2 = await task(yard, 0);
    expect(t2.status).toBe('QUEUED');
    expect((await statusOf(t1.id)).driverId).toBe(dee.id);
    const un = await admin.patch(`/api/yard-task/${t1.id}`, { driverId: null });
    expect(un.status).toBe(200);
    // Dee is free again and t1 is still the most urgent-oldest: it comes straight back.
    expect(un.body).toMatchObject({ status: 'ASSIGNED', driverId: dee.id });
    const history = (await admin.get(`/api/yard-task/${t1.id}/history`)).body.items;
    expect(history.map((e: any) => e.to)).toEqual(['QUEUED', 'ASSIGNED', 'QUEUED', 'ASSIGNED']);
  });

  it('many concurrent creations never double-assign a driver', async () => {
    const yard = await newYard(w, 'D5');
    const crew = await Promise.all(['A', 'B', 'C'].map((n) => yardDriver(w, n)));
    for (const d of crew) await openSession(w, d.id, yard);
    await Promise.all(Array.from({ length: 12 }, (_, i) => task(yard, i % 4)));
    const open = await query(
      w.t.db,
      "SELECT driver_id, count(*) AS n FROM yard_task WHERE yard_id = ? AND status = 'ASSIGNED' GROUP BY driver_id",
      yard,
    );
    expect(open.map((r) => r.n)).toEqual([1, 1, 1]);
    const queued = await query(
      w.t.db,
      "SELECT priority FROM yard_task WHERE yard_id = ? AND status = 'QUEUED'",
      yard,
    );
    expect(queued).toHaveLength(9);
  });
});

describe('availability', () => {
  it('available, busy and offline; a heartbeat timeout makes a driver offline without any write', async () => {
    const yard = await newYard(w, 'AV');
    await setSettings(w, { 'tasks.autoAssign': false, 'tasks.driverTimeoutSec': 120 });
    const idle = await yardDriver(w, 'Idle');
    const working = await yardDriver(w, 'Working');
    const gone = await yardDriver(w, 'Gone');
    const home = await yardDriver(w, 'Home');
    const idleSession = await openSession(w, idle.id, yard);
    await openSession(w, working.id, yard);
    const goneSession = await openSession(w, gone.id, yard);
    await endSession(w, goneSession);
    const job = await task(yard, 1, { driverId: working.id });
    await act(working.client, 'start', job.id);
    let list = await drivers(yard);
    expect(list[idle.id]).toMatchObject({ availability: 'available', openTasks: 0, name: 'Idle Driver' });
    expect(list[idle.id].session).toMatchObject({ id: idleSession, yardId: yard, lastLocation: null });
    expect(list[working.id]).toMatchObject({ availability: 'busy', openTasks: 1 });
    expect(list[gone.id]).toBeUndefined();
    const everyone = (await admin.get('/api/yard-task/drivers')).body.items;
    const byId = Object.fromEntries(everyone.map((d: any) => [d.driverId, d]));
    expect(byId[gone.id]).toMatchObject({ availability: 'offline', session: null });
    expect(byId[home.id]).toMatchObject({ availability: 'offline', session: null });

    const writes = await count(w, 'change_log');
    clock.advance(100_000);
    await heartbeat(w, idleSession);
    clock.advance(30_000);
    list = await drivers(yard);
    expect(list[idle.id].availability).toBe('available');
    expect(list[working.id].availability).toBe('offline');
    clock.advance(100_000);
    list = await drivers(yard);
    expect(list[idle.id].availability).toBe('offline');
    expect(await count(w, 'change_log')).toBe(writes + 1); // only the heartbeat itself
    // An offline driver gets no work.
    await setSettings(w, { 'tasks.autoAssign': true });
    expect((await task(yard)).status).toBe('QUEUED');
  });

  it('the drivers list is for staff; a scoped user sees drivers of its yards and those off shift', async () => {
    const yard = await newYard(w, 'SC');
    const there = await yardDriver(w, 'There');
    await openSession(w, there.id, yard);
    const scoped = await clientWithRole(admin, 'viewer', { yardIds: [w.yardId] });
    const items = (await scoped.get('/api/yard-task/drivers')).body.items;
    expect(items.some((d: any) => d.driverId === there.id)).toBe(false);
    expect(items.length).toBeGreaterThan(0);
    expect((await scoped.get(`/api/yard-task/drivers?yardId=${yard}`)).status).toBe(403);
    expect((await there.client.get('/api/yard-task/drivers')).status).toBe(403);
  });
});
