import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** A yard's load types (docs/domain.md "Appointments", docs/api.md "Appointments"). */
describe.each(TEST_DIALECTS)('load types (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardId: string;
  let door: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    yardId = (await seed(admin).yard()).id;
    door = (await seed(admin).location(yardId, { kind: 'door', name: 'Door 1' })).id;
  });
  afterAll(() => t.close());

  it('creates with defaults, lists per yard by name, updates with If-Match, deletes', async () => {
    const a = await admin.post('/api/appointment/load-type', {
      yardId,
      name: 'Live unload',
      durationMinutes: 60,
    });
    expect(a.status, a.text).toBe(201);
    expect(a.headers.get('etag')).toBe('"v1"');
    expect(a.body).toMatchObject({
      yardId,
      name: 'Live unload',
      direction: 'both',
      doorIds: [],
      carrierVisible: true,
      version: 1,
    });
    const b = await admin.post('/api/appointment/load-type', {
      yardId,
      name: 'drop trailer',
      direction: 'inbound',
      durationMinutes: 30,
      doorIds: [door, door],
      carrierVisible: false,
    });
    expect(b.body).toMatchObject({ doorIds: [door], carrierVisible: false, direction: 'inbound' });
    const list = await admin.get(`/api/appointment/load-type?yardId=${yardId}`);
    expect(list.body.items.map((x: any) => x.name)).toEqual(['drop trailer', 'Live unload']);
    const stale = await admin.patch(
      `/api/appointment/load-type/${a.body.id}`,
      { durationMinutes: 90 },
      { 'if-match': '"v0"' },
    );
    expect(stale.status).toBe(412);
    const ok = await admin.patch(
      `/api/appointment/load-type/${a.body.id}`,
      { durationMinutes: 90 },
      { 'if-match': '"v1"' },
    );
    expect(ok.body).toMatchObject({ durationMinutes: 90, version: 2 });
    expect((await admin.delete(`/api/appointment/load-type/${b.body.id}`)).status).toBe(204);
    expect(await query(t.db, 'SELECT id FROM load_type WHERE id = ?', b.body.id)).toEqual([]);
  });

  it('refuses a duplicate name (any case), a door of another yard or a spot, and a load type in use', async () => {
    await admin.post('/api/appointment/load-type', { yardId, name: 'Reefer', durationMinutes: 45 });
    const dup = await admin.post('/api/appointment/load-type', {
      yardId,
      name: 'REEFER',
      durationMinutes: 45,
    });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate');
    const spot = (await seed(admin).location(yardId, { kind: 'spot' })).id;
    const otherYard = (await seed(admin).yard()).id;
    const foreignDoor = (await seed(admin).location(otherYard, { kind: 'door' })).id;
    const bad = await admin.post('/api/appointment/load-type', {
      yardId,
      name: 'Odd',
      durationMinutes: 45,
      doorIds: [door, spot, foreignDoor],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      expect.objectContaining({ path: 'doorIds.1', code: 'not-a-door' }),
      expect.objectContaining({ path: 'doorIds.2', code: 'not-a-door' }),
    ]);
    expect(await query(t.db, "SELECT id FROM load_type WHERE name = 'Odd'")).toEqual([]);

    // In use: an appointment names it (booked with an override, any time).
    await admin.put(`/api/appointment/config/${yardId}`, { enabled: true, openHours: {} });
    const used = await admin.post('/api/appointment/load-type', {
      yardId,
      name: 'Used',
      durationMinutes: 30,
    });
    const carrier = await seed(admin).carrier();
    const booked = await admin.post('/api/appointment', {
      yardId,
      loadTypeId: used.body.id,
      carrierId: carrier.id,
      startAt: '2030-01-01T10:00:00Z',
      override: { reason: 'far ahead for the test' },
    });
    expect(booked.status, booked.text).toBe(201);
    const inUse = await admin.delete(`/api/appointment/load-type/${used.body.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.code).toBe('in-use');
  });

  it('lets staff read and admins and dispatchers write; other yards are 404 and outside the list', async () => {
    const viewer = await clientWithRole(admin, 'viewer');
    expect((await viewer.get('/api/appointment/load-type')).status).toBe(200);
    expect(
      (await viewer.post('/api/appointment/load-type', { yardId, name: 'V', durationMinutes: 30 })).status,
    ).toBe(403);
    const dispatcher = await clientWithRole(admin, 'dispatcher');
    expect(
      (
        await dispatcher.post('/api/appointment/load-type', {
          yardId,
          name: 'By dispatcher',
          durationMinutes: 30,
        })
      ).status,
    ).toBe(201);
    const other = (await seed(admin).yard()).id;
    const scoped = await clientWithRole(admin, 'dispatcher', { yardIds: [other] });
    const mine = await admin.post('/api/appointment/load-type', {
      yardId,
      name: 'Scoped away',
      durationMinutes: 30,
    });
    expect((await scoped.get('/api/appointment/load-type')).body.items).toEqual([]);
    expect((await scoped.patch(`/api/appointment/load-type/${mine.body.id}`, { name: 'x' })).status).toBe(
      404,
    );
    expect(
      (await scoped.post('/api/appointment/load-type', { yardId, name: 'x', durationMinutes: 30 })).status,
    ).toBe(404);
  });
});
