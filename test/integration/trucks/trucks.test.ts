import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const UNKNOWN_ID = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';

/** The cloud's trucks and inspections on each database (docs/architecture.md "Two databases, and several cloud nodes"): one suite, SQLite and PostgreSQL. */
describe.each(TEST_DIALECTS)('trucks (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  const clock = new ManualClock(Date.parse('2026-04-01T10:00:00Z'));

  /** Yards are master data of another module; written here the way that module writes them. */
  const addYard = (code: string) => seedRows(t).yard(code, { timeZone: 'Europe/Berlin' });

  /** Puts a truck in a yard the way a gate check-in does. */
  async function parkIn(truckId: string, yardId: string | null) {
    await t.core.changes.update(t.core.kysely, 'truck', truckId, { yardId });
  }

  beforeAll(async () => {
    t = await startTestApp({ clock, dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    // The site of the seeded yards, registered: the cloud logs their records (and organisation-wide ones) for it.
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-1',
      'Site 1',
      '$7$unused',
      Date.now(),
    );
    yardA = await addYard('TA');
    yardB = await addYard('TB');
  });
  afterAll(() => t.close());

  const count = async (table: string) =>
    (await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

  async function truck(body: Record<string, unknown>) {
    const res = await admin.post('/api/truck', body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  }

  describe('trucks', () => {
    it('creates with normalised plate, reads, updates with If-Match, logs changes', async () => {
      const carrier = await admin.post('/api/carrier', { name: 'Truck Owners' });
      const res = await admin.post('/api/truck', {
        carrierId: carrier.body.id,
        unitNumber: 'U-17',
        plate: 'b-ab 123',
        plateRegion: 'de',
        vin: '1m8gdm9axkp042788',
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('etag')).toBe('"v1"');
      expect(res.body).toMatchObject({
        plate: 'BAB123',
        plateRegion: 'DE',
        vin: '1M8GDM9AXKP042788',
        status: 'active',
        yardId: null,
        inYard: false,
        version: 1,
      });
      const got = await admin.get(`/api/truck/${res.body.id}`);
      expect(got.body).toEqual(res.body);
      expect(got.headers.get('etag')).toBe('"v1"');

      const stale = await admin.patch(
        `/api/truck/${res.body.id}`,
        { status: 'retired' },
        { 'if-match': '"v0"' },
      );
      expect(stale.status).toBe(412);
      const ok = await admin.patch(
        `/api/truck/${res.body.id}`,
        { status: 'out_of_service', plate: 'B AB 124' },
        { 'if-match': '"v1"' },
      );
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'out_of_service', plate: 'BAB124', version: 2 });
      expect(ok.headers.get('etag')).toBe('"v2"');
      const log = await query(
        t.db,
        "SELECT op FROM change_log WHERE peer = 'site-1' AND entity = 'truck' AND entity_id = ? ORDER BY seq",
        res.body.id,
      );
      expect(log.map((l) => l.op)).toEqual(['upsert', 'upsert']);
    });

    it('bad input is 400 per field; unknown carrier 404; duplicates 409; nothing written', async () => {
      const before = await count('truck');
      const bad = await admin.post('/api/truck', {
        plate: '!!',
        vin: 'short',
        status: 'parked',
        yardId: yardA,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining(['body.plate', 'body.vin', 'body.status', 'body']),
      );
      const noId = await admin.post('/api/truck', { plateRegion: 'DE' });
      expect(noId.status).toBe(400);
      expect(noId.body.errors[0].path).toBe('body.plate');
      expect((await admin.post('/api/truck', { plate: 'X1', carrierId: UNKNOWN_ID })).status).toBe(404);
      const first = await truck({ plate: 'DUP 1', plateRegion: 'NL', vin: '1HGCM82633A004352' });
      const dupPlate = await admin.post('/api/truck', { plate: 'dup-1', plateRegion: 'nl' });
      expect(dupPlate.status).toBe(409);
      expect(dupPlate.body).toMatchObject({ code: 'duplicate', existingId: first.id });
      const dupVin = await admin.post('/api/truck', { unitNumber: '9', vin: '1hgcm82633a004352' });
      expect(dupVin.status).toBe(409);
      expect(await count('truck')).toBe(before + 1);
      // The same plate in another region is another truck.
      expect((await admin.post('/api/truck', { plate: 'DUP1', plateRegion: 'BE' })).status).toBe(201);

      const other = await truck({ plate: 'OTHER1' });
      const patchDup = await admin.patch(`/api/truck/${other.id}`, { plate: 'DUP1', plateRegion: 'NL' });
      expect(patchDup.status).toBe(409);
      const clearAll = await admin.patch(`/api/truck/${other.id}`, { plate: null });
      expect(clearAll.status).toBe(400);
      expect(await query(t.db, 'SELECT plate, version FROM truck WHERE id = ?', other.id)).toEqual([
        { plate: 'OTHER1', version: 1 },
      ]);
      expect((await admin.get('/api/truck/nope')).status).toBe(400);
      expect((await admin.get(`/api/truck/${UNKNOWN_ID}`)).status).toBe(404);
      expect((await admin.patch(`/api/truck/${UNKNOWN_ID}`, { status: 'retired' })).status).toBe(404);
    });

    it('lists by carrier, plate, inYard and yard, with paging', async () => {
      const carrier = await admin.post('/api/carrier', { name: 'Fleet Lists' });
      const made = [];
      for (const plate of ['LST1', 'LST2', 'LST3'])
        made.push(await truck({ plate, carrierId: carrier.body.id }));
      await parkIn(made[1].id, yardA);
      const byCarrier = await admin.get(`/api/truck?carrierId=${carrier.body.id}&limit=2`);
      expect(byCarrier.body.items.map((x: any) => x.plate)).toEqual(['LST1', 'LST2']);
      const next = await admin.get(
        `/api/truck?carrierId=${carrier.body.id}&limit=2&cursor=${byCarrier.body.nextCursor}`,
      );
      expect(next.body).toMatchObject({ items: [{ plate: 'LST3' }], nextCursor: null });
      expect((await admin.get('/api/truck?plate=lst-2')).body.items.map((x: any) => x.id)).toEqual([
        made[1].id,
      ]);
      const inYard = await admin.get(`/api/truck?carrierId=${carrier.body.id}&inYard=true`);
      expect(inYard.body.items).toMatchObject([{ id: made[1].id, inYard: true, yardId: yardA }]);
      const outside = await admin.get(`/api/truck?carrierId=${carrier.body.id}&inYard=false`);
      expect(outside.body.items.map((x: any) => x.plate)).toEqual(['LST1', 'LST3']);
      expect((await admin.get(`/api/truck?yardId=${yardA}`)).body.items.map((x: any) => x.id)).toEqual([
        made[1].id,
      ]);
      expect((await admin.get('/api/truck?inYard=yes')).status).toBe(400);
    });

    it('yard-scoped users see trucks outside yards and in their yards only', async () => {
      const inA = await truck({ plate: 'SCOPEA' });
      const inB = await truck({ plate: 'SCOPEB' });
      await parkIn(inA.id, yardA);
      await parkIn(inB.id, yardB);
      const scoped = await clientWithRole(admin, 'gate', { yardIds: [yardA] });
      const list = await scoped.get('/api/truck?limit=500');
      const ids = list.body.items.map((x: any) => x.id);
      expect(ids).toContain(inA.id);
      expect(ids).not.toContain(inB.id);
      expect(list.body.items.every((x: any) => x.yardId === null || x.yardId === yardA)).toBe(true);
      expect((await scoped.get(`/api/truck/${inB.id}`)).status).toBe(404);
      expect((await scoped.patch(`/api/truck/${inB.id}`, { status: 'retired' })).status).toBe(404);
      expect((await scoped.get(`/api/truck?yardId=${yardB}`)).status).toBe(403);
    });

    it('roles: staff read; admin and gate write; others 403', async () => {
      const viewer = await clientWithRole(admin, 'viewer');
      const gate = await clientWithRole(admin, 'gate');
      const dispatcher = await clientWithRole(admin, 'dispatcher');
      expect((await viewer.get('/api/truck')).status).toBe(200);
      expect((await viewer.post('/api/truck', { plate: 'VIEW1' })).status).toBe(403);
      const made = await gate.post('/api/truck', { plate: 'GATE1' });
      expect(made.status).toBe(201);
      expect((await gate.patch(`/api/truck/${made.body.id}`, { unitNumber: '7' })).status).toBe(200);
      expect((await dispatcher.patch(`/api/truck/${made.body.id}`, { unitNumber: '8' })).status).toBe(403);
      expect((await dispatcher.post(`/api/truck/${made.body.id}/inspections`, {})).status).toBe(403);
    });
  });

  describe('truck inspections at the cloud', () => {
    it("the cloud refuses to record one (the edge of the yard's site owns them); nothing written", async () => {
      const tr = await truck({ plate: 'INSPC0' });
      const before = await count('truck_inspection');
      const res = await admin.post(`/api/truck/${tr.id}/inspections`, {
        yardId: yardA,
        result: 'pass',
        items: [{ code: 'brakes', ok: true }],
      });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'edge-owned', entity: 'truck_inspection' });
      expect(await count('truck_inspection')).toBe(before);
    });

    it("lists the inspections the edges sent, newest first with paging, within the caller's yards", async () => {
      const tr = await truck({ plate: 'INSPC1' });
      // Rows as the sync applier stores what an edge recorded.
      const stored = async (yardId: string, at: string) => {
        const id = newId();
        await query(
          t.db,
          `INSERT INTO truck_inspection (id, truck_id, yard_id, inspected_at, result, items, created_at, hlc)
           VALUES (?, ?, ?, ?, 'pass', '[{"code":"brakes","ok":true}]', ?, 'edge')`,
          id,
          tr.id,
          yardId,
          Date.parse(at),
          Date.parse(at),
        );
        return id;
      };
      const oldest = await stored(yardA, '2026-03-30T08:00:00Z');
      const middle = await stored(yardB, '2026-03-31T08:00:00Z');
      const newest = await stored(yardA, '2026-04-01T08:00:00Z');
      const page1 = await admin.get(`/api/truck/${tr.id}/inspections?limit=2`);
      expect(page1.body.items.map((i: any) => i.id)).toEqual([newest, middle]);
      expect(page1.body.items[0]).toMatchObject({
        inspectedAt: '2026-04-01T08:00:00.000Z',
        items: [{ code: 'brakes', ok: true }],
        attachmentIds: [],
      });
      const page2 = await admin.get(
        `/api/truck/${tr.id}/inspections?limit=2&cursor=${page1.body.nextCursor}`,
      );
      expect(page2.body).toMatchObject({ items: [{ id: oldest }], nextCursor: null });
      expect((await admin.get(`/api/truck/${tr.id}/last-inspection`)).body.id).toBe(newest);
      const scoped = await clientWithRole(admin, 'viewer', { yardIds: [yardB] });
      expect((await scoped.get(`/api/truck/${tr.id}/inspections`)).body.items.map((i: any) => i.id)).toEqual([
        middle,
      ]);
      expect((await scoped.get(`/api/truck/${tr.id}/last-inspection`)).body.id).toBe(middle);
    });
  });

  describe('trucks: docs and service helpers', () => {
    it('every truck route is in the OpenAPI document; getRow for other modules', async () => {
      const doc = (await admin.as(undefined).get('/v3/api-docs')).body;
      for (const [path, methods] of [
        ['/api/truck', ['get', 'post']],
        ['/api/truck/{id}', ['get', 'patch']],
        ['/api/truck/{truckId}/inspections', ['get', 'post']],
        ['/api/truck/{truckId}/last-inspection', ['get']],
      ] as const) {
        for (const method of methods) expect(doc.paths[path][method].tags).toEqual(['Truck Controller']);
      }
      const tr = await truck({ plate: 'ROW1' });
      expect((await t.services.trucks.getRow(tr.id)).plate).toBe('ROW1');
      await expect(t.services.trucks.getRow(UNKNOWN_ID)).rejects.toMatchObject({ status: 404 });
    });
  });
});

