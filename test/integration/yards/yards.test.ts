import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../../shared/auth/secrets.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const UNKNOWN = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';
let seq = 0;

/**
 * Yards and locations are the cloud's records: run at the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes"). Gates
 * are each site's (the cloud answers 409 edge-owned): they run at a SQLite edge below.
 */
describe.each(TEST_DIALECTS)('yards and locations at the cloud (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const { count, logCount, makeYard, driverClient } = helpers(() => ({ t, admin }));

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    // The yards' site registered: the cloud logs their yards and locations for it.
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      SITE,
      'Site A',
      '$7$unused',
      Date.now(),
    );
  });
  afterAll(() => t.close());

  describe('yards', () => {
    it('creates, reads, lists with paging and filters, updates with If-Match, deletes', async () => {
      const a = await admin.post('/api/yard', {
        code: 'chi-1',
        name: 'Chicago North',
        timeZone: 'america/chicago',
        address: { line1: '1 Dock Rd', city: 'Chicago', country: 'us' },
        capacity: 120,
      });
      expect(a.status).toBe(201);
      expect(a.body).toMatchObject({
        code: 'CHI-1',
        timeZone: 'America/Chicago',
        address: { line1: '1 Dock Rd', city: 'Chicago', country: 'US' },
        capacity: 120,
        status: 'active',
        siteId: 'site-1',
        version: 1,
      });
      expect(a.headers.get('etag')).toBe('"v1"');
      expect(a.headers.get('location')).toBe(`/api/yard/${a.body.id}`);
      const stored = (
        await query(t.db, 'SELECT code, time_zone, site_id FROM yard WHERE id = ?', a.body.id)
      )[0];
      expect(stored).toEqual({ code: 'CHI-1', time_zone: 'America/Chicago', site_id: 'site-1' });

      await admin.post('/api/yard', { code: 'CHI-2', name: 'Chicago South', timeZone: 'UTC' });
      await admin.post('/api/yard', { code: 'CHI-3', name: 'Joliet', timeZone: 'UTC', status: 'inactive' });
      const first = await admin.get('/api/yard?limit=2&q=chi');
      expect(first.body.items.map((y: any) => y.code)).toEqual(['CHI-1', 'CHI-2']);
      const second = await admin.get(`/api/yard?limit=2&q=chi&cursor=${first.body.nextCursor}`);
      expect(second.body.items.map((y: any) => y.code)).toEqual(['CHI-3']);
      expect(second.body.nextCursor).toBeNull();
      expect((await admin.get('/api/yard?status=inactive&q=joliet')).body.items).toHaveLength(1);
      expect((await admin.get('/api/yard?q=%25')).body.items).toHaveLength(0); // % is literal

      const got = await admin.get(`/api/yard/${a.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body.name).toBe('Chicago North');

      const stale = await admin.patch(`/api/yard/${a.body.id}`, { capacity: 10 }, { 'if-match': '"v0"' });
      expect(stale.status).toBe(412);
      const ok = await admin.patch(
        `/api/yard/${a.body.id}`,
        { name: 'Chicago N', timeZone: 'Europe/Berlin', address: null },
        { 'if-match': '"v1"' },
      );
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({
        name: 'Chicago N',
        timeZone: 'Europe/Berlin',
        address: null,
        version: 2,
      });
      expect(ok.headers.get('etag')).toBe('"v2"');

      expect((await admin.delete(`/api/yard/${a.body.id}`)).status).toBe(204);
      expect((await admin.get(`/api/yard/${a.body.id}`)).status).toBe(404);
      expect(await query(t.db, 'SELECT id FROM yard WHERE id = ?', a.body.id)).toHaveLength(0);
    });

    it('bad input is 400 per field and writes nothing; malformed id 400; unknown id 404', async () => {
      const before = [await count('yard'), await logCount()];
      const bad = await admin.post('/api/yard', {
        code: 'x',
        name: '',
        timeZone: 'Mars/Olympus_Mons',
        capacity: -1,
        address: { country: 'USA', street: 'x' },
        extra: true,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('validation-failed');
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining([
          'body.code',
          'body.name',
          'body.timeZone',
          'body.capacity',
          'body.address.country',
          'body.address',
          'body',
        ]),
      );
      const offset = await admin.post('/api/yard', { code: 'OFF', name: 'Offset', timeZone: '+01:00' });
      expect(offset.status).toBe(400);
      expect(offset.body.errors[0].path).toBe('body.timeZone');
      expect((await admin.post('/api/yard', { code: 'has space', name: 'n', timeZone: 'UTC' })).status).toBe(
        400,
      );
      expect([await count('yard'), await logCount()]).toEqual(before);

      expect((await admin.get('/api/yard/not-a-uuid')).status).toBe(400);
      expect((await admin.get(`/api/yard/${UNKNOWN}`)).status).toBe(404);
      expect((await admin.patch(`/api/yard/${UNKNOWN}`, { name: 'x' })).status).toBe(404);
      const extra = await admin.patch(`/api/yard/${UNKNOWN}`, { name: 'x', code2: 'y' });
      expect(extra.status).toBe(400);
      expect(extra.body.errors[0].path).toBe('body');
      expect((await admin.delete(`/api/yard/${UNKNOWN}`)).status).toBe(404);
      expect((await admin.get('/api/yard?cursor=garbage')).body.code).toBe('invalid-cursor');
    });

    it('duplicate code (any case) is 409 duplicate and writes nothing', async () => {
      const y = await makeYard({ code: 'DUP-A' });
      const other = await makeYard();
      const before = [await count('yard'), await logCount()];
      const dup = await admin.post('/api/yard', { code: 'dup-a', name: 'Again', timeZone: 'UTC' });
      expect(dup.status).toBe(409);
      expect(dup.body).toMatchObject({ code: 'duplicate', existingId: y.id });
      const rename = await admin.patch(`/api/yard/${other.id}`, { code: 'Dup-A' });
      expect(rename.status).toBe(409);
      expect([await count('yard'), await logCount()]).toEqual(before);
      // Keeping its own code is not a duplicate.
      expect((await admin.patch(`/api/yard/${y.id}`, { code: 'dup-a', name: 'Renamed' })).status).toBe(200);
    });

    it('the same code sent at once by several clients: one 201, the others 409 duplicate', async () => {
      // Each request checks the code is free, then inserts: concurrent requests can both pass the
      // check (PostgreSQL runs them on several connections), and the unique index decides.
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          admin.post('/api/yard', { code: 'RACE-1', name: `Race ${i}`, timeZone: 'UTC' }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      for (const a of answers.filter((x) => x.status === 409)) expect(a.body.code).toBe('duplicate');
      expect(await query(t.db, "SELECT id FROM yard WHERE code = 'RACE-1'")).toHaveLength(1);
    });

    it('a yard with locations, gates or history is in use; an empty one deletes', async () => {
      const y = await makeYard();
      await admin.post(`/api/yard/${y.id}/location`, { kind: 'spot', name: 'S1' });
      const before = [await count('yard'), await logCount()];
      const del = await admin.delete(`/api/yard/${y.id}`);
      expect(del.status).toBe(409);
      expect(del.body.code).toBe('in-use');
      expect(del.body.detail).toContain('locations');
      expect(del.body.detail).toContain('inactive');
      expect([await count('yard'), await logCount()]).toEqual(before);

      const scoped = await makeYard();
      await clientWithRole(admin, 'viewer', { yardIds: [scoped.id] });
      const scopedDel = await admin.delete(`/api/yard/${scoped.id}`);
      expect(scopedDel.status).toBe(409);
      expect(scopedDel.body.detail).toContain('user scopes');

      const empty = await makeYard();
      expect((await admin.delete(`/api/yard/${empty.id}`)).status).toBe(204);
    });

    it('roles: staff read, only admins write yards; drivers list yards but not one yard', async () => {
      const y = await makeYard();
      const viewer = await clientWithRole(admin, 'viewer');
      expect((await viewer.get('/api/yard')).status).toBe(200);
      expect((await viewer.get(`/api/yard/${y.id}`)).status).toBe(200);
      const dispatcher = await clientWithRole(admin, 'dispatcher');
      const before = await logCount();
      expect((await dispatcher.post('/api/yard', { code: 'NOPE', name: 'n', timeZone: 'UTC' })).status).toBe(
        403,
      );
      expect((await dispatcher.patch(`/api/yard/${y.id}`, { name: 'n' })).status).toBe(403);
      expect((await viewer.delete(`/api/yard/${y.id}`)).status).toBe(403);
      expect(await logCount()).toBe(before);

      const driver = await driverClient();
      const list = await driver.get('/api/yard?limit=500');
      expect(list.status).toBe(200);
      expect(list.body.items.map((i: any) => i.id)).toContain(y.id);
      expect((await driver.get(`/api/yard/${y.id}`)).status).toBe(403);
      expect((await admin.as(undefined).get('/api/yard')).status).toBe(401);
    });

    it('yard scope: scoped principals see and change only their yards', async () => {
      const mine = await makeYard();
      const theirs = await makeYard();
      const viewer = await clientWithRole(admin, 'viewer', { yardIds: [mine.id] });
      const list = await viewer.get('/api/yard?limit=500');
      expect(list.body.items.map((i: any) => i.id)).toEqual([mine.id]);
      expect((await viewer.get(`/api/yard/${mine.id}`)).status).toBe(200);
      expect((await viewer.get(`/api/yard/${theirs.id}`)).status).toBe(403);
      expect((await viewer.get(`/api/yard/${theirs.id}/gate`)).status).toBe(403);
      expect((await viewer.get(`/api/yard/${theirs.id}/location`)).status).toBe(403);

      const scopedAdmin = await clientWithRole(admin, 'admin', { yardIds: [mine.id] });
      expect((await scopedAdmin.patch(`/api/yard/${mine.id}`, { capacity: 5 })).status).toBe(200);
      expect((await scopedAdmin.patch(`/api/yard/${theirs.id}`, { capacity: 5 })).status).toBe(403);
      const create = await scopedAdmin.post('/api/yard', { code: 'SCOPED', name: 'n', timeZone: 'UTC' });
      expect(create.status).toBe(403);
    });

    it('every yard write leaves its change_log row', async () => {
      const y = await makeYard();
      await admin.patch(`/api/yard/${y.id}`, { name: 'Logged Yard' });
      await admin.patch(`/api/yard/${y.id}`, { name: 'Logged Yard' }); // no change, no row
      await admin.delete(`/api/yard/${y.id}`);
      const log = await query(
        t.db,
        "SELECT op, data FROM change_log WHERE entity = 'yard' AND entity_id = ? ORDER BY seq",
        y.id,
      );
      expect(log.map((l) => l.op)).toEqual(['upsert', 'upsert', 'delete']);
      expect(JSON.parse(log[1].data).name).toBe('Logged Yard');
    });

    it('every yard, gate and location route is in the OpenAPI document under Yard Controller', async () => {
      const doc = (await admin.as(undefined).get('/v3/api-docs')).body;
      for (const [path, methods] of [
        ['/api/yard', ['get', 'post']],
        ['/api/yard/{id}', ['get', 'patch', 'delete']],
        ['/api/yard/{id}/gate', ['get', 'post']],
        ['/api/yard/{id}/gate/{gateId}', ['patch', 'delete']],
        ['/api/yard/{id}/location', ['get', 'post']],
        ['/api/yard/{id}/location/{locationId}', ['patch', 'delete']],
      ] as const) {
        for (const method of methods) expect(doc.paths[path][method].tags).toEqual(['Yard Controller']);
      }
      expect(doc.components.schemas).toHaveProperty('RelayBinding');
    });

    it('service methods other modules call', async () => {
      const y = await makeYard({ timeZone: 'Europe/Paris' });
      const yards = t.services.yards;
      expect(await yards.getTimeZone(y.id)).toBe('Europe/Paris');
      await expect(yards.getRow(UNKNOWN)).rejects.toMatchObject({ status: 404 });
      const viewer = { kind: 'user', id: 'u', name: 'u', role: 'viewer', yardIds: [y.id, UNKNOWN] } as const;
      expect(await yards.listYardIdsInScope({ ...viewer, yardIds: [...viewer.yardIds] })).toEqual([y.id]);
      expect(await yards.listYardIdsInScope({ ...viewer, yardIds: null })).toContain(y.id);
    });
  });

  describe('locations', () => {
    it('creates with defaults, lists by name with filters, updates, deletes', async () => {
      const y = await makeYard();
      const door = await admin.post(`/api/yard/${y.id}/location`, { kind: 'door', name: 'Door 1' });
      expect(door.status).toBe(201);
      expect(door.body).toMatchObject({
        yardId: y.id,
        kind: 'door',
        capacity: 1,
        status: 'active',
        version: 1,
      });
      await admin.post(`/api/yard/${y.id}/location`, { kind: 'spot', name: 'a-01' });
      await admin.post(`/api/yard/${y.id}/location`, { kind: 'zone', name: 'B Zone', capacity: 40 });
      const first = await admin.get(`/api/yard/${y.id}/location?limit=2`);
      expect(first.body.items.map((i: any) => i.name)).toEqual(['a-01', 'B Zone']);
      const second = await admin.get(`/api/yard/${y.id}/location?limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.items.map((i: any) => i.name)).toEqual(['Door 1']);
      expect((await admin.get(`/api/yard/${y.id}/location?kind=zone`)).body.items[0].capacity).toBe(40);
      expect((await admin.get(`/api/yard/${y.id}/location?q=door`)).body.items).toHaveLength(1);

      const patched = await admin.patch(`/api/yard/${y.id}/location/${door.body.id}`, { status: 'inactive' });
      expect(patched.body).toMatchObject({ status: 'inactive', version: 2 });
      expect((await admin.get(`/api/yard/${y.id}/location?status=inactive`)).body.items).toHaveLength(1);
      expect((await t.services.yards.getLocationRow(y.id, door.body.id)).name).toBe('Door 1');

      expect((await admin.delete(`/api/yard/${y.id}/location/${door.body.id}`)).status).toBe(204);
      const log = await query(
        t.db,
        "SELECT op FROM change_log WHERE entity = 'location' AND entity_id = ? ORDER BY seq",
        door.body.id,
      );
      expect(log.map((l) => l.op)).toEqual(['upsert', 'upsert', 'delete']);
    });

    it('pages through names beyond ASCII one at a time, each location once', async () => {
      // Ordered by lower(name), which changes ASCII letters only on both databases: the cursor
      // must hold the same key, or a page after "Ärea" skips "Übergabe".
      const y = await makeYard();
      for (const name of ['Übergabe', 'Ärea', 'b1', 'A1'])
        expect((await admin.post(`/api/yard/${y.id}/location`, { kind: 'spot', name })).status).toBe(201);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { items: { name: string }[]; nextCursor: string | null } } = await admin.get(
          `/api/yard/${y.id}/location?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        );
        seen.push(...page.body.items.map((l) => l.name));
        cursor = page.body.nextCursor;
      } while (cursor && seen.length < 10);
      expect(seen).toEqual(['A1', 'b1', 'Ärea', 'Übergabe']);
      // The same name again is found by the service's check (lower() on both sides, as the unique index).
      const again = await admin.post(`/api/yard/${y.id}/location`, { kind: 'spot', name: 'Ärea' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ code: 'duplicate', existingId: expect.any(String) });
    });

    it('bad input 400, duplicate name (any case) 409, other yard 404; nothing written', async () => {
      const y = await makeYard();
      const other = await makeYard();
      const spot = (await admin.post(`/api/yard/${y.id}/location`, { kind: 'spot', name: 'S-1' })).body;
      const before = [await count('location'), await logCount()];
      const bad = await admin.post(`/api/yard/${y.id}/location`, { kind: 'bay', name: ' ', capacity: 0 });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(['body.kind', 'body.name', 'body.capacity']);
      const dup = await admin.post(`/api/yard/${y.id}/location`, { kind: 'door', name: 's-1' });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('duplicate');
      await admin.post(`/api/yard/${y.id}/location`, { kind: 'spot', name: 'S-2' });
      const rename = await admin.patch(`/api/yard/${y.id}/location/${spot.id}`, { name: 'S-2' });
      expect(rename.status).toBe(409);
      expect((await admin.patch(`/api/yard/${other.id}/location/${spot.id}`, { capacity: 2 })).status).toBe(
        404,
      );
      expect((await admin.delete(`/api/yard/${other.id}/location/${spot.id}`)).status).toBe(404);
      await expect(t.services.yards.getLocationRow(other.id, spot.id)).rejects.toMatchObject({ status: 404 });
      expect((await admin.get(`/api/yard/${UNKNOWN}/location`)).status).toBe(404);
      expect([(await count('location')) - 1, (await logCount()) - 1]).toEqual(before); // only S-2 was added
    });

    it('free=true counts the open tasks to a location as taking its room', async () => {
      // Trailers standing on locations count too: that is asserted at the edge below, where movements
      // are written (the cloud answers 409 edge-owned to a check-in).
      const y = await makeYard();
      const add = async (body: Record<string, unknown>) =>
        (await admin.post(`/api/yard/${y.id}/location`, body)).body as { id: string; name: string };
      const reserved = await add({ kind: 'spot', name: 'T-1' });
      await add({ kind: 'spot', name: 'T-2' });
      await add({ kind: 'spot', name: 'T-3', status: 'inactive' });
      const zone = await add({ kind: 'zone', name: 'T-Zone', capacity: 2 });
      for (const [to, status] of [
        [reserved.id, 'QUEUED'],
        [zone.id, 'ASSIGNED'],
        [zone.id, 'COMPLETED'],
      ] as const) {
        const task = await admin.post('/api/yard-task', {
          tasks: [{ yardId: y.id, type: 'other', toLocationId: to }],
        });
        expect(task.status, task.text).toBe(201);
        if (status !== 'QUEUED') {
          await query(t.db, 'UPDATE yard_task SET status = ? WHERE id = ?', status, task.body.items[0].id);
        }
      }
      const names = async (filter: string) =>
        ((await admin.get(`/api/yard/${y.id}/location?${filter}`)).body.items as { name: string }[]).map(
          (l) => l.name,
        );
      expect(await names('free=true')).toEqual(['T-2', 'T-Zone']);
      expect(await names('free=false')).toEqual(['T-1']);
    });

    it('a location trailers stand on is in use', async () => {
      const y = await makeYard();
      const spot = (await admin.post(`/api/yard/${y.id}/location`, { kind: 'spot', name: 'Busy' })).body;
      const now = t.core.clock.now();
      await t.core.changes.insert(t.core.kysely, 'trailer', {
        id: newId(),
        number: `TR${seq}`,
        yardId: y.id,
        locationId: spot.id,
        createdAt: now,
        updatedAt: now,
      });
      const del = await admin.delete(`/api/yard/${y.id}/location/${spot.id}`);
      expect(del.status).toBe(409);
      expect(del.body).toMatchObject({ code: 'in-use', references: ['trailers'] });
      expect(del.body.detail).toContain('inactive');
      expect(await query(t.db, 'SELECT id FROM location WHERE id = ?', spot.id)).toHaveLength(1);
    });

    it('roles: staff and drivers list; admins and dispatchers write', async () => {
      const y = await makeYard();
      const dispatcher = await clientWithRole(admin, 'dispatcher');
      const created = await dispatcher.post(`/api/yard/${y.id}/location`, { kind: 'staging', name: 'Stage' });
      expect(created.status).toBe(201);
      const path = `/api/yard/${y.id}/location/${created.body.id}`;
      expect((await dispatcher.patch(path, { capacity: 3 })).status).toBe(200);
      const gateUser = await clientWithRole(admin, 'gate');
      const before = await logCount();
      expect((await gateUser.post(`/api/yard/${y.id}/location`, { kind: 'spot', name: 'X' })).status).toBe(
        403,
      );
      expect((await gateUser.patch(path, { capacity: 4 })).status).toBe(403);
      expect((await gateUser.delete(path)).status).toBe(403);
      expect(await logCount()).toBe(before);
      const driver = await driverClient();
      const list = await driver.get(`/api/yard/${y.id}/location`);
      expect(list.status).toBe(200);
      expect(list.body.items).toHaveLength(1);
      expect((await driver.post(`/api/yard/${y.id}/location`, { kind: 'spot', name: 'Y' })).status).toBe(403);
      expect((await dispatcher.delete(path)).status).toBe(204);
    });
  });
});

/** Gates and movements are written at their site's edge (SQLite; the cloud answers 409 edge-owned). */
describe('at the edge (sqlite): gates, and locations with trailers', () => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const { count, logCount, makeYard, driverClient } = helpers(() => ({ t, admin }));

  beforeAll(async () => {
    t = await startTestApp();
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(() => t.close());

  async function seedMovement(yardId: string, fields: { gateId?: string; locationId?: string }) {
    const now = t.core.clock.now();
    await t.core.changes.insert(t.core.kysely, 'movement', {
      id: newId(),
      yardId,
      direction: 'in',
      at: now,
      createdAt: now,
      attachmentIds: '[]',
      warnings: '[]',
      gateId: fields.gateId ?? null,
      locationId: fields.locationId ?? null,
    });
  }

  describe('gates', () => {
    it('creates with relay defaults, lists by name, updates, deletes', async () => {
      const y = await makeYard();
      const camera = await admin.post('/api/camera', {
        yardId: y.id,
        name: 'North cam',
        onvif: { xaddr: 'http://192.0.2.10/onvif/device_service', username: 'u', password: 'p' },
        verify: false,
      });
      expect(camera.status).toBe(201);
      const cam: string = camera.body.id;
      const g = await admin.post(`/api/yard/${y.id}/gate`, {
        name: 'North In',
        direction: 'in',
        relay: { driver: 'serial-lcus', channel: 1, device: '/dev/ttyUSB0' },
        cameraIds: [cam],
      });
      expect(g.status).toBe(201);
      expect(g.body).toMatchObject({
        yardId: y.id,
        name: 'North In',
        direction: 'in',
        relay: { driver: 'serial-lcus', channel: 1, pulseMs: 500, activeLow: false, device: '/dev/ttyUSB0' },
        cameraIds: [cam],
        version: 1,
      });
      expect(g.headers.get('location')).toBe(`/api/yard/${y.id}/gate/${g.body.id}`);
      const stored = (await query(t.db, 'SELECT relay, camera_ids FROM gate WHERE id = ?', g.body.id))[0];
      expect(JSON.parse(stored.relay)).toMatchObject({ pulseMs: 500, activeLow: false });
      expect(JSON.parse(stored.camera_ids)).toEqual([cam]);
      expect((await query(t.db, 'SELECT gate_id FROM camera WHERE id = ?', cam))[0]?.gate_id).toBe(g.body.id);
      const unknownCamera = await admin.post(`/api/yard/${y.id}/gate`, {
        name: 'X',
        direction: 'in',
        cameraIds: [newId()],
      });
      expect(unknownCamera.status).toBe(404);
      expect(await query(t.db, "SELECT id FROM gate WHERE name = 'X'")).toHaveLength(0);

      const manual = await admin.post(`/api/yard/${y.id}/gate`, { name: 'east out', direction: 'out' });
      expect(manual.body).toMatchObject({ relay: null, cameraIds: [] });
      await admin.post(`/api/yard/${y.id}/gate`, { name: 'Aux', direction: 'both' });
      const first = await admin.get(`/api/yard/${y.id}/gate?limit=2`);
      expect(first.body.items.map((i: any) => i.name)).toEqual(['Aux', 'east out']);
      const second = await admin.get(`/api/yard/${y.id}/gate?limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.items.map((i: any) => i.name)).toEqual(['North In']);
      expect((await admin.get(`/api/yard/${y.id}/gate?direction=out`)).body.items).toHaveLength(1);

      const patched = await admin.patch(
        `/api/yard/${y.id}/gate/${g.body.id}`,
        { relay: { driver: 'gpio', channel: 17, pulseMs: 1200, activeLow: true }, direction: 'both' },
        { 'if-match': '"v1"' },
      );
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        direction: 'both',
        relay: { driver: 'gpio', channel: 17, pulseMs: 1200, activeLow: true },
        version: 2,
      });
      expect(patched.body.relay.device).toBeUndefined();
      expect(
        (await admin.patch(`/api/yard/${y.id}/gate/${g.body.id}`, { name: 'x' }, { 'if-match': '"v1"' }))
          .status,
      ).toBe(412);

      const record = await t.services.yards.getGateRow(y.id, g.body.id);
      expect(record.relay).toEqual({ driver: 'gpio', channel: 17, pulseMs: 1200, activeLow: true });
      expect(record.cameraIds).toEqual([cam]);
      expect((await t.services.yards.getGateRow(undefined, g.body.id)).id).toBe(g.body.id);

      expect((await admin.delete(`/api/yard/${y.id}/gate/${manual.body.id}`)).status).toBe(204);
      expect(await query(t.db, 'SELECT id FROM gate WHERE id = ?', manual.body.id)).toHaveLength(0);
      const log = await query(
        t.db,
        "SELECT op FROM change_log WHERE entity = 'gate' AND entity_id IN (?, ?) ORDER BY seq",
        g.body.id,
        manual.body.id,
      );
      expect(log.map((l) => l.op)).toEqual(['upsert', 'upsert', 'upsert', 'delete']);
    });

    it('bad relay binding and duplicate names are refused and write nothing', async () => {
      const y = await makeYard();
      await admin.post(`/api/yard/${y.id}/gate`, { name: 'Main', direction: 'in' });
      const before = [await count('gate'), await logCount()];
      const bad = await admin.post(`/api/yard/${y.id}/gate`, {
        name: '',
        direction: 'sideways',
        relay: { driver: 'usb-magic', channel: -1, pulseMs: 50, activeLow: 'no' },
        cameraIds: ['not-a-uuid'],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining([
          'body.name',
          'body.direction',
          'body.relay.driver',
          'body.relay.channel',
          'body.relay.pulseMs',
          'body.relay.activeLow',
          'body.cameraIds[0]',
        ]),
      );
      const tooLong = await admin.post(`/api/yard/${y.id}/gate`, {
        name: 'G2',
        direction: 'in',
        relay: { driver: 'gpio', channel: 1, pulseMs: 5001 },
      });
      expect(tooLong.body.errors.map((e: any) => e.path)).toEqual(['body.relay.pulseMs']);
      const dup = await admin.post(`/api/yard/${y.id}/gate`, { name: 'MAIN', direction: 'out' });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('duplicate');
      expect([await count('gate'), await logCount()]).toEqual(before);

      // The same name in another yard is fine.
      const other = await makeYard();
      expect((await admin.post(`/api/yard/${other.id}/gate`, { name: 'Main', direction: 'in' })).status).toBe(
        201,
      );
    });

    it('a gate of another yard is 404; unknown yard 404; referenced gate is in use', async () => {
      const a = await makeYard();
      const b = await makeYard();
      const gate = (await admin.post(`/api/yard/${a.id}/gate`, { name: 'G', direction: 'in' })).body;
      expect((await admin.patch(`/api/yard/${b.id}/gate/${gate.id}`, { name: 'x' })).status).toBe(404);
      expect((await admin.delete(`/api/yard/${b.id}/gate/${gate.id}`)).status).toBe(404);
      await expect(t.services.yards.getGateRow(b.id, gate.id)).rejects.toMatchObject({ status: 404 });
      expect((await admin.get(`/api/yard/${UNKNOWN}/gate`)).status).toBe(404);
      expect((await admin.post(`/api/yard/${UNKNOWN}/gate`, { name: 'G', direction: 'in' })).status).toBe(
        404,
      );
      expect((await admin.patch(`/api/yard/${a.id}/gate/not-a-uuid`, { name: 'x' })).status).toBe(400);

      await seedMovement(a.id, { gateId: gate.id });
      const before = [await count('gate'), await logCount()];
      const del = await admin.delete(`/api/yard/${a.id}/gate/${gate.id}`);
      expect(del.status).toBe(409);
      expect(del.body).toMatchObject({ code: 'in-use', references: ['movements'] });
      expect([await count('gate'), await logCount()]).toEqual(before);
    });

    it('a yard-scoped admin cannot add a gate to another yard', async () => {
      const mine = await makeYard();
      const theirs = await makeYard();
      const scopedAdmin = await clientWithRole(admin, 'admin', { yardIds: [mine.id] });
      expect(
        (await scopedAdmin.post(`/api/yard/${theirs.id}/gate`, { name: 'G', direction: 'in' })).status,
      ).toBe(403);
      expect(
        (await scopedAdmin.post(`/api/yard/${mine.id}/gate`, { name: 'G', direction: 'in' })).status,
      ).toBe(201);
    });

    it('roles: staff list gates, only admins write them', async () => {
      const y = await makeYard();
      const gateUser = await clientWithRole(admin, 'gate');
      const dispatcher = await clientWithRole(admin, 'dispatcher');
      const driver = await driverClient();
      const before = await logCount();
      expect((await gateUser.get(`/api/yard/${y.id}/gate`)).status).toBe(200);
      expect((await gateUser.post(`/api/yard/${y.id}/gate`, { name: 'G', direction: 'in' })).status).toBe(
        403,
      );
      expect((await dispatcher.post(`/api/yard/${y.id}/gate`, { name: 'G', direction: 'in' })).status).toBe(
        403,
      );
      expect((await driver.get(`/api/yard/${y.id}/gate`)).status).toBe(403);
      expect(await logCount()).toBe(before);
    });
  });

  describe('locations with trailers (movements are written at the edge)', () => {
    it('free=true lists the active locations with room: trailers on them and open tasks to them count', async () => {
      const y = await makeYard();
      const add = async (body: Record<string, unknown>) =>
        (await admin.post(`/api/yard/${y.id}/location`, body)).body as { id: string; name: string };
      const taken = await add({ kind: 'spot', name: 'F-1' });
      const reserved = await add({ kind: 'spot', name: 'F-2' });
      await add({ kind: 'spot', name: 'F-3' });
      await add({ kind: 'spot', name: 'F-4', status: 'inactive' });
      const zone = await add({ kind: 'zone', name: 'F-Zone', capacity: 2 });
      const checkIn = async (number: string, locationId: string) => {
        const res = await admin.post('/api/movement', {
          yardId: y.id,
          direction: 'in',
          trailer: { number },
          locationId,
        });
        expect(res.status).toBe(201);
        return res.body.trailerId as string;
      };
      await checkIn(`FREE${seq}A`, taken.id);
      const moving = await checkIn(`FREE${seq}B`, zone.id);
      const task = await admin.post('/api/yard-task', {
        tasks: [{ yardId: y.id, type: 'move', trailerId: moving, toLocationId: reserved.id }],
      });
      expect(task.status).toBe(201);
      const names = async (filter: string) =>
        ((await admin.get(`/api/yard/${y.id}/location?${filter}`)).body.items as { name: string }[]).map(
          (l) => l.name,
        );
      // The zone holds one trailer of two; F-2 is promised to the task's trailer; F-4 is inactive.
      expect(await names('free=true')).toEqual(['F-3', 'F-Zone']);
      expect(await names('free=true&kind=spot')).toEqual(['F-3']);
      expect(await names('free=false')).toEqual(['F-1', 'F-2']);
      const bad = await admin.get(`/api/yard/${y.id}/location?free=maybe`);
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('query.free');
    });
  });
});

