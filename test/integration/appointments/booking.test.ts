import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { CODE_ALPHABET } from '../../../shared/modules/appointments/codes.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from './fixture.js';

/** Booking, rescheduling and cancelling (docs/domain.md "Booking rules", docs/api.md "Appointments"). */
describe.each(TEST_DIALECTS)('booking (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse(NOW));
  let y: Awaited<ReturnType<typeof bookableYard>>;
  const book = (fields: Record<string, unknown>, as: Client = admin) =>
    as.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      ...fields,
    });
  const count = async () =>
    Number((await query(t.db, 'SELECT count(*) AS n FROM appointment WHERE yard_id = ?', y.yardId))[0].n);

  beforeAll(async () => {
    t = await startTestApp({ dialect, clock, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
  });
  beforeEach(async () => {
    clock.set(NOW);
    y = await bookableYard(admin);
  });
  afterAll(() => t.close());

  it('books the first free door in door order, with a code, its history and the live event', async () => {
    const events: any[] = [];
    const off = t.core.bus.on('appointment.changed', (e) => events.push(e));
    const res = await book({ startAt: '2026-03-03T08:00:00-06:00', refs: ['PO-1'], trailerNumber: 'TR-9' });
    off();
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('etag')).toBe('"v1"');
    expect(res.body).toMatchObject({
      yardId: y.yardId,
      doorId: y.doors['Door 2'],
      doorName: 'Door 2',
      loadTypeName: 'Live unload',
      startAt: '2026-03-03T14:00:00.000Z',
      endAt: '2026-03-03T15:00:00.000Z',
      status: 'scheduled',
      overdue: false,
      refs: ['PO-1'],
      trailerNumber: 'TR-9',
      overrideReason: null,
    });
    expect(res.body.code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{8}$`));
    const second = await book({ startAt: '2026-03-03T08:00:00-06:00' });
    expect(second.body.doorName).toBe('Door 10');
    expect(second.body.code).not.toBe(res.body.code);

    const one = await admin.get(`/api/appointment/${res.body.id}`);
    expect(one.body.history).toEqual([
      expect.objectContaining({ kind: 'booked', fromStatus: null, toStatus: 'scheduled', actorKind: 'user' }),
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'appointment.changed',
      yardId: y.yardId,
      data: { id: res.body.id },
    });
  });

  it('answers 409 slot-taken with the start times still free that day when every door is full', async () => {
    await book({ startAt: '2026-03-03T08:00:00-06:00' });
    await book({ startAt: '2026-03-03T08:00:00-06:00' });
    const full = await book({ startAt: '2026-03-03T08:30:00-06:00' });
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('slot-taken');
    const free: string[] = full.body.freeTimes;
    // Half-open: 07:00 ends when 08:00 starts, 09:00 starts when it ends.
    expect(free).toContain('2026-03-03T07:00:00-06:00');
    expect(free).toContain('2026-03-03T09:00:00-06:00');
    for (const taken of ['07:15', '07:45', '08:00', '08:30', '08:45'])
      expect(free).not.toContain(`2026-03-03T${taken}:00-06:00`);
    expect(free.at(-1)).toBe('2026-03-03T17:00:00-06:00');
    expect(await count()).toBe(2);
    // A chosen door that is full is taken too, though another door is free at 08:30 for the reefer load.
    const door = await book({ startAt: '2026-03-03T09:00:00-06:00', doorId: y.doors['Door 2'] });
    expect(door.status).toBe(201);
    const again = await book({ startAt: '2026-03-03T09:30:00-06:00', doorId: y.doors['Door 2'] });
    expect(again.body.code).toBe('slot-taken');
  });

  it('refuses a start the rules forbid with 400 not-bookable and the reason in words, writing nothing', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ startAt: '2026-03-03T08:05:00-06:00' }, 'startAt', 'off-grid'],
      [{ startAt: '2026-03-03T17:30:00-06:00' }, 'startAt', 'outside-hours'],
      [{ startAt: '2026-03-07T10:00:00-06:00' }, 'startAt', 'outside-hours'],
      [{ startAt: '2026-03-02T07:00:00-06:00' }, 'startAt', 'lead-time-min'],
      [{ startAt: '2026-04-15T10:00:00-05:00' }, 'startAt', 'lead-time-max'],
      [
        { startAt: '2026-03-03T08:00:00-06:00', loadTypeId: y.reeferId, doorId: y.doors['Door 2'] },
        'doorId',
        'door-not-allowed',
      ],
    ];
    for (const [fields, path, reason] of cases) {
      const res = await book(fields);
      expect(res.status, `${reason}: ${res.text}`).toBe(400);
      expect(res.body.reason).toBe(reason);
      expect(res.body.errors).toEqual([expect.objectContaining({ path, code: 'not-bookable' })]);
      expect(res.body.errors[0].message).toMatch(/^[A-Z].+\.$/);
    }
    const notADoor = await book({ startAt: '2026-03-03T08:00:00-06:00', doorId: y.loadTypeId });
    expect(notADoor.body.errors).toEqual([expect.objectContaining({ path: 'doorId', code: 'not-a-door' })]);
    expect(await count()).toBe(0);
  });

  it('lets admins and dispatchers book outside the rules with a reason, never over capacity', async () => {
    const dispatcher = await clientWithRole(admin, 'dispatcher');
    const gate = await clientWithRole(admin, 'gate');
    const override = { reason: 'carrier called, late ship' };
    const refused = await book({ startAt: '2026-03-03T19:05:00-06:00', override }, gate);
    expect(refused.status).toBe(403);
    const res = await book({ startAt: '2026-03-03T19:05:00-06:00', override }, dispatcher);
    expect(res.status, res.text).toBe(201);
    expect(res.body.overrideReason).toBe(override.reason);
    // The reefer type may use only Door 10; an override may choose Door 2, but never over its capacity.
    const door = await book({
      startAt: '2026-03-03T19:05:00-06:00',
      loadTypeId: y.reeferId,
      doorId: y.doors['Door 2'],
      override,
    });
    expect(door.status).toBe(409);
    const door10 = await book({ startAt: '2026-03-03T19:05:00-06:00', override });
    expect(door10.body.doorName).toBe('Door 10');
    const full = await book({ startAt: '2026-03-03T19:30:00-06:00', override }, dispatcher);
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('slot-taken');
    const history = (await admin.get(`/api/appointment/${res.body.id}`)).body.history;
    expect(history[0]).toMatchObject({ kind: 'booked', reason: override.reason, detail: { override: true } });
  });

  it('reschedules with If-Match under the same rules, keeping the door when it can', async () => {
    const a = (await book({ startAt: '2026-03-03T08:00:00-06:00', refs: ['PO-4711'] })).body;
    await book({ startAt: '2026-03-03T10:00:00-06:00' });
    await book({ startAt: '2026-03-03T10:00:00-06:00' });
    const stale = await admin.patch(
      `/api/appointment/${a.id}`,
      { startAt: '2026-03-03T11:00:00-06:00' },
      { 'if-match': '"v0"' },
    );
    expect(stale.status).toBe(412);
    const full = await admin.patch(
      `/api/appointment/${a.id}`,
      { startAt: '2026-03-03T10:30:00-06:00' },
      { 'if-match': '"v1"' },
    );
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('slot-taken');
    expect(full.body.freeTimes).toContain('2026-03-03T08:00:00-06:00');
    const offGrid = await admin.patch(`/api/appointment/${a.id}`, { startAt: '2026-03-03T11:10:00-06:00' });
    expect(offGrid.status).toBe(400);
    // Within its own time: it does not collide with itself.
    const moved = await admin.patch(
      `/api/appointment/${a.id}`,
      { startAt: '2026-03-03T08:30:00-06:00' },
      { 'if-match': '"v1"' },
    );
    expect(moved.status, moved.text).toBe(200);
    // A reschedule that leaves out the refs keeps them.
    expect(moved.body).toMatchObject({ startAt: '2026-03-03T14:30:00.000Z', doorName: 'Door 2', version: 2 });
    expect(moved.body.refs).toEqual(['PO-4711']);
    expect(moved.headers.get('etag')).toBe('"v2"');
    const edited = await admin.patch(`/api/appointment/${a.id}`, {
      notes: 'call ahead',
      trailerNumber: 'TR-1',
    });
    expect(edited.body).toMatchObject({ notes: 'call ahead', trailerNumber: 'TR-1', version: 3 });
    const history = (await admin.get(`/api/appointment/${a.id}`)).body.history;
    expect(history.map((h: any) => h.kind)).toEqual(['booked', 'rescheduled', 'edited']);
    expect(history[1].detail).toMatchObject({
      from: { startAt: Date.parse('2026-03-03T14:00:00Z') },
      to: { startAt: Date.parse('2026-03-03T14:30:00Z') },
    });
  });

  it('cancels with a reason, which frees the door; a cancelled appointment changes no more', async () => {
    const a = (await book({ startAt: '2026-03-03T08:00:00-06:00' })).body;
    await book({ startAt: '2026-03-03T08:00:00-06:00' });
    expect((await book({ startAt: '2026-03-03T08:00:00-06:00' })).status).toBe(409);
    const viewer = await clientWithRole(admin, 'viewer');
    expect((await viewer.post(`/api/appointment/${a.id}/cancel`, { reason: 'x' })).status).toBe(403);
    const cancelled = await admin.post(`/api/appointment/${a.id}/cancel`, { reason: 'load not ready' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelReason: 'load not ready' });
    expect(cancelled.body.cancelledAt).toBe(new Date(clock.now()).toISOString());
    expect((await book({ startAt: '2026-03-03T08:00:00-06:00' })).status).toBe(201);
    const again = await admin.post(`/api/appointment/${a.id}/cancel`, { reason: 'twice' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invalid-transition');
    const move = await admin.patch(`/api/appointment/${a.id}`, { startAt: '2026-03-03T12:00:00-06:00' });
    expect(move.body.code).toBe('invalid-transition');
    const rows = await query(
      t.db,
      'SELECT kind, from_status, to_status, reason FROM appointment_event WHERE appointment_id = ? ORDER BY at, id',
      a.id,
    );
    expect(rows.map((r) => r.kind)).toEqual(['booked', 'cancelled']);
    expect(rows[1]).toMatchObject({
      from_status: 'scheduled',
      to_status: 'cancelled',
      reason: 'load not ready',
    });
  });

  it('lists by start with filters and paging; other yards are 404 / outside the list', async () => {
    const a = (await book({ startAt: '2026-03-03T08:00:00-06:00', refs: ['BOL-77'] })).body;
    const b = (await book({ startAt: '2026-03-04T09:00:00-06:00', trailerNumber: 'ZX-1' })).body;
    await admin.post(`/api/appointment/${b.id}/cancel`, { reason: 'no load' });
    const all = await admin.get(`/api/appointment?yardId=${y.yardId}&limit=1`);
    expect(all.body.items.map((x: any) => x.id)).toEqual([a.id]);
    const next = await admin.get(`/api/appointment?yardId=${y.yardId}&limit=1&cursor=${all.body.nextCursor}`);
    expect(next.body.items.map((x: any) => x.id)).toEqual([b.id]);
    expect(next.body.nextCursor).toBeNull();
    const ids = async (q: string) =>
      (await admin.get(`/api/appointment?yardId=${y.yardId}&${q}`)).body.items.map((x: any) => x.id);
    expect(await ids('status=cancelled')).toEqual([b.id]);
    expect(await ids('status=scheduled,arrived')).toEqual([a.id]);
    expect(await ids('from=2026-03-04T00:00:00-06:00')).toEqual([b.id]);
    expect(await ids(`q=${a.code.toLowerCase()}`)).toEqual([a.id]);
    expect(await ids('q=bol-77')).toEqual([a.id]);
    expect(await ids('q=zx-1')).toEqual([b.id]);
    const other = await bookableYard(admin);
    const scoped = await clientWithRole(admin, 'dispatcher', { yardIds: [other.yardId] });
    expect((await scoped.get(`/api/appointment/${a.id}`)).status).toBe(404);
    expect((await scoped.get('/api/appointment')).body.items).toEqual([]);
    expect((await scoped.post(`/api/appointment/${a.id}/cancel`, { reason: 'x' })).status).toBe(404);
    const foreign = await scoped.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: '2026-03-03T12:00:00-06:00',
    });
    expect(foreign.status).toBe(404);
  });

  it('shows the free start times with their doors in door order; a yard without scheduling is 409 scheduling-off', async () => {
    await book({ startAt: '2026-03-03T08:00:00-06:00' });
    const res = await admin.get(
      `/api/appointment/availability?yardId=${y.yardId}&loadTypeId=${y.loadTypeId}&date=2026-03-03`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.timeZone).toBe('America/Chicago');
    const at = (hhmm: string) => res.body.slots.find((s: any) => s.startAt === `2026-03-03T${hhmm}:00-06:00`);
    expect(at('06:00').doors.map((d: any) => d.name)).toEqual(['Door 2', 'Door 10']);
    expect(at('08:00').doors.map((d: any) => d.name)).toEqual(['Door 10']);
    expect(at('17:15')).toBeUndefined();
    expect(res.body.slots).toHaveLength(45);
    const off = await admin.put(`/api/appointment/config/${y.yardId}`, { enabled: false, openHours: {} });
    expect(off.status).toBe(200);
    const closed = await book({ startAt: '2026-03-03T10:00:00-06:00' });
    expect(closed.status).toBe(409);
    expect(closed.body.code).toBe('scheduling-off');
    const avail = await admin.get(
      `/api/appointment/availability?yardId=${y.yardId}&loadTypeId=${y.loadTypeId}&date=2026-03-03`,
    );
    expect(avail.body.code).toBe('scheduling-off');
  });

  it('flags a scheduled appointment past its no-show time as overdue while its site is offline (cloud)', async () => {
    const a = (await book({ startAt: '2026-03-02T06:30:00-06:00', override: { reason: 'truck is close' } }))
      .body;
    const [{ site_id: siteId }] = await query(t.db, 'SELECT site_id FROM yard WHERE id = ?', y.yardId);
    await query(t.db, 'DELETE FROM site WHERE id = ?', siteId);
    await query(
      t.db,
      "INSERT INTO site (id, name, mqtt_password_hash, created_at, link_state) VALUES (?, 'Site', 'x', ?, 'offline')",
      siteId,
      clock.now(),
    );
    const overdue = async () => {
      const res = await admin.get(`/api/appointment/${a.id}`);
      expect(res.status, res.text).toBe(200);
      return res.body.overdue;
    };
    // 06:30 + 60 minutes no-show time: at 07:30 not yet, a minute later overdue.
    clock.set('2026-03-02T13:30:00Z');
    expect(await overdue()).toBe(false);
    clock.set('2026-03-02T13:31:00Z');
    expect(await overdue()).toBe(true);
    expect((await admin.get(`/api/appointment?yardId=${y.yardId}`)).body.items[0].overdue).toBe(true);
    await query(t.db, "UPDATE site SET link_state = 'online' WHERE id = ?", siteId);
    expect(await overdue()).toBe(false);
  });

  it('books once for a repeated Idempotency-Key, answering the repeat with the first answer', async () => {
    const key = { 'idempotency-key': `book-${y.yardId}` };
    const body = {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: '2026-03-03T08:00:00-06:00',
    };
    const first = await admin.post('/api/appointment', body, key);
    const repeat = await admin.post('/api/appointment', body, key);
    expect(first.status).toBe(201);
    expect(repeat.status).toBe(201);
    expect(repeat.body.id).toBe(first.body.id);
    expect(await count()).toBe(1);
  });

  it('publishes appointment.changed after a reschedule and a cancellation', async () => {
    const a = (await book({ startAt: '2026-03-03T08:00:00-06:00' })).body;
    const events: any[] = [];
    const off = t.core.bus.on('appointment.changed', (e) => events.push(e.data));
    await admin.patch(`/api/appointment/${a.id}`, { startAt: '2026-03-03T09:00:00-06:00' });
    await admin.post(`/api/appointment/${a.id}/cancel`, { reason: 'no load' });
    off();
    expect(events.map((e) => [e.id, e.status, e.startAt])).toEqual([
      [a.id, 'scheduled', '2026-03-03T15:00:00.000Z'],
      [a.id, 'cancelled', '2026-03-03T15:00:00.000Z'],
    ]);
  });
});
