import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { type Client, clientWithRole, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { DriverAppWorld, UNKNOWN_ID } from './fixtures.js';

let t: TestApp;
let w: DriverAppWorld;
let dispatcher: Client;
const clock = new ManualClock(Date.parse('2026-04-01T06:00:00Z'));
const BASE = '/api/yard-task/driver';

beforeAll(async () => {
  t = await startTestApp({ clock });
  w = new DriverAppWorld(t);
  dispatcher = await clientWithRole(w.admin, 'dispatcher');
});
afterAll(() => t.close());

const taskRow = (id: string) =>
  rows(
    t.db,
    'SELECT status, driver_id, started_at, completed_at, cancel_reason, version FROM yard_task WHERE id = ?',
    id,
  )[0];
const eventsOf = (id: string) =>
  rows(
    t.db,
    'SELECT from_status, to_status, actor_kind, actor_id, reason, lat, lon FROM task_event WHERE task_id = ? ORDER BY at, id',
    id,
  );

/** A yard with auto-assignment off (tests here place tasks themselves) and a driver in session there. */
async function driverOnShift() {
  const yardId = await w.yard();
  const d = await w.driver();
  const s = await d.client.post(`${BASE}/session/start`, { yardId });
  expect(s.status).toBe(201);
  return { yardId, ...d };
}

describe('the driver’s task list', () => {
  it('lists only the driver’s ASSIGNED and IN_PROGRESS tasks, most urgent first, then oldest', async () => {
    await w.setting('tasks.autoAssign', false);
    const { yardId, id, client } = await driverOnShift();
    const other = await w.driver();
    const low = await w.task(yardId, { driverId: id, priority: 0 });
    clock.advance(1000);
    const urgent = await w.task(yardId, { driverId: id, priority: 3, status: 'IN_PROGRESS' });
    clock.advance(1000);
    const normal = await w.task(yardId, { driverId: id, priority: 1 });
    await w.task(yardId, { driverId: id, status: 'COMPLETED' });
    await w.task(yardId, { driverId: other.id });
    await w.task(yardId, { status: 'QUEUED' });
    const res = await client.get(`${BASE}/tasks`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.items.map((x: any) => x.id)).toEqual([urgent, normal, low]);
    expect((await other.client.get(`${BASE}/tasks`)).body.items).toHaveLength(1);
  });
});

describe('batch start / complete / cancel', () => {
  it('answers a result per task: own tasks move, others fail on their own', async () => {
    await w.setting('tasks.autoAssign', false);
    const { yardId, id, client } = await driverOnShift();
    const other = await w.driver();
    const mine = [await w.task(yardId, { driverId: id }), await w.task(yardId, { driverId: id })];
    const theirs = await w.task(yardId, { driverId: other.id });
    const started = await client.post(`${BASE}/start`, {
      taskIds: [mine[0], theirs, UNKNOWN_ID, mine[1]],
      lat: 38.7,
      lon: -9.1,
    });
    expect(started.status, started.text).toBe(200);
    expect(started.body.results.map((r: any) => [r.taskId, r.ok, r.error?.status, r.error?.code])).toEqual([
      [mine[0], true, undefined, undefined],
      [theirs, false, 403, 'forbidden'],
      [UNKNOWN_ID, false, 404, 'not-found'],
      [mine[1], true, undefined, undefined],
    ]);
    expect(started.body.results[0].task).toMatchObject({ id: mine[0], status: 'IN_PROGRESS', driverId: id });
    expect(taskRow(theirs)).toMatchObject({ status: 'ASSIGNED', version: 1 });
    expect(eventsOf(mine[0]!)).toEqual([
      {
        from_status: 'ASSIGNED',
        to_status: 'IN_PROGRESS',
        actor_kind: 'driver',
        actor_id: id,
        reason: null,
        lat: 38.7,
        lon: -9.1,
      },
    ]);

    const again = await client.post(`${BASE}/start`, { taskIds: [mine[0]] });
    expect(again.body.results[0]).toMatchObject({
      ok: false,
      error: { status: 409, code: 'invalid-transition' },
    });

    clock.advance(60_000);
    const done = await client.post(`${BASE}/complete`, { taskIds: mine });
    expect(done.body.results.map((r: any) => r.ok)).toEqual([true, true]);
    expect(taskRow(mine[0]!)).toMatchObject({ status: 'COMPLETED', completed_at: clock.now() });
    const finalAgain = await client.post(`${BASE}/cancel`, { taskIds: [mine[0]], reason: 'oops' });
    expect(finalAgain.body.results[0].error).toMatchObject({ status: 409, code: 'invalid-transition' });
    expect(
      rows(
        t.db,
        "SELECT count(*) AS n FROM change_log WHERE entity = 'task_event' AND entity_id IN (SELECT id FROM task_event WHERE task_id = ?)",
        mine[0],
      )[0].n,
    ).toBe(2);
  });

  it('cancel needs a reason and records it', async () => {
    const { yardId, id, client } = await driverOnShift();
    const task = await w.task(yardId, { driverId: id });
    const noReason = await client.post(`${BASE}/cancel`, { taskIds: [task] });
    expect(noReason.status).toBe(400);
    expect(noReason.body.errors.map((e: any) => e.path)).toEqual(['body.reason']);
    const blank = await client.post(`${BASE}/cancel`, { taskIds: [task], reason: '   ' });
    expect(blank.status).toBe(400);
    expect(taskRow(task)).toMatchObject({ status: 'ASSIGNED', version: 1 });
    const ok = await client.post(`${BASE}/cancel`, { taskIds: [task], reason: 'trailer not at spot' });
    expect(ok.body.results[0]).toMatchObject({
      ok: true,
      task: { status: 'CANCELLED', cancelReason: 'trailer not at spot' },
    });
    expect(eventsOf(task)[0]).toMatchObject({ to_status: 'CANCELLED', reason: 'trailer not at spot' });
  });

  it('starting needs an active session; completing a started task still works after the session ended', async () => {
    await w.setting('tasks.autoAssign', false);
    const { yardId, id, client } = await driverOnShift();
    const [a, b] = [await w.task(yardId, { driverId: id }), await w.task(yardId, { driverId: id })];
    expect((await client.post(`${BASE}/start`, { taskIds: [a] })).body.results[0].ok).toBe(true);
    await client.post(`${BASE}/session/end`);
    const noSession = await client.post(`${BASE}/start`, { taskIds: [b] });
    expect(noSession.body.results[0]).toMatchObject({
      ok: false,
      error: { status: 409, code: 'no-active-session' },
    });
    expect(taskRow(b)).toMatchObject({ status: 'ASSIGNED', version: 1 });
    expect((await client.post(`${BASE}/complete`, { taskIds: [a] })).body.results[0].ok).toBe(true);
  });

  it('bad batches are 400 and change nothing: duplicates, too many, malformed ids, half a location', async () => {
    const { yardId, id, client } = await driverOnShift();
    const task = await w.task(yardId, { driverId: id });
    const dup = await client.post(`${BASE}/start`, { taskIds: [task, task] });
    expect(dup.status).toBe(400);
    expect(dup.body.errors.map((e: any) => e.path)).toEqual(['body.taskIds[1]']);
    const tooMany = await client.post(`${BASE}/complete`, {
      taskIds: Array.from({ length: 51 }, () => newId()),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.map((e: any) => e.path)).toEqual(['body.taskIds']);
    expect((await client.post(`${BASE}/start`, { taskIds: [] })).status).toBe(400);
    const malformed = await client.post(`${BASE}/start`, { taskIds: ['nope'], extra: 1 });
    expect(malformed.body.errors.map((e: any) => e.path).sort()).toEqual(['body', 'body.taskIds[0]']);
    const half = await client.post(`${BASE}/start`, { taskIds: [task], lat: 1 });
    expect(half.status).toBe(400);
    expect(half.body.errors.map((e: any) => e.path)).toEqual(['body.lon']);
    expect(taskRow(task)).toMatchObject({ status: 'ASSIGNED', version: 1 });
    expect(eventsOf(task)).toEqual([]);
  });

  it('two concurrent completions of the same task: exactly one wins', async () => {
    const { yardId, id, client } = await driverOnShift();
    const task = await w.task(yardId, { driverId: id, status: 'IN_PROGRESS' });
    const [x, y] = await Promise.all([
      client.post(`${BASE}/complete`, { taskIds: [task] }),
      client.post(`${BASE}/complete`, { taskIds: [task] }),
    ]);
    const results = [x.body.results[0], y.body.results[0]];
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.find((r) => !r.ok).error.code).toMatch(/^(invalid-transition|conflict)$/);
    expect(eventsOf(task)).toHaveLength(1);
    expect(taskRow(task)).toMatchObject({ status: 'COMPLETED', version: 2 });
  });
});

describe('sessions drive auto-dispatch', () => {
  it('a driver starting a session gets the queued task at once; heartbeat timeout makes them offline', async () => {
    await w.setting('tasks.autoAssign', true);
    await w.setting('tasks.driverTimeoutSec', 60);
    const yardId = await w.yard();
    const queued = await dispatcher.post('/api/yard-task', { yardId, type: 'other', priority: 2 });
    expect(queued.status, queued.text).toBe(201);
    expect(queued.body.status).toBe('QUEUED');

    const d = await w.driver();
    await d.client.post(`${BASE}/session/start`, { yardId });
    expect(taskRow(queued.body.id)).toMatchObject({ status: 'ASSIGNED', driver_id: d.id });
    expect((await d.client.get(`${BASE}/tasks`)).body.items.map((x: any) => x.id)).toEqual([queued.body.id]);
    const done = await d.client.post(`${BASE}/start`, { taskIds: [queued.body.id] });
    expect(done.body.results[0].ok).toBe(true);
    await d.client.post(`${BASE}/complete`, { taskIds: [queued.body.id] });

    const availability = async () =>
      (await dispatcher.get(`/api/yard-task/drivers?yardId=${yardId}`)).body.items.find(
        (x: any) => x.driverId === d.id,
      )?.availability;
    expect(await availability()).toBe('available');
    clock.advance(61_000);
    expect(await availability()).toBe('offline');
    // Queued while the driver is offline: nobody takes it ...
    const waiting = await dispatcher.post('/api/yard-task', { yardId, type: 'other' });
    expect(waiting.body.status).toBe('QUEUED');
    // ... until the device checks in again: the driver is back and gets it at once.
    const beat = await d.client.post(`${BASE}/last-check`, {});
    expect(beat.status).toBe(200);
    expect(taskRow(waiting.body.id)).toMatchObject({ status: 'ASSIGNED', driver_id: d.id });
    await w.setting('tasks.driverTimeoutSec', 120);
  });

  it('moving a trailer: completing a move task puts the trailer at the destination', async () => {
    await w.setting('tasks.autoAssign', false);
    const { yardId, id, client } = await driverOnShift();
    const [from, to] = [await w.location(yardId), await w.location(yardId)];
    const carrier = await w.admin.post('/api/carrier', { name: `Carrier ${newId().slice(-6)}` });
    const trailerId = newId();
    const now = clock.now();
    await t.core.changes.insert(t.core.kysely, 'trailer', {
      id: trailerId,
      carrierId: carrier.body.id,
      number: `TR${trailerId.slice(-6)}`,
      plate: null,
      plateRegion: null,
      lengthFt: null,
      sealNumber: null,
      yardId,
      locationId: from,
      arrivedAt: now,
      notes: null,
      createdAt: now,
      updatedAt: now,
    });
    const created = await dispatcher.post('/api/yard-task', {
      yardId,
      type: 'move',
      trailerId,
      fromLocationId: from,
      toLocationId: to,
      driverId: id,
    });
    expect(created.status, created.text).toBe(201);
    await client.post(`${BASE}/start`, { taskIds: [created.body.id] });
    const done = await client.post(`${BASE}/complete`, { taskIds: [created.body.id] });
    expect(done.body.results[0]).toMatchObject({ ok: true, task: { billedCarrierId: carrier.body.id } });
    expect(rows(t.db, 'SELECT location_id FROM trailer WHERE id = ?', trailerId)[0].location_id).toBe(to);
  });
});
