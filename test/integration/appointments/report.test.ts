import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { copyEdgeRows } from '../../helpers/edge-rows.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from './fixture.js';

/**
 * GET /api/appointment/detention and /summary (docs/domain.md "Wait and detention") at the cloud,
 * on both databases. Appointments are booked at the cloud; the trucks are checked in and out at
 * the yard's site (a standalone edge here, through its real API, with photos), and the site's
 * movements, visits and attachments and the arrival fields reach the cloud as its sync delivers
 * them (the rows, as they are).
 *
 * Monday 2 March 2026 in Chicago (CST, UTC-6); free time 120 min (the default). By hand:
 *   A carrier 1, Door 2,  10:00: arrived 09:30 (early), docked 10:20, departed 12:50
 *       clock start 10:00; wait 20; turn 200; detention 170 - 120 = 50
 *   B carrier 2, Door 10, 10:00: arrived 10:40 (late), docked 11:25, departed 13:10
 *       clock start 10:40; wait 45; turn 150; detention 150 - 120 = 30
 *   C carrier 1, Door 2,  11:00: marked no-show 12:00
 *   D carrier 1, Door 2,  12:00: cancelled before arriving (listed; not counted in the summary)
 *   F carrier 2, Door 10, 13:00: arrived 12:55 (on time), docked 13:00, departed 14:30
 *       clock start 13:00; wait 0; turn 95; detention max(0, 90 - 120) = 0
 * Summary:
 *   carrier 1 (A, C): 2 counted, early 1, no-shows 1, on time 0 / 2 = 0 %; wait [20]; turn [200]
 *   carrier 2 (B, F): 2 counted, on time 1, late 1, on time 1 / 2 = 50 %; waits [0, 45]: p50 0,
 *     p90 45; turns [95, 150]: p50 95, p90 150
 *   Door 2 (A, C) as carrier 1; Door 10 (B, F) as carrier 2; Door 2 listed first.
 *   all: 4 counted, arrived 3, no-shows 1, on time 1 / 4 = 25 %; waits [0, 20, 45]: p50 20,
 *     p90 45; turns [95, 150, 200]: p50 150, p90 200
 */