/** The site a yard made at the cloud is given when none is named (YARD_SITE_ID's default). */
const SITE = 'site-1';

/** The suites' helpers on the app `ctx` gives once it has started. */
function helpers(ctx: () => { t: TestApp<AppDatabase>; admin: Client }) {
  const count = async (table: string) =>
    (await query(ctx().t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;
  return {
    count,
    logCount: () => count('change_log'),

    async makeYard(extra: Record<string, unknown> = {}) {
      seq += 1;
      const res = await ctx().admin.post('/api/yard', {
        code: `Y${seq}`,
        name: `Yard ${seq}`,
        timeZone: 'America/Chicago',
        ...extra,
      });
      expect(res.status).toBe(201);
      return res.body as { id: string; code: string; version: number };
    },

    /** A yard driver logged in through the real driver-login route. */
    async driverClient(): Promise<Client> {
      const { t, admin } = ctx();
      const now = t.core.clock.now();
      const code = `D${++seq}`;
      await t.core.changes.insert(t.core.kysely, 'driver', {
        id: newId(),
        kind: 'yard',
        firstName: 'Yan',
        lastName: 'Driver',
        driverCode: code,
        pinHash: await hashSecret('4321'),
        createdAt: now,
        updatedAt: now,
      });
      const login = await admin
        .as(undefined)
        .post('/api/auth/driver-login', { driverCode: code, pin: '4321' });
      expect(login.status).toBe(200);
      return admin.as(login.body.token);
    },
  };
}
