import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { type Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { createTask, snapshot, startTaskWorld, type TaskWorld, UNKNOWN_ID, yardDriver } from './fixture.js';

/** The staff's side of yard tasks at the cloud, on each database (docs/architecture.md "Two databases, and several cloud nodes"): one suite, SQLite and PostgreSQL. */
describe.each(TEST_DIALECTS)('yard tasks at the cloud (%s)', (dialect) => {
  let w: TaskWorld;
  let admin: Client;
  const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));

  // Dispatch is tested in dispatch.test.ts (at the edge); the cloud never dispatches on its own.
  beforeAll(async () => {
    w = await startTaskWorld(clock, {}, { role: 'cloud', dialect });
    admin = w.admin;
  });
  afterAll(() => w.t.close());

  describe('yard tasks: create and read', () => {
    it('creates one task with every field and answers it with ETag and Location', async () => {
      const res = await admin.post('/api/yard-task', {
        yardId: w.yardId,
        type: 'move',
        trailerId: w.trailerId,
        fromLocationId: w.spots[0],
        toLocationId: w.door,
        priority: 2,
        notes: 'to door 1 for loading',
        dueAt: '2026-03-10T16:00:00Z',
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({
        yardId: w.yardId,
        type: 'move',
        trailerId: w.trailerId,
        fromLocationId: w.spots[0],
        toLocationId: w.door,
        priority: 2,
        status: 'QUEUED',
        driverId: null,
        notes: 'to door 1 for loading',
        dueAt: '2026-03-10T16:00:00.000Z',
        createdAt: '2026-03-10T15:00:00.000Z',
        version: 1,
      });
      expect(res.headers.get('etag')).toBe('"v1"');
      expect(res.headers.get('location')).toBe(`/api/yard-task/${res.body.id}`);
      const one = await admin.get(`/api/yard-task/${res.body.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(res.body);
      const history = await admin.get(`/api/yard-task/${res.body.id}/history`);
      expect(history.body.items).toMatchObject([{ from: null, to: 'QUEUED', actorKind: 'user' }]);
    });

    it('defaults priority to 1; a driver given at creation is assigned at once', async () => {
      const d = await yardDriver(w);
      const task = await createTask(w, { driverId: d.id });
      expect(task).toMatchObject({ priority: 1, status: 'ASSIGNED', driverId: d.id });
      expect(task.assignedAt).toBe('2026-03-10T15:00:00.000Z');
      const history = (await admin.get(`/api/yard-task/${task.id}/history`)).body.items;
      expect(history.map((e: any) => [e.from, e.to, e.driverId])).toEqual([
        [null, 'QUEUED', null],
        ['QUEUED', 'ASSIGNED', d.id],
      ]);
    });

    it('a batch is created all together, with client-given ids', async () => {
      const ids = [newId(), newId(), newId()];
      const res = await admin.post('/api/yard-task', {
        tasks: ids.map((id, i) => ({ id, yardId: w.yardId, type: 'inspect', priority: i })),
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.items.map((t: any) => t.id)).toEqual(ids);
      expect(
        (await query(w.t.db, `SELECT count(*) AS n FROM yard_task WHERE id IN (?, ?, ?)`, ...ids))[0].n,
      ).toBe(3);
    });

    it('a batch with one bad task writes nothing, and says which task', async () => {
      const before = await snapshot(w);
      const res = await admin.post('/api/yard-task', {
        tasks: [
          { yardId: w.yardId, type: 'other' },
          { yardId: w.yardId, type: 'move', trailerId: w.trailerId, toLocationId: w.foreignSpot },
        ],
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('location-not-in-yard');
      expect(res.body.detail).toMatch(/^tasks\[1\]: /);
      expect(await snapshot(w)).toEqual(before);
    });

    it('a task that relocates a trailer needs the trailer and where it goes (400, field errors in words), and stores nothing', async () => {
      const before = await snapshot(w);
      for (const type of ['move', 'pull_to_door', 'return_to_spot', 'shunt']) {
        const none = await admin.post('/api/yard-task', { yardId: w.yardId, type });
        expect(none.status, type).toBe(400);
        expect(none.body.code).toBe('validation-failed');
        expect(none.body.errors).toEqual([
          { path: 'body.trailerId', message: 'Choose the trailer to move.', code: 'required' },
          { path: 'body.toLocationId', message: 'Choose where the trailer goes.', code: 'required' },
        ]);
      }
      const noDestination = await admin.post('/api/yard-task', {
        tasks: [
          { yardId: w.yardId, type: 'inspect' },
          { yardId: w.yardId, type: 'move', trailerId: w.trailerId, toLocationId: null },
        ],
      });
      expect(noDestination.status).toBe(400);
      expect(noDestination.body.errors).toMatchObject([{ path: 'body.tasks[1].toLocationId' }]);
      expect(await snapshot(w)).toEqual(before);
      // Editing a task into an incomplete move is refused the same way, and changes nothing.
      const task = await createTask(w, { type: 'inspect' });
      const patched = await admin.patch(`/api/yard-task/${task.id}`, {
        type: 'move',
        trailerId: w.trailerId,
      });
      expect(patched.status).toBe(400);
      expect(patched.body.errors).toMatchObject([{ path: 'body.toLocationId', code: 'required' }]);
      expect((await admin.get(`/api/yard-task/${task.id}`)).body).toMatchObject({
        type: 'inspect',
        version: 1,
      });
    });

    it("a task with a trailer and no pickup place records the trailer's spot as where it starts", async () => {
      const res = await admin.post('/api/yard-task', {
        yardId: w.yardId,
        type: 'pull_to_door',
        trailerId: w.trailerId,
        toLocationId: w.door,
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ fromLocationId: w.spots[0], toLocationId: w.door });
      const stored = await query(
        w.t.db,
        'SELECT from_location_id AS f FROM yard_task WHERE id = ?',
        res.body.id,
      );
      expect(stored[0].f).toBe(w.spots[0]);
      // A place given by the clerk is kept as given.
      const given = await admin.post('/api/yard-task', {
        yardId: w.yardId,
        type: 'move',
        trailerId: w.trailerId,
        fromLocationId: w.spots[1],
        toLocationId: w.door,
      });
      expect(given.body.fromLocationId).toBe(w.spots[1]);
      // Naming the trailer later (an inspection given its trailer) fills it too.
      const later = await createTask(w, { type: 'inspect' });
      const patched = await admin.patch(`/api/yard-task/${later.id}`, { trailerId: w.trailerId });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.fromLocationId).toBe(w.spots[0]);
    });

    it('bad input: field paths, duplicate ids in a batch, batch size, unknown and foreign references', async () => {
      const before = await snapshot(w);
      const bad = await admin.post('/api/yard-task', {
        yardId: 'nope',
        type: 'fly',
        priority: 4,
        dueAt: 'tomorrow',
        extra: 1,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining(['body.yardId', 'body.type', 'body.priority', 'body.dueAt']),
      );
      const id = newId();
      const dup = await admin.post('/api/yard-task', {
        tasks: [
          { id, yardId: w.yardId, type: 'other' },
          { id, yardId: w.yardId, type: 'other' },
        ],
      });
      expect(dup.status).toBe(400);
      expect(dup.body.errors).toMatchObject([{ path: 'body.tasks[1].id' }]);
      const big = await admin.post('/api/yard-task', {
        tasks: Array.from({ length: 201 }, () => ({ yardId: w.yardId, type: 'other' })),
      });
      expect(big.status).toBe(400);
      expect(big.body.errors[0].path).toBe('body.tasks');
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ yardId: UNKNOWN_ID }, 404, 'not-found'],
        [{ trailerId: UNKNOWN_ID }, 404, 'not-found'],
        [{ trailerId: w.outsideTrailerId }, 409, 'trailer-not-in-yard'],
        [{ toLocationId: UNKNOWN_ID }, 404, 'not-found'],
        [{ fromLocationId: w.foreignSpot }, 409, 'location-not-in-yard'],
        [{ driverId: UNKNOWN_ID }, 404, 'not-found'],
      ];
      for (const [body, status, code] of cases) {
        // An inspection: a move without its trailer and destination is 400 before any reference is looked up.
        const res = await admin.post('/api/yard-task', { yardId: w.yardId, type: 'inspect', ...body });
        expect([res.status, res.body.code], JSON.stringify(body)).toEqual([status, code]);
      }
      expect(await snapshot(w)).toEqual(before);
    });

    it('an id that exists already is 409 duplicate', async () => {
      const task = await createTask(w);
      const again = await admin.post('/api/yard-task', { id: task.id, yardId: w.yardId, type: 'other' });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('duplicate');
    });

    it('concurrent creates with one client-given id: one task, the others 409 duplicate', async () => {
      const id = newId();
      const creates = await Promise.all(
        Array.from({ length: 4 }, () =>
          admin.post('/api/yard-task', { id, yardId: w.yardId, type: 'other' }),
        ),
      );
      expect(creates.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
      expect(creates.filter((r) => r.status === 409).map((r) => r.body.code)).toEqual([
        'duplicate',
        'duplicate',
        'duplicate',
      ]);
      expect(await query(w.t.db, 'SELECT count(*) AS n FROM task_event WHERE task_id = ?', id)).toEqual([
        { n: 1 },
      ]);
    });

    it('a carrier driver cannot be given yard tasks', async () => {
      const carrierDriver = await admin.post('/api/driver', {
        kind: 'carrier',
        carrierId: w.carrierId,
        firstName: 'Cary',
        lastName: 'Hauler',
        licenseNumber: 'CD123456',
        licenseRegion: 'TX',
      });
      expect(carrierDriver.status, carrierDriver.text).toBe(201);
      const res = await admin.post('/api/yard-task', {
        yardId: w.yardId,
        type: 'other',
        driverId: carrierDriver.body.id,
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('not-a-yard-driver');
    });

    it('malformed id 400, unknown id 404', async () => {
      expect((await admin.get('/api/yard-task/not-a-uuid')).status).toBe(400);
      expect((await admin.get(`/api/yard-task/${UNKNOWN_ID}`)).status).toBe(404);
      expect((await admin.get(`/api/yard-task/${UNKNOWN_ID}/history`)).status).toBe(404);
      expect((await admin.patch(`/api/yard-task/${UNKNOWN_ID}`, { priority: 1 })).status).toBe(404);
      expect((await admin.delete(`/api/yard-task/${UNKNOWN_ID}`)).status).toBe(404);
    });
  });

  describe('yard tasks: lists', () => {
    let otherTask: string;
    beforeAll(async () => {
      otherTask = (await createTask(w, { yardId: w.otherYardId })).id;
    });

    it('lists every yard or one, filters by status and driver, pages with a cursor', async () => {
      const all = (await admin.get('/api/yard-task?limit=500')).body.items;
      expect(all.some((t: any) => t.id === otherTask)).toBe(true);
      const dal = (await admin.get(`/api/yard-task?yardId=${w.yardId}&limit=500`)).body.items;
      expect(dal.length).toBe(all.length - 1);
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const pageRes: any = await admin.get(`/api/yard-task?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        ids.push(...pageRes.body.items.map((t: any) => t.id));
        cursor = pageRes.body.nextCursor;
      } while (cursor);
      expect(ids).toEqual(all.map((t: any) => t.id));
      const assigned = (await admin.get('/api/yard-task?status=ASSIGNED')).body.items;
      expect(assigned.length).toBeGreaterThan(0);
      const byDriver = (await admin.get(`/api/yard-task?driverId=${assigned[0].driverId}`)).body.items;
      expect(byDriver.every((t: any) => t.driverId === assigned[0].driverId)).toBe(true);
    });

    it('by status: path and query forms agree; several statuses; bad status 400', async () => {
      const path = (await admin.get(`/api/yard-task/status/QUEUED?yardId=${w.yardId}&limit=500`)).body.items;
      const query = (await admin.get(`/api/yard-task/by-status?status=QUEUED&yardId=${w.yardId}&limit=500`))
        .body.items;
      expect(path.length).toBeGreaterThan(0);
      expect(query).toEqual(path);
      expect(path.every((t: any) => t.status === 'QUEUED' && t.yardId === w.yardId)).toBe(true);
      const both = (await admin.get('/api/yard-task/by-status?status=QUEUED,ASSIGNED&limit=500')).body.items;
      expect(new Set(both.map((t: any) => t.status))).toEqual(new Set(['QUEUED', 'ASSIGNED']));
      expect((await admin.get('/api/yard-task/status/DONE')).status).toBe(400);
      const missing = await admin.get('/api/yard-task/by-status');
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].path).toBe('query.status');
    });

    it('a yard-scoped dispatcher sees only its yard; another yard filter is 403, its task 404', async () => {
      const scoped = await clientWithRole(admin, 'dispatcher', { yardIds: [w.yardId] });
      const items = (await scoped.get('/api/yard-task?limit=500')).body.items;
      expect(items.length).toBeGreaterThan(0);
      expect(items.every((t: any) => t.yardId === w.yardId)).toBe(true);
      expect((await scoped.get(`/api/yard-task?yardId=${w.otherYardId}`)).status).toBe(403);
      expect((await scoped.get(`/api/yard-task/${otherTask}`)).status).toBe(404);
      expect((await scoped.patch(`/api/yard-task/${otherTask}`, { priority: 3 })).status).toBe(404);
      const create = await scoped.post('/api/yard-task', { yardId: w.otherYardId, type: 'other' });
      expect(create.status).toBe(403);
    });
  });

  describe('yard tasks: roles', () => {
    it('staff read; A D G create; only A D change; drivers only their own task', async () => {
      const task = await createTask(w);
      const viewer = await clientWithRole(admin, 'viewer');
      const gate = await clientWithRole(admin, 'gate');
      const billing = await clientWithRole(admin, 'billing');
      const dispatcher = await clientWithRole(admin, 'dispatcher');
      expect((await viewer.get('/api/yard-task')).status).toBe(200);
      expect((await billing.get(`/api/yard-task/${task.id}/history`)).status).toBe(200);
      expect((await viewer.post('/api/yard-task', { yardId: w.yardId, type: 'other' })).status).toBe(403);
      expect((await gate.post('/api/yard-task', { yardId: w.yardId, type: 'other' })).status).toBe(201);
      expect((await dispatcher.post('/api/yard-task', { yardId: w.yardId, type: 'other' })).status).toBe(201);
      expect((await gate.patch(`/api/yard-task/${task.id}`, { priority: 3 })).status).toBe(403);
      expect((await gate.delete(`/api/yard-task/${task.id}`)).status).toBe(403);
      expect((await viewer.put(`/api/yard-task/${task.id}`, { type: 'other', priority: 1 })).status).toBe(
        403,
      );
      expect((await dispatcher.patch(`/api/yard-task/${task.id}`, { priority: 3 })).status).toBe(200);

      const jo = await yardDriver(w);
      const mine = await createTask(w, { driverId: jo.id });
      expect((await jo.client.get(`/api/yard-task/${mine.id}`)).status).toBe(200);
      expect((await jo.client.get(`/api/yard-task/${task.id}`)).status).toBe(404);
      expect((await jo.client.get('/api/yard-task')).status).toBe(403);
      expect((await jo.client.get(`/api/yard-task/${mine.id}/history`)).status).toBe(403);
      expect((await jo.client.post('/api/yard-task', { yardId: w.yardId, type: 'other' })).status).toBe(403);
      expect((await jo.client.patch(`/api/yard-task/${mine.id}`, { priority: 0 })).status).toBe(403);
    });
  });

  describe('OpenAPI', () => {
    it('documents every staff-side Yard Tasking operation under its tag', async () => {
      const doc = (await admin.as(undefined).get('/v3/api-docs')).body;
      const ops: Array<[string, string]> = [
        ['post', '/api/yard-task'],
        ['get', '/api/yard-task'],
        ['get', '/api/yard-task/status/{status}'],
        ['get', '/api/yard-task/by-status'],
        ['put', '/api/yard-task/{id}'],
        ['patch', '/api/yard-task/{id}'],
        ['delete', '/api/yard-task/{id}'],
        ['get', '/api/yard-task/{id}'],
        ['get', '/api/yard-task/{id}/history'],
        ['get', '/api/yard-task/summary'],
        ['get', '/api/yard-task/summary/{yardId}'],
        ['get', '/api/yard-task/drivers'],
      ];
      for (const [method, path] of ops) {
        expect(doc.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(['Yard Tasking']);
      }
      expect(doc.components.schemas.YardTask).toBeDefined();
    });
  });
});