describe.each(TEST_DIALECTS)('appointment detention report and summary (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse(NOW));
  const env = { YARD_STAFF_TOKEN_TTL_HOURS: '9000', YARD_DRIVER_TOKEN_TTL_HOURS: '9000' };
  let t: TestApp<AppDatabase>;
  let site: TestApp;
  let admin: Client;
  let siteAdmin: Client;
  let y: Awaited<ReturnType<typeof bookableYard>>;
  let otherYard: Awaited<ReturnType<typeof bookableYard>>;
  let carrier2: string;
  let gateId: string;
  const ids: Record<string, string> = {};
  const moves: Record<string, { in: string; out?: string; photoIn: string; photoOut?: string }> = {};
  const cst = (hhmm: string) => `2026-03-02T${hhmm}:00-06:00`;
  const from = '2026-03-02T06:00:00Z';
  const to = '2026-03-03T06:00:00Z';

  async function book(key: string, carrierId: string, door: 'Door 2' | 'Door 10', start: string) {
    const res = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      startAt: cst(start),
      doorId: y.doors[door],
      carrierId,
      trailerNumber: `TR-${key}`,
      refs: [`PO-${key}`],
    });
    expect(res.status, res.text).toBe(201);
    ids[key] = res.body.id;
  }

  async function photo(fields: Record<string, string> = {}): Promise<string> {
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, Math.random() * 255])]),
      'gate.jpg',
    );
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const res = await siteAdmin.post('/api/attachment', form);
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }

  /** The truck of appointment `key` through the site's gate: in (with a photo), and out if given. */
  async function visit(key: string, carrierId: string, inAt: string, outAt?: string) {
    clock.set(cst(inAt));
    const photoIn = await photo();
    const checkIn = await siteAdmin.post('/api/movement', {
      yardId: y.yardId,
      gateId,
      direction: 'in',
      at: cst(inAt),
      trailer: { number: `TR-${key}`, carrierId },
      attachmentIds: [photoIn],
    });
    expect(checkIn.status, checkIn.text).toBe(201);
    moves[key] = { in: checkIn.body.id, photoIn };
    if (!outAt) return;
    clock.set(cst(outAt));
    const checkOut = await siteAdmin.post('/api/movement', {
      yardId: y.yardId,
      gateId,
      direction: 'out',
      at: cst(outAt),
      trailer: { id: checkIn.body.trailerId },
    });
    expect(checkOut.status, checkOut.text).toBe(201);
    // A photo taken at the gate and uploaded against the check-out afterwards.
    const photoOut = await photo({ refType: 'movement', refId: checkOut.body.id });
    moves[key] = { ...moves[key]!, out: checkOut.body.id, photoOut };
  }

  /** The site's arrival fields as they reach the cloud. */
  async function arrival(key: string, patch: Record<string, unknown>) {
    const at = (v: unknown) => (typeof v === 'string' && /^\d\d:\d\d$/.test(v) ? Date.parse(cst(v)) : v);
    const values = Object.fromEntries(Object.entries(patch).map(([k, v]) => [k, at(v)]));
    const updated = await t.core.changes.update(t.core.kysely, 'appointment', ids[key]!, values as never);
    expect(updated).toBeDefined();
  }

  beforeAll(async () => {
    t = await startTestApp({ clock, dialect, env: { ...env, YARD_ROLE: 'cloud' } });
    site = await startTestApp({ clock, env });
    admin = new Client(t.url, t.adminToken);
    siteAdmin = new Client(site.url, site.adminToken);
    y = await bookableYard(admin);
    otherYard = await bookableYard(admin);
    carrier2 = (await seed(admin).carrier({ name: 'Zephyr Lines' })).id;
    await copyEdgeRows(t.db, site.db, ['yard', 'location', 'carrier']);
    // Gates are made at the yard's edge; the cloud keeps what it sends.
    gateId = (await seed(siteAdmin).gate(y.yardId, { name: 'North Gate' })).id;
    await copyEdgeRows(site.db, t.db, ['gate']);

    await book('A', y.carrierId, 'Door 2', '10:00');
    await book('B', carrier2, 'Door 10', '10:00');
    await book('C', y.carrierId, 'Door 2', '11:00');
    await book('D', y.carrierId, 'Door 2', '12:00');
    await book('F', carrier2, 'Door 10', '13:00');
    const cancel = await admin.post(`/api/appointment/${ids.D}/cancel`, { reason: 'carrier called off' });
    expect(cancel.status, cancel.text).toBe(200);
    // The other yard: an appointment a viewer scoped to the first yard never sees.
    const elsewhere = await admin.post('/api/appointment', {
      yardId: otherYard.yardId,
      loadTypeId: otherYard.loadTypeId,
      startAt: cst('10:00'),
      carrierId: otherYard.carrierId,
    });
    expect(elsewhere.status, elsewhere.text).toBe(201);

    await visit('A', y.carrierId, '09:30', '12:50');
    await visit('B', carrier2, '10:40', '13:10');
    await visit('F', carrier2, '12:55', '14:30');
    await copyEdgeRows(site.db, t.db, ['trailer', 'movement', 'visit', 'attachment']);
    await arrival('A', { arrivedAt: '09:30', arrival: 'early', movementId: moves.A!.in, dockedAt: '10:20' });
    await arrival('A', { departedAt: '12:50', completedAt: '12:40' });
    await arrival('B', { arrivedAt: '10:40', arrival: 'late', movementId: moves.B!.in, dockedAt: '11:25' });
    await arrival('B', { departedAt: '13:10', completedAt: '13:05' });
    await arrival('C', { noShowAt: '12:00' });
    await arrival('F', {
      arrivedAt: '12:55',
      arrival: 'on_time',
      movementId: moves.F!.in,
      dockedAt: '13:00',
    });
    await arrival('F', { departedAt: '14:30', completedAt: '14:20' });
    clock.set('2026-03-03T12:00:00Z');
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('lists each appointment with its hand-computed wait, turn and detention, movements and photos', async () => {
    const res = await admin.get(`/api/appointment/detention?yardId=${y.yardId}&from=${from}&to=${to}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ from: '2026-03-02T06:00:00.000Z', to: '2026-03-03T06:00:00.000Z' });
    const byCode = Object.fromEntries(res.body.items.map((i: any) => [i.trailerNumber, i]));
    expect(res.body.items.map((i: any) => i.trailerNumber)).toEqual(['TR-A', 'TR-B', 'TR-C', 'TR-D', 'TR-F']);
    expect(byCode['TR-A']).toMatchObject({
      doorName: 'Door 2',
      refs: ['PO-A'],
      status: 'completed',
      arrival: 'early',
      startAt: '2026-03-02T16:00:00.000Z',
      arrivedAt: '2026-03-02T15:30:00.000Z',
      clockStartAt: '2026-03-02T16:00:00.000Z',
      freeTimeMinutes: 120,
      waitMinutes: 20,
      turnMinutes: 200,
      detentionMinutes: 50,
    });
    expect(byCode['TR-A'].movements).toEqual([
      {
        id: moves.A!.in,
        direction: 'in',
        at: '2026-03-02T15:30:00.000Z',
        gateName: 'North Gate',
        trailerNumber: 'TR-A',
        truckPlate: null,
        attachmentIds: [moves.A!.photoIn],
      },
      {
        id: moves.A!.out,
        direction: 'out',
        at: '2026-03-02T18:50:00.000Z',
        gateName: 'North Gate',
        trailerNumber: 'TR-A',
        truckPlate: null,
        attachmentIds: [moves.A!.photoOut],
      },
    ]);
    expect(byCode['TR-B']).toMatchObject({
      carrierName: 'Zephyr Lines',
      arrival: 'late',
      clockStartAt: '2026-03-02T16:40:00.000Z',
      waitMinutes: 45,
      turnMinutes: 150,
      detentionMinutes: 30,
    });
    expect(byCode['TR-F']).toMatchObject({
      arrival: 'on_time',
      waitMinutes: 0,
      turnMinutes: 95,
      detentionMinutes: 0,
    });
    expect(byCode['TR-C']).toMatchObject({
      status: 'no_show',
      clockStartAt: null,
      waitMinutes: null,
      turnMinutes: null,
      detentionMinutes: null,
      movements: [],
    });
    expect(byCode['TR-D']).toMatchObject({ status: 'cancelled', detentionMinutes: null });

    const oneCarrier = await admin.get(
      `/api/appointment/detention?carrierId=${carrier2}&from=${from}&to=${to}`,
    );
    expect(oneCarrier.body.items.map((i: any) => i.trailerNumber)).toEqual(['TR-B', 'TR-F']);
  });

  it('answers the same as CSV with Accept: text/csv, times on the yard’s clock', async () => {
    const res = await fetch(`${t.url}/api/appointment/detention?yardId=${y.yardId}&from=${from}&to=${to}`, {
      headers: { authorization: `Bearer ${t.adminToken}`, accept: 'text/csv' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="detention-2026-03-02-2026-03-03.csv"',
    );
    const records = parse(await res.text(), { columns: true }) as Record<string, string>[];
    expect(records.map((r) => r.Trailer)).toEqual(['TR-A', 'TR-B', 'TR-C', 'TR-D', 'TR-F']);
    const a = records[0]!;
    expect(a).toMatchObject({
      Door: 'Door 2',
      Refs: 'PO-A',
      Status: 'completed',
      Arrival: 'early',
      'Booked start': '2026-03-02T10:00:00-06:00',
      Arrived: '2026-03-02T09:30:00-06:00',
      Departed: '2026-03-02T12:50:00-06:00',
      'Clock start': '2026-03-02T10:00:00-06:00',
      'Free time (min)': '120',
      'Wait (min)': '20',
      'Turn (min)': '200',
      'Detention (min)': '50',
    });
    expect(a['Gate movements']).toBe(
      `check-in 2026-03-02T09:30:00-06:00 at North Gate (movement ${moves.A!.in}); ` +
        `check-out 2026-03-02T12:50:00-06:00 at North Gate (movement ${moves.A!.out})`,
    );
    expect(a['Photo attachment ids']).toBe(`${moves.A!.photoIn} ${moves.A!.photoOut}`);
    expect(records[2]).toMatchObject({ Status: 'no-show', 'Wait (min)': '', 'Detention (min)': '' });
  });

  it('summarizes on-time, no-shows, wait and turn per carrier and per door, as worked out by hand', async () => {
    const res = await admin.get(`/api/appointment/summary?yardId=${y.yardId}&from=${from}&to=${to}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.all).toEqual({
      appointments: 4,
      arrived: 3,
      early: 1,
      onTime: 1,
      late: 1,
      noShows: 1,
      onTimePercent: 25,
      waitP50Minutes: 20,
      waitP90Minutes: 45,
      turnP50Minutes: 150,
      turnP90Minutes: 200,
    });
    expect(
      res.body.byCarrier.map((c: any) => [c.carrierId, c.appointments, c.noShows, c.onTimePercent]),
    ).toEqual([
      [y.carrierId, 2, 1, 0],
      [carrier2, 2, 0, 50],
    ]);
    expect(res.body.byCarrier[1]).toMatchObject({
      carrierName: 'Zephyr Lines',
      waitP50Minutes: 0,
      waitP90Minutes: 45,
      turnP50Minutes: 95,
      turnP90Minutes: 150,
    });
    expect(
      res.body.byDoor.map((d: any) => [d.doorName, d.appointments, d.early, d.late, d.waitP50Minutes]),
    ).toEqual([
      ['Door 2', 2, 1, 0, 20],
      ['Door 10', 2, 0, 1, 0],
    ]);
  });

  it('each role reads only its yards; the gate may not; bad windows are 400 and change nothing', async () => {
    const viewer = await clientWithRole(admin, 'viewer', { yardIds: [y.yardId] });
    const all = await viewer.get(`/api/appointment/detention?from=${from}&to=${to}`);
    expect(all.status, all.text).toBe(200);
    expect(all.body.items).toHaveLength(5);
    expect(all.body.items.every((i: any) => i.yardId === y.yardId)).toBe(true);
    const summary = await viewer.get(`/api/appointment/summary?from=${from}&to=${to}`);
    expect(summary.body.all.appointments).toBe(4);
    const outside = await viewer.get(
      `/api/appointment/summary?yardId=${otherYard.yardId}&from=${from}&to=${to}`,
    );
    expect(outside.status).toBe(403);
    const adminAll = await admin.get(`/api/appointment/detention?from=${from}&to=${to}`);
    expect(adminAll.body.items).toHaveLength(6);
    for (const role of ['dispatcher', 'billing'] as const) {
      const c = await clientWithRole(admin, role);
      expect((await c.get(`/api/appointment/summary?yardId=${y.yardId}&from=${from}&to=${to}`)).status).toBe(
        200,
      );
    }
    const gate = await clientWithRole(admin, 'gate');
    expect((await gate.get(`/api/appointment/detention?from=${from}&to=${to}`)).status).toBe(403);
    expect((await gate.get(`/api/appointment/summary?from=${from}&to=${to}`)).status).toBe(403);
    const before = await query(t.db, 'SELECT count(*) AS n FROM appointment');
    const inverted = await admin.get(`/api/appointment/detention?from=${to}&to=${from}`);
    expect([inverted.status, inverted.body.code]).toEqual([400, 'bad-range']);
    const long = await admin.get(
      '/api/appointment/summary?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    );
    expect([long.status, long.body.code]).toEqual([400, 'range-too-long']);
    const junk = await admin.get('/api/appointment/detention?from=yesterday&carrierId=42');
    expect(junk.status).toBe(400);
    expect(junk.body.errors.map((e: any) => e.path).sort()).toEqual(['query.carrierId', 'query.from']);
    expect(await query(t.db, 'SELECT count(*) AS n FROM appointment')).toEqual(before);
  });

  it('the OpenAPI document shows both routes with their roles and errors', async () => {
    const doc = (await admin.get('/v3/api-docs')).body;
    const detention = doc.paths['/api/appointment/detention'].get;
    expect(Object.keys(detention.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
    expect(detention.description).toContain('Accept: text/csv');
    expect(
      doc.paths['/api/appointment/summary'].get.responses['200'].content['application/json'].schema,
    ).toEqual({
      $ref: '#/components/schemas/AppointmentSummary',
    });
  });
});
