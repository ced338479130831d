import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { type Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import {
  AT_EDGE,
  act,
  createTask,
  snapshot,
  startTwoDriverWorld,
  type TaskSide,
  type TaskWorld,
} from './fixture.js';

/**
 * At an edge (where drivers start and complete their tasks) and at the cloud on each database
 * (docs/architecture.md "Two databases, and several cloud nodes"), where the staff assign, unassign, cancel, edit and delete them and a driver's start or
 * completion arrives as the task row from the edge.
 */
const SIDES: Array<[string, TaskSide]> = [
  ['edge', AT_EDGE],
  ...TEST_DIALECTS.map((dialect): [string, TaskSide] => [`cloud, ${dialect}`, { role: 'cloud', dialect }]),
];

describe.each(SIDES)('yard task transitions (%s)', (_name, side) => {
  let w: TaskWorld;
  let admin: Client;
  let jo: { id: string; client: Client };
  let kim: { id: string; client: Client };
  const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));

  beforeAll(async () => {
    ({ w, jo, kim } = await startTwoDriverWorld(clock, side));
    admin = w.admin;
  });
  afterAll(() => w.t.close());

  /** Jo starts or completes the task: through the drivers' API at the edge; at the cloud, the row as the edge's sync brings it. */
  async function joDid(op: 'start' | 'complete', id: string) {
    if (side.role === 'edge') {
      expect((await act(jo.client, op, id)).ok).toBe(true);
      return;
    }
    const now = clock.now();
    await w.t.core.changes.update(
      w.t.core.kysely,
      'yardTask',
      id,
      op === 'start' ? { status: 'IN_PROGRESS', startedAt: now } : { status: 'COMPLETED', completedAt: now },
    );
  }

  type State = 'QUEUED' | 'ASSIGNED' | 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED';

  /** A task brought to `state` through the API (assigned to Jo where it has a driver). */
  async function taskIn(state: State) {
    const task = await createTask(w, state === 'QUEUED' ? {} : { driverId: jo.id });
    if (state === 'IN_PROGRESS' || state === 'COMPLETED') await joDid('start', task.id);
    if (state === 'COMPLETED') await joDid('complete', task.id);
    if (state === 'CANCELLED') {
      expect(
        (await admin.patch(`/api/yard-task/${task.id}`, { status: 'CANCELLED', cancelReason: 'x' })).status,
      ).toBe(200);
    }
    return task.id as string;
  }

  /** Each way a task can be asked to move: [label, target state, request]. */
  const MOVES: Array<[string, State, (id: string) => Promise<{ ok: boolean; status: number; body: any }>]> = [
    ['assign', 'ASSIGNED', (id) => patch(id, { driverId: kim.id })],
    ['unassign', 'QUEUED', (id) => patch(id, { driverId: null })],
    ['start', 'IN_PROGRESS', (id) => driverAct('start', id)],
    ['complete', 'COMPLETED', (id) => driverAct('complete', id)],
    ['cancel', 'CANCELLED', (id) => patch(id, { status: 'CANCELLED', cancelReason: 'not needed' })],
  ];

  async function patch(id: string, body: Record<string, unknown>) {
    const res = await admin.patch(`/api/yard-task/${id}`, body);
    return { ok: res.status === 200, status: res.status, body: res.body };
  }

  async function driverAct(op: 'start' | 'complete', id: string) {
    const r = await act(jo.client, op, id);
    return { ok: r.ok, status: r.ok ? 200 : (r.error?.status ?? 0), body: r.error ?? r.task };
  }

  /**
   * The state machine (docs/domain.md "State machine"): every pair. ASSIGNED -> ASSIGNED is a reassignment. A QUEUED task has
   * no driver, so a driver's start or complete is refused as not theirs (403) before any state rule,
   * and unassigning it is a no-op.
   */
  const ALLOWED: Record<State, string[]> = {
    QUEUED: ['assign', 'cancel'],
    ASSIGNED: ['assign', 'unassign', 'start', 'cancel'],
    IN_PROGRESS: ['complete', 'cancel'],
    COMPLETED: [],
    CANCELLED: [],
  };
  const SPECIAL: Record<string, 'noop' | 403> = {
    'QUEUED unassign': 'noop',
    'QUEUED start': 403,
    'QUEUED complete': 403,
  };

  describe('the task state machine', () => {
    for (const from of Object.keys(ALLOWED) as State[]) {
      for (const [label, to, request] of MOVES) {
        const special = SPECIAL[`${from} ${label}`];
        const allowed = ALLOWED[from].includes(label);
        const outcome =
          special === 'noop' ? 'no change' : special === 403 ? '403' : allowed ? 'allowed' : '409';
        // A driver's own start or completion is made at the edge, where the driver's session is.
        const driversMove = label === 'start' || label === 'complete';
        it.skipIf(driversMove && side.role === 'cloud')(
          `${from} --${label}--> ${to}: ${outcome}`,
          async () => {
            const id = await taskIn(from);
            const before = await snapshot(w);
            const res = await request(id);
            if (special === 'noop') {
              expect(res.status).toBe(200);
              expect(await snapshot(w)).toEqual(before);
            } else if (special === 403) {
              expect([res.status, res.body.code]).toEqual([403, 'forbidden']);
              expect(await snapshot(w)).toEqual(before);
            } else if (allowed) {
              expect(res.status, JSON.stringify(res.body)).toBe(200);
              expect(res.body.status).toBe(to);
              const last = (
                await query(
                  w.t.db,
                  'SELECT * FROM task_event WHERE task_id = ? ORDER BY at DESC, id DESC',
                  id,
                )
              )[0];
              expect([last.from_status, last.to_status]).toEqual([from, to]);
            } else {
              expect([res.status, res.body.code]).toEqual([409, 'invalid-transition']);
              expect(res.body.detail).toContain(from);
              expect(await snapshot(w)).toEqual(before);
            }
          },
        );
      }
    }

    it('final tasks refuse field edits too; delete is only for QUEUED', async () => {
      const done = await taskIn('COMPLETED');
      const edit = await admin.patch(`/api/yard-task/${done}`, { notes: 'late note' });
      expect([edit.status, edit.body.code]).toEqual([409, 'invalid-transition']);
      for (const state of ['ASSIGNED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const) {
        const id = await taskIn(state);
        const before = await snapshot(w);
        const del = await admin.delete(`/api/yard-task/${id}`);
        expect([del.status, del.body.code, del.body.from, del.body.to]).toEqual([
          409,
          'invalid-transition',
          state,
          'DELETED',
        ]);
        expect(await snapshot(w)).toEqual(before);
      }
    });

    it('deleting a QUEUED task removes it and its history, leaving tombstones', async () => {
      const id = await taskIn('ASSIGNED');
      expect((await patch(id, { driverId: null })).status).toBe(200);
      expect((await admin.delete(`/api/yard-task/${id}`, { 'if-match': '"v1"' })).status).toBe(412);
      expect((await admin.delete(`/api/yard-task/${id}`)).status).toBe(204);
      expect((await admin.get(`/api/yard-task/${id}`)).status).toBe(404);
      expect(await query(w.t.db, 'SELECT * FROM task_event WHERE task_id = ?', id)).toEqual([]);
      const log = await query(
        w.t.db,
        "SELECT op FROM change_log WHERE entity = 'yard_task' AND entity_id = ? ORDER BY seq",
        id,
      );
      expect(log.at(-1).op).toBe('delete');
      expect(
        (
          await query(
            w.t.db,
            "SELECT count(*) AS n FROM change_log WHERE entity = 'task_event' AND op = 'delete'",
          )
        )[0].n,
      ).toBe(3);
    });
  });

  describe('updates', () => {
    it('concurrent changes of one task: one wins, the others are refused, one event each', async () => {
      const queued = await createTask(w);
      const cancels = await Promise.all(
        Array.from({ length: 4 }, () => patch(queued.id, { status: 'CANCELLED', cancelReason: 'twice' })),
      );
      expect(cancels.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
      const assigned = await createTask(w);
      const versions = await Promise.all(
        [jo.id, kim.id, jo.id, kim.id].map((driverId) =>
          admin.patch(`/api/yard-task/${assigned.id}`, { driverId }, { 'if-match': '"v1"' }),
        ),
      );
      expect(versions.map((r) => r.status).sort()).toEqual([200, 412, 412, 412]);
      const events = await query(
        w.t.db,
        'SELECT task_id, from_status, to_status FROM task_event WHERE task_id IN (?, ?) ORDER BY at, id',
        queued.id,
        assigned.id,
      );
      expect(events.filter((e) => e.task_id === queued.id).map((e) => e.to_status)).toEqual([
        'QUEUED',
        'CANCELLED',
      ]);
      expect(events.filter((e) => e.task_id === assigned.id).map((e) => e.to_status)).toEqual([
        'QUEUED',
        'ASSIGNED',
      ]);
      const [row] = await query(w.t.db, 'SELECT version FROM yard_task WHERE id = ?', assigned.id);
      expect(row.version).toBe(2);
    });

    it('PUT replaces the editable fields, honours If-Match, and keeps the driver unless told', async () => {
      const task = await createTask(w, { notes: 'old', priority: 0, driverId: jo.id });
      const stale = await admin.put(
        `/api/yard-task/${task.id}`,
        { type: 'move', priority: 3 },
        { 'if-match': '"v1"' },
      );
      expect([stale.status, stale.body.code]).toEqual([412, 'precondition-failed']);
      const before = await snapshot(w);
      expect(stale.body.currentVersion).toBe(2);
      expect(await snapshot(w)).toEqual(before);
      const ok = await admin.put(
        `/api/yard-task/${task.id}`,
        { type: 'move', priority: 3, trailerId: w.trailerId, toLocationId: w.door },
        { 'if-match': '"v2"' },
      );
      expect(ok.status, ok.text).toBe(200);
      expect(ok.headers.get('etag')).toBe('"v3"');
      expect(ok.body).toMatchObject({
        type: 'move',
        priority: 3,
        notes: null,
        trailerId: w.trailerId,
        toLocationId: w.door,
        driverId: jo.id,
        status: 'ASSIGNED',
      });
      const foreign = await admin.put(`/api/yard-task/${task.id}`, {
        type: 'inspect',
        priority: 3,
        toLocationId: w.foreignSpot,
      });
      expect([foreign.status, foreign.body.code]).toEqual([409, 'location-not-in-yard']);
      const bad = await admin.put(`/api/yard-task/${task.id}`, { priority: 9 });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(['body.type', 'body.priority']);
    });

    it('PATCH reassigns (events to both drivers) and reprioritises; cancel needs a reason', async () => {
      const task = await createTask(w, { driverId: jo.id });
      const seen = w.events.length;
      const re = await admin.patch(`/api/yard-task/${task.id}`, { driverId: kim.id, priority: 3 });
      expect(re.body).toMatchObject({ status: 'ASSIGNED', driverId: kim.id, priority: 3 });
      const fresh = w.events.slice(seen).filter((e) => (e.data as any).id === task.id);
      expect(fresh.map((e) => [e.type, e.driverId])).toEqual([
        ['task.unassigned', jo.id],
        ['task.assigned', kim.id],
      ]);
      const noReason = await admin.patch(`/api/yard-task/${task.id}`, { status: 'CANCELLED' });
      expect(noReason.status).toBe(400);
      expect(noReason.body.errors[0].path).toBe('body.cancelReason');
      const unknownDriver = await admin.patch(`/api/yard-task/${task.id}`, {
        driverId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
      });
      expect(unknownDriver.status).toBe(404);
      const cancel = await admin.patch(`/api/yard-task/${task.id}`, {
        status: 'CANCELLED',
        cancelReason: 'trailer left',
      });
      expect(cancel.body).toMatchObject({ status: 'CANCELLED', cancelReason: 'trailer left' });
      expect(w.events.at(-1)).toMatchObject({ type: 'task.cancelled', driverId: kim.id, yardId: w.yardId });
    });
  });
});