/**
 * Recording inspections is the edge's (the cloud answers 409 edge-owned, above): these run at an
 * edge, on SQLite, the edge's only database.
 */
describe('truck inspections at the edge', () => {
  let t: TestApp;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  const clock = new ManualClock(Date.parse('2026-04-01T10:00:00Z'));

  beforeAll(async () => {
    t = await startTestApp({ clock });
    admin = new Client(t.url, t.adminToken);
    yardA = await seedRows(t).yard('EA', { timeZone: 'Europe/Berlin' });
    yardB = await seedRows(t).yard('EB', { timeZone: 'Europe/Berlin' });
  });
  afterAll(() => t.close());

  const count = async (table: string) =>
    (await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

  async function truck(body: Record<string, unknown>) {
    const res = await admin.post('/api/truck', body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  }

  const items = [
    { code: 'brakes', ok: true },
    { code: 'lights', ok: false, note: 'left rear out' },
  ];

  it('records inspections, lists newest first with paging, answers the last one', async () => {
    const tr = await truck({ plate: 'INSP1' });
    expect((await admin.get(`/api/truck/${tr.id}/last-inspection`)).status).toBe(404);
    const first = await admin.post(`/api/truck/${tr.id}/inspections`, {
      yardId: yardA,
      inspectedAt: '2026-03-30T08:00:00Z',
      result: 'fail',
      items,
      odometer: 120500,
      notes: 'lamp',
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      truckId: tr.id,
      yardId: yardA,
      inspectedAt: '2026-03-30T08:00:00.000Z',
      result: 'fail',
      items,
      odometer: 120500,
      attachmentIds: [],
      notes: 'lamp',
    });
    const [me] = await query(t.db, "SELECT id FROM app_user WHERE username = 'admin'");
    expect(first.body.inspectorId).toBe(me.id);
    const now = await admin.post(`/api/truck/${tr.id}/inspections`, {
      yardId: yardA,
      result: 'pass',
      items,
    });
    expect(now.body.inspectedAt).toBe('2026-04-01T10:00:00.000Z');
    const middle = await admin.post(`/api/truck/${tr.id}/inspections`, {
      yardId: yardB,
      inspectedAt: '2026-03-31T08:00:00Z',
      result: 'pass',
      items: [{ code: 'tyres', ok: true }],
    });

    const page1 = await admin.get(`/api/truck/${tr.id}/inspections?limit=2`);
    expect(page1.body.items.map((i: any) => i.id)).toEqual([now.body.id, middle.body.id]);
    const page2 = await admin.get(`/api/truck/${tr.id}/inspections?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toMatchObject({ items: [{ id: first.body.id }], nextCursor: null });
    expect((await admin.get(`/api/truck/${tr.id}/last-inspection`)).body.id).toBe(now.body.id);

    const scoped = await clientWithRole(admin, 'viewer', { yardIds: [yardB] });
    const seen = await scoped.get(`/api/truck/${tr.id}/inspections`);
    expect(seen.body.items.map((i: any) => i.id)).toEqual([middle.body.id]);
    expect((await scoped.get(`/api/truck/${tr.id}/last-inspection`)).body.id).toBe(middle.body.id);

    const log = await query(
      t.db,
      "SELECT op FROM change_log WHERE peer = 'cloud' AND entity = 'truck_inspection'",
    );
    expect(log).toHaveLength(3);
  });

  it('refuses bad inspections: fields 400, unknown truck/yard/attachment 404, other yard 403; nothing written', async () => {
    const tr = await truck({ plate: 'INSP2' });
    const before = await count('truck_inspection');
    const bad = await admin.post(`/api/truck/${tr.id}/inspections`, {
      yardId: 'x',
      result: 'maybe',
      items: [],
      odometer: -1,
      inspectedAt: 'yesterday',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining([
        'body.yardId',
        'body.result',
        'body.items',
        'body.odometer',
        'body.inspectedAt',
      ]),
    );
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ code: `c${i}`, ok: true }));
    expect(
      (
        await admin.post(`/api/truck/${tr.id}/inspections`, {
          yardId: yardA,
          result: 'pass',
          items: tooMany,
        })
      ).status,
    ).toBe(400);
    const dupCodes = await admin.post(`/api/truck/${tr.id}/inspections`, {
      yardId: yardA,
      result: 'pass',
      items: [
        { code: 'a', ok: true },
        { code: 'a', ok: false },
      ],
    });
    expect(dupCodes.body.errors).toMatchObject([{ path: 'body.items[1].code' }]);
    const future = await admin.post(`/api/truck/${tr.id}/inspections`, {
      yardId: yardA,
      result: 'pass',
      items,
      inspectedAt: '2026-04-02T10:00:00Z',
    });
    expect(future.status).toBe(400);
    expect(future.body.errors[0].path).toBe('body.inspectedAt');
    const badItem = await admin.post(`/api/truck/${tr.id}/inspections`, {
      yardId: yardA,
      result: 'pass',
      items: [{ code: 'x', ok: 'yes', extra: 1 }],
    });
    expect(badItem.body.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['body.items[0].ok', 'body.items[0]']),
    );
    const body = { yardId: yardA, result: 'pass', items };
    expect((await admin.post(`/api/truck/${UNKNOWN_ID}/inspections`, body)).status).toBe(404);
    expect(
      (await admin.post(`/api/truck/${tr.id}/inspections`, { ...body, yardId: UNKNOWN_ID })).status,
    ).toBe(404);
    const noFile = await admin.post(`/api/truck/${tr.id}/inspections`, {
      ...body,
      attachmentIds: [UNKNOWN_ID],
    });
    expect(noFile.status).toBe(404);
    const scoped = await clientWithRole(admin, 'gate', { yardIds: [yardA] });
    expect((await scoped.post(`/api/truck/${tr.id}/inspections`, { ...body, yardId: yardB })).status).toBe(
      403,
    );
    expect(await count('truck_inspection')).toBe(before);
    expect((await admin.get(`/api/truck/${UNKNOWN_ID}/inspections`)).status).toBe(404);
    expect((await admin.get(`/api/truck/${tr.id}/inspections?cursor=zzz`)).status).toBe(400);
  });

  it('keeps attachment ids of a recorded inspection; inspections have no update or delete', async () => {
    const tr = await truck({ plate: 'INSP3' });
    const attachment = await t.core.changes.insert(t.core.kysely, 'attachment', {
      id: newId(),
      filename: 'dent.jpg',
      contentType: 'image/jpeg',
      size: 3,
      sha256: 'abc',
      // Of the inspection's yard: a record lists only attachments of its yard (attachment-scope.test.ts).
      refType: 'yard',
      refId: yardA,
      createdBy: null,
      createdByKind: null,
      createdAt: clock.now(),
    });
    const res = await admin.post(`/api/truck/${tr.id}/inspections`, {
      yardId: yardA,
      result: 'pass',
      items,
      attachmentIds: [attachment.id],
    });
    expect(res.status).toBe(201);
    expect(res.body.attachmentIds).toEqual([attachment.id]);
    expect((await admin.patch(`/api/truck/${tr.id}/inspections`, {})).status).toBe(404);
    expect((await admin.delete(`/api/truck/${tr.id}/inspections`)).status).toBe(404);
  });
});
