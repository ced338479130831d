import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { type Client, query } from '../../helpers/http.js';
import {
  act,
  createTask,
  openSession,
  snapshot,
  startTwoDriverWorld,
  type TaskWorld,
  yardDriver,
} from './fixture.js';

// At an edge on SQLite only: drivers start and complete their tasks in a session at the edge (docs/architecture.md "Two databases, and several cloud nodes");
// the cloud's side of tasks is in tasks.test.ts, transitions.test.ts and the summaries.
let w: TaskWorld;
let admin: Client;
let jo: { id: string; client: Client };
let kim: { id: string; client: Client };
const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));

beforeAll(async () => {
  ({ w, jo, kim } = await startTwoDriverWorld(clock));
  admin = w.admin;
});
afterAll(() => w.t.close());

describe('drivers working their tasks', () => {
  it('a driver acts only on its own tasks, needs a session to start, and a reason to cancel', async () => {
    const kims = await createTask(w, { driverId: kim.id });
    const forbidden = await act(jo.client, 'start', kims.id);
    expect(forbidden.error).toMatchObject({ status: 403, code: 'forbidden' });
    const unknown = await act(jo.client, 'start', '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f');
    expect(unknown.error).toMatchObject({ status: 404 });
    const lee = await yardDriver(w, 'Lee');
    const lees = await createTask(w, { driverId: lee.id });
    const before = await snapshot(w);
    const noSession = await act(lee.client, 'start', lees.id);
    expect(noSession.error).toMatchObject({ status: 409, code: 'no-active-session' });
    await openSession(w, lee.id, w.otherYardId);
    expect((await act(lee.client, 'start', lees.id)).error?.code).toBe('no-active-session');
    expect((await snapshot(w)).tasks).toBe(before.tasks);
    expect((await snapshot(w)).versions).toEqual(before.versions);
    const cancel = await lee.client.post('/api/yard-task/driver/cancel', { taskIds: [lees.id] });
    expect(cancel.status).toBe(400);
  });

  it('start and complete stamp times, keep the GPS point in history, and publish events', async () => {
    const task = await createTask(w, { driverId: jo.id });
    const seen = w.events.length;
    clock.advance(60_000);
    const started = await act(jo.client, 'start', task.id, { lat: 32.78, lon: -96.8 });
    expect(started.task).toMatchObject({ status: 'IN_PROGRESS', startedAt: '2026-03-10T15:01:00.000Z' });
    clock.advance(120_000);
    const done = await act(jo.client, 'complete', task.id);
    expect(done.task).toMatchObject({ status: 'COMPLETED', completedAt: '2026-03-10T15:03:00.000Z' });
    const history = (await admin.get(`/api/yard-task/${task.id}/history`)).body.items;
    expect(history.map((e: any) => e.to)).toEqual(['QUEUED', 'ASSIGNED', 'IN_PROGRESS', 'COMPLETED']);
    expect(history[2]).toMatchObject({ lat: 32.78, lon: -96.8, actorKind: 'driver', actorId: jo.id });
    const types = w.events.slice(seen).filter((e) => (e.data as any).id === task.id);
    expect(types.map((e) => [e.type, e.driverId, e.yardId])).toEqual([
      ['task.started', jo.id, w.yardId],
      ['task.completed', jo.id, w.yardId],
    ]);
  });

  it('completing a move puts the trailer at the destination and bills the trailer’s carrier', async () => {
    const task = await createTask(w, {
      type: 'move',
      trailerId: w.trailerId,
      fromLocationId: w.spots[0],
      toLocationId: w.spots[1],
      driverId: jo.id,
    });
    await act(jo.client, 'start', task.id);
    const trailerBefore = (await query(w.t.db, 'SELECT version FROM trailer WHERE id = ?', w.trailerId))[0];
    const done = await act(jo.client, 'complete', task.id);
    expect(done.task).toMatchObject({ status: 'COMPLETED', billedCarrierId: w.carrierId });
    const trailer = (
      await query(w.t.db, 'SELECT location_id, version FROM trailer WHERE id = ?', w.trailerId)
    )[0];
    expect(trailer).toEqual({ location_id: w.spots[1], version: trailerBefore.version + 1 });
    const log = (
      await query(
        w.t.db,
        "SELECT data FROM change_log WHERE entity = 'trailer' AND entity_id = ? ORDER BY seq DESC LIMIT 1",
        w.trailerId,
      )
    )[0];
    expect(JSON.parse(log.data).locationId).toBe(w.spots[1]);
    const api = await admin.get(`/api/trailer/${w.trailerId}`);
    expect(api.body.locationId).toBe(w.spots[1]);
  });

  it('two concurrent starts of one task: exactly one wins, one event', async () => {
    const task = await createTask(w, { driverId: jo.id });
    const results = await Promise.all([act(jo.client, 'start', task.id), act(jo.client, 'start', task.id)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.find((r) => !r.ok)?.error).toMatchObject({ status: 409, code: 'invalid-transition' });
    const starts = await query(
      w.t.db,
      "SELECT count(*) AS n FROM task_event WHERE task_id = ? AND to_status = 'IN_PROGRESS'",
      task.id,
    );
    expect(starts[0].n).toBe(1);
    const completes = await Promise.all([
      act(jo.client, 'complete', task.id),
      act(jo.client, 'complete', task.id),
    ]);
    expect(completes.filter((r) => r.ok)).toHaveLength(1);
  });

  it('every task write leaves change_log rows equal to the rows', async () => {
    const task = await createTask(w, { driverId: jo.id });
    await act(jo.client, 'start', task.id);
    const stored = (await query(w.t.db, 'SELECT * FROM yard_task WHERE id = ?', task.id))[0];
    const log = await query(
      w.t.db,
      "SELECT op, data, hlc FROM change_log WHERE entity = 'yard_task' AND entity_id = ? ORDER BY seq",
      task.id,
    );
    expect(log.map((l) => l.op)).toEqual(['upsert', 'upsert', 'upsert']);
    expect(log.at(-1).hlc).toBe(stored.hlc);
    expect(JSON.parse(log.at(-1).data)).toMatchObject({ status: 'IN_PROGRESS', version: 3 });
    const events = await query(w.t.db, 'SELECT id FROM task_event WHERE task_id = ?', task.id);
    for (const e of events) {
      expect(
        (
          await query(
            w.t.db,
            "SELECT count(*) AS n FROM change_log WHERE entity = 'task_event' AND entity_id = ?",
            e.id,
          )
        )[0].n,
      ).toBe(1);
    }
  });
});

// Last: it moves the clock on by minutes.
describe('actions queued on the phone and sent later', () => {
  it('actions sent late carry when they were tapped: the task times use it, the history keeps both, within bounds', async () => {
    const task = await createTask(w, { driverId: jo.id }); // assigned at 15:00 + t0
    const t0 = clock.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    // Tapped offline 10 s and 70 s after the assignment; the link came back 5 minutes later.
    clock.advance(5 * 60_000);
    const started = await act(jo.client, 'start', task.id, { tappedAt: iso(t0 + 10_000) });
    expect(started.task).toMatchObject({ status: 'IN_PROGRESS', startedAt: iso(t0 + 10_000) });
    const done = await act(jo.client, 'complete', task.id, { tappedAt: iso(t0 + 70_000) });
    expect(done.task).toMatchObject({ status: 'COMPLETED', completedAt: iso(t0 + 70_000) });
    const stored = await query(
      w.t.db,
      'SELECT started_at AS s, completed_at AS c FROM yard_task WHERE id = ?',
      task.id,
    );
    expect(Number(stored[0].c) - Number(stored[0].s)).toBe(60_000); // the real duration, not 0
    const history = (await admin.get(`/api/yard-task/${task.id}/history`)).body.items;
    expect(history.slice(2).map((e: any) => [e.to, e.at, e.tappedAt])).toEqual([
      ['IN_PROGRESS', iso(t0 + 5 * 60_000), iso(t0 + 10_000)],
      ['COMPLETED', iso(t0 + 5 * 60_000), iso(t0 + 70_000)],
    ]);
    // A tap before the task's previous step counts from that step; one after now counts as now.
    const early = await createTask(w, { driverId: jo.id });
    const assignedAt = clock.now();
    clock.advance(60_000);
    const tooEarly = await act(jo.client, 'start', early.id, { tappedAt: iso(assignedAt - 3_600_000) });
    expect(tooEarly.task.startedAt).toBe(iso(assignedAt));
    const skewed = await act(jo.client, 'complete', early.id, { tappedAt: iso(clock.now() + 20_000) });
    expect(skewed.task.completedAt).toBe(iso(clock.now()));
    // More than 30 s ahead of the server: the phone's clock is wrong; refused, nothing changes.
    const ahead = await createTask(w, { driverId: jo.id });
    const future = await act(jo.client, 'start', ahead.id, { tappedAt: iso(clock.now() + 120_000) });
    expect(future.error).toMatchObject({ status: 400, code: 'validation-failed' });
    expect((await admin.get(`/api/yard-task/${ahead.id}`)).body.status).toBe('ASSIGNED');
  });
});
