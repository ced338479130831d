import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { type CarrierLogin, carrierClient } from '../../helpers/carrier-user.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from './fixture.js';

/**
 * Carrier users book, change and cancel their own carrier's appointments within the rules
 * (docs/domain.md "Booking rules", "Carriers and integrators"; docs/api.md "Appointments").
 * The yard (fixture.ts) is America/Chicago, CST (UTC-6) in these days; the default cutoff is 4 hours.
 */
describe.each(TEST_DIALECTS)('carrier booking (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let carrier: CarrierLogin;
  let otherCarrierId: string;
  const clock = new ManualClock(Date.parse(NOW));
  let y: Awaited<ReturnType<typeof bookableYard>>;
  // Tue 3 Mar 10:30 CST; changes close at 06:30 CST = 12:30Z.
  const START = '2026-03-03T10:30:00-06:00';
  const CUTOFF = Date.parse('2026-03-03T12:30:00Z');
  const book = (fields: Record<string, unknown> = {}, as: Client = carrier) =>
    as.post('/api/appointment', { yardId: y.yardId, loadTypeId: y.loadTypeId, startAt: START, ...fields });
  const appointmentRows = () =>
    query(
      t.db,
      'SELECT id, start_at, cancelled_at, refs, version FROM appointment WHERE yard_id = ? ORDER BY id',
      y.yardId,
    );

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      clock,
      env: { YARD_ROLE: 'cloud', YARD_STAFF_TOKEN_TTL_HOURS: '9000' },
    });
    admin = new Client(t.url, t.adminToken);
  });
  beforeEach(async () => {
    clock.set(NOW);
    y = await bookableYard(admin);
    carrier = await carrierClient(admin, y.carrierId);
    otherCarrierId = (await seed(admin).carrier()).id;
  });
  afterAll(() => t.close());

  it('books for its own carrier from the free times, which it sees without doors', async () => {
    const free = await carrier.get(
      `/api/appointment/availability?yardId=${y.yardId}&loadTypeId=${y.loadTypeId}&date=2026-03-03`,
    );
    expect(free.status, free.text).toBe(200);
    expect(free.body.slots[0]).toEqual({
      startAt: '2026-03-03T06:00:00-06:00',
      endAt: '2026-03-03T07:00:00-06:00',
    });
    const staffView = await admin.get(
      `/api/appointment/availability?yardId=${y.yardId}&loadTypeId=${y.loadTypeId}&date=2026-03-03`,
    );
    expect(staffView.body.slots[0].doors.length).toBeGreaterThan(0);

    const res = await book({ refs: ['PO-1'], trailerNumber: 'TR-9' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      carrierId: y.carrierId,
      startAt: '2026-03-03T16:30:00.000Z',
      changeUntil: '2026-03-03T06:30:00-06:00',
      status: 'scheduled',
      createdBy: null,
      overrideReason: null,
    });
    // Staff see who booked it.
    const asStaff = await admin.get(`/api/appointment/${res.body.id}`);
    expect(asStaff.body.createdBy).toBe(carrier.userId);
    expect(asStaff.body.changeUntil).toBe('2026-03-03T06:30:00-06:00');
  });

  it('refuses another carrier (404), a door or an override (400), writing nothing', async () => {
    const other = await book({ carrierId: otherCarrierId });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('not-found');
    const door = await book({ doorId: y.doors['Door 2'] });
    expect(door.status).toBe(400);
    expect(door.body.errors.map((e: { path: string }) => e.path)).toEqual(['doorId']);
    const override = await book({ override: { reason: 'we are in a hurry' } });
    expect(override.status).toBe(400);
    expect(override.body.errors.map((e: { path: string }) => e.path)).toEqual(['override']);
    expect(await appointmentRows()).toEqual([]);
    // Staff must name the carrier.
    const staff = await book({}, admin);
    expect(staff.status).toBe(400);
    expect(staff.body.errors[0].path).toBe('carrierId');
  });

  it('sees and books carrier-visible load types only; a hidden one is 404 everywhere', async () => {
    const hidden = await admin.post('/api/appointment/load-type', {
      yardId: y.yardId,
      name: 'Hazmat',
      durationMinutes: 60,
      carrierVisible: false,
    });
    expect(hidden.status, hidden.text).toBe(201);
    const list = await carrier.get(`/api/appointment/load-type?yardId=${y.yardId}`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((lt: { name: string }) => lt.name).sort()).toEqual(['Live unload', 'Reefer']);
    const staffList = await admin.get(`/api/appointment/load-type?yardId=${y.yardId}`);
    expect(staffList.body.items).toHaveLength(3);

    const free = await carrier.get(
      `/api/appointment/availability?yardId=${y.yardId}&loadTypeId=${hidden.body.id}&date=2026-03-03`,
    );
    expect(free.status).toBe(404);
    const booked = await book({ loadTypeId: hidden.body.id });
    expect(booked.status).toBe(404);
    expect(booked.body.code).toBe('not-found');
    // Moving its booking to the hidden type: 404 too.
    const mine = await book();
    const move = await carrier.patch(`/api/appointment/${mine.body.id}`, { loadTypeId: hidden.body.id });
    expect(move.status).toBe(404);
  });

  it('a yard outside its scope or without scheduling is 404; lists naming them are empty', async () => {
    const scoped = await carrierClient(admin, y.carrierId, { yardIds: [y.yardId] });
    const elsewhere = await bookableYard(admin);
    const outside = await scoped.post('/api/appointment', {
      yardId: elsewhere.yardId,
      loadTypeId: elsewhere.loadTypeId,
      startAt: START,
    });
    expect(outside.status).toBe(404);
    const lt = await scoped.get(`/api/appointment/load-type?yardId=${elsewhere.yardId}`);
    expect(lt.body).toEqual({ items: [], nextCursor: null });
    const list = await scoped.get(`/api/appointment?yardId=${elsewhere.yardId}`);
    expect(list.body).toEqual({ items: [], nextCursor: null });

    const off = await admin.put(`/api/appointment/config/${y.yardId}`, { enabled: false, openHours: {} });
    expect(off.status, off.text).toBe(200);
    const closed = await book();
    expect(closed.status).toBe(404);
    expect(closed.body.code).toBe('not-found');
    const staffSees = await book({ carrierId: y.carrierId }, admin);
    expect(staffSees.status).toBe(409);
    expect(staffSees.body.code).toBe('scheduling-off');
  });

  it('lists and reads its own carrier only; another carrier’s appointment is 404 on every route', async () => {
    const mine = await book();
    const theirs = await book({ carrierId: otherCarrierId, startAt: '2026-03-03T12:00:00-06:00' }, admin);
    expect(theirs.status, theirs.text).toBe(201);

    const list = await carrier.get('/api/appointment');
    expect(list.body.items.map((a: { id: string }) => a.id)).toEqual([mine.body.id]);
    const filtered = await carrier.get(`/api/appointment?carrierId=${otherCarrierId}`);
    expect(filtered.body).toEqual({ items: [], nextCursor: null });

    const noSuch = await carrier.get('/api/appointment/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f');
    for (const res of [
      await carrier.get(`/api/appointment/${theirs.body.id}`),
      await carrier.patch(`/api/appointment/${theirs.body.id}`, { refs: ['X'] }),
      await carrier.post(`/api/appointment/${theirs.body.id}/cancel`, { reason: 'not ours' }),
      await carrier.get(`/api/appointment/${theirs.body.id}/pass`),
      await carrier.get(`/api/appointment/${theirs.body.id}/pass.pdf`),
      await carrier.get(`/api/appointment/${theirs.body.id}/pass.png`),
      await carrier.get(`/api/appointment/${theirs.body.id}/pass.ics`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not-found');
      expect(res.body.title).toBe(noSuch.body.title);
    }
    const [row] = await query(
      t.db,
      'SELECT cancelled_at, refs, version FROM appointment WHERE id = ?',
      theirs.body.id,
    );
    expect(row).toMatchObject({ cancelled_at: null, refs: '[]', version: 1 });

    // Its own: the pass in every form.
    for (const [suffix, type] of [
      ['', 'text/html'],
      ['.pdf', 'application/pdf'],
      ['.png', 'image/png'],
      ['.ics', 'text/calendar'],
    ]) {
      const pass = await carrier.get(`/api/appointment/${mine.body.id}/pass${suffix}`);
      expect(pass.status, `${suffix} ${pass.text.slice(0, 200)}`).toBe(200);
      expect(pass.headers.get('content-type')).toContain(type);
    }
  });

  it('reads its appointment without the yard’s own business: no override reason, no actors, no doors in the history', async () => {
    const staffBooked = await book({ carrierId: y.carrierId, override: { reason: 'VIP customer' } }, admin);
    expect(staffBooked.status, staffBooked.text).toBe(201);
    const moved = await admin.patch(`/api/appointment/${staffBooked.body.id}`, {
      startAt: '2026-03-03T12:00:00-06:00',
      doorId: y.doors['Door 10'],
    });
    expect(moved.status, moved.text).toBe(200);
    const staffView = await admin.get(`/api/appointment/${staffBooked.body.id}`);
    expect(staffView.body.overrideReason).toBe('VIP customer');
    expect(staffView.body.history[0].actorId).not.toBeNull();

    const res = await carrier.get(`/api/appointment/${staffBooked.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ overrideReason: null, createdBy: null, movementId: null });
    expect(res.body.history).toEqual([
      expect.objectContaining({ kind: 'booked', actorId: null, reason: null, detail: null }),
      expect.objectContaining({
        kind: 'rescheduled',
        actorId: null,
        detail: {
          from: { startAt: Date.parse(START), endAt: Date.parse(START) + 3_600_000 },
          to: { startAt: Date.parse('2026-03-03T18:00:00Z'), endAt: Date.parse('2026-03-03T19:00:00Z') },
        },
      }),
    ]);
    expect(JSON.stringify(res.body)).not.toContain('VIP customer');
    expect(JSON.stringify(res.body.history)).not.toContain(y.doors['Door 10']);
  });

  it('changes and cancels until the minute before the cutoff; exactly at it and after: 409 change-cutoff in words', async () => {
    const mine = await book({ refs: ['PO-1'] });
    clock.set(CUTOFF - 60_000);
    const edit = await carrier.patch(`/api/appointment/${mine.body.id}`, { refs: ['PO-2'] });
    expect(edit.status, edit.text).toBe(200);
    const before = await appointmentRows();

    for (const at of [CUTOFF, CUTOFF + 60_000]) {
      clock.set(at);
      for (const res of [
        await carrier.patch(`/api/appointment/${mine.body.id}`, { refs: ['PO-3'] }),
        await carrier.patch(`/api/appointment/${mine.body.id}`, { startAt: '2026-03-03T14:00:00-06:00' }),
        await carrier.post(`/api/appointment/${mine.body.id}/cancel`, { reason: 'load not ready' }),
      ]) {
        expect(res.status, res.text).toBe(409);
        expect(res.body).toMatchObject({
          code: 'change-cutoff',
          detail: 'Changes closed at 06:30, 4 hours before the 10:30 start. Call the yard to change it.',
          changeUntil: '2026-03-03T06:30:00-06:00',
        });
      }
    }
    expect(await appointmentRows()).toEqual(before);

    // Staff keep changing it.
    const staff = await admin.patch(`/api/appointment/${mine.body.id}`, { refs: ['PO-9'] });
    expect(staff.status, staff.text).toBe(200);
    const dispatcher = await clientWithRole(admin, 'dispatcher');
    const cancel = await dispatcher.post(`/api/appointment/${mine.body.id}/cancel`, {
      reason: 'yard closed',
    });
    expect(cancel.status, cancel.text).toBe(200);
  });

  it('reschedules before the cutoff under the booking rules, the cutoff moving with it', async () => {
    const mine = await book();
    const moved = await carrier.patch(
      `/api/appointment/${mine.body.id}`,
      { startAt: '2026-03-03T14:00:00-06:00' },
      { 'if-match': '"v1"' },
    );
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({
      startAt: '2026-03-03T20:00:00.000Z',
      changeUntil: '2026-03-03T10:00:00-06:00',
      createdBy: null,
    });
    // Off the slot grid: the booking rules, as for staff.
    const offGrid = await carrier.patch(`/api/appointment/${mine.body.id}`, {
      startAt: '2026-03-03T14:07:00-06:00',
    });
    expect(offGrid.status).toBe(400);
  });

  it('after arrival: 409 change-cutoff whatever the time, changeUntil null', async () => {
    const mine = await book();
    const arrivedAt = Date.parse('2026-03-03T11:10:00Z'); // 05:10 CST, before the cutoff
    clock.set(arrivedAt);
    await t.core.changes.update(t.core.kysely, 'appointment', mine.body.id, { arrivedAt, arrival: 'early' });
    const read = await carrier.get(`/api/appointment/${mine.body.id}`);
    expect(read.body).toMatchObject({ status: 'arrived', changeUntil: null });
    for (const res of [
      await carrier.patch(`/api/appointment/${mine.body.id}`, { trailerNumber: 'TR-1' }),
      await carrier.post(`/api/appointment/${mine.body.id}/cancel`, { reason: 'wrong trailer' }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        code: 'change-cutoff',
        detail: 'Changes closed when the truck arrived at 05:10. Call the yard to change it.',
        changeUntil: null,
      });
    }
  });

  it('the portal context names the user, its carrier and the yards it can book', async () => {
    const named = await carrierClient(admin, y.carrierId, { displayName: 'Dispatch desk' });
    const res = await named.get('/api/carrier-portal/context');
    expect(res.status, res.text).toBe(200);
    const [carrierRow] = await query(t.db, 'SELECT name, scac FROM carrier WHERE id = ?', y.carrierId);
    expect(res.body.carrier).toEqual({ id: y.carrierId, name: carrierRow.name, scac: carrierRow.scac });
    expect(res.body.user).toEqual({
      id: named.userId,
      username: named.username,
      displayName: 'Dispatch desk',
    });
    expect(res.body.yards).toContainEqual(
      expect.objectContaining({ id: y.yardId, timeZone: 'America/Chicago' }),
    );

    // A yard whose load types are all hidden, and one without scheduling, are not offered.
    const hiddenOnly = await bookableYard(admin);
    for (const id of [hiddenOnly.loadTypeId, hiddenOnly.reeferId]) {
      const lt = await admin.get('/api/appointment/load-type');
      const version = lt.body.items.find((x: { id: string }) => x.id === id).version;
      const hide = await admin.patch(
        `/api/appointment/load-type/${id}`,
        { carrierVisible: false },
        { 'if-match': `"v${version}"` },
      );
      expect(hide.status, hide.text).toBe(200);
    }
    const off = await bookableYard(admin);
    await admin.put(`/api/appointment/config/${off.yardId}`, { enabled: false, openHours: {} });
    const scoped = await carrierClient(admin, y.carrierId, {
      yardIds: [y.yardId, hiddenOnly.yardId, off.yardId],
    });
    const ctx = await scoped.get('/api/carrier-portal/context');
    expect(ctx.body.yards.map((yard: { id: string }) => yard.id)).toEqual([y.yardId]);
    // Staff have no carrier: the route is not theirs.
    expect((await admin.get('/api/carrier-portal/context')).status).toBe(403);
  });
});
