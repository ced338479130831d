import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../../shared/bus.js';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { waitFor } from '../../helpers/wait-for.js';
import { appointmentRow, appointmentRows, changedEvents, historyOf } from './gate-fixture.js';

/**
 * docs/api.md "Appointments": POST /api/appointment/{id}/status (docked, completed by hand, undo a
 * no-show) and GET /api/appointment/by-code/{code} (today's appointment of the caller's yards) are
 * served everywhere; here at the cloud, on each database. The arrival fields the cloud holds are
 * written as the sync applier stores what the site sent.
 */
describe.each(TEST_DIALECTS)('gate-side appointment routes at the cloud (%s)', (dialect) => {
  // 09:00 in Chicago (the seeded yards' zone) on 2026-01-15.
  const clock = new ManualClock(Date.parse('2026-01-15T15:00:00Z'));
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const events: PublishedEvent[] = [];
  let yardId: string;
  let otherYardId: string;
  let doorId: string;
  let spotId: string;
  let otherDoorId: string;
  let carrierId: string;
  let loadTypeId: string;
  let otherLoadTypeId: string;
  let scopedGate: Client;

  beforeAll(async () => {
    t = await startTestApp({ clock, dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-1',
      'Site 1',
      '$7$unused',
      Date.now(),
    );
    t.core.bus.subscribe((e) => events.push(e));
    const rowsOf = seedRows(t);
    yardId = await rowsOf.yard('DAL');
    otherYardId = await rowsOf.yard('HOU');
    doorId = await rowsOf.location(yardId, 'Door 1', 'door');
    spotId = await rowsOf.location(yardId, 'A-01');
    otherDoorId = await rowsOf.location(otherYardId, 'Door 9', 'door');
    carrierId = await rowsOf.carrier('Acme', { scac: 'ACME' });
    const a = appointmentRows(t);
    loadTypeId = await a.loadType(yardId);
    otherLoadTypeId = await a.loadType(otherYardId);
    scopedGate = await clientWithRole(admin, 'gate', { yardIds: [otherYardId] });
  });
  afterAll(() => t.close());

  const book = (extra: Record<string, unknown> = {}, startAt = '2026-01-15T16:00:00.000Z', code?: string) =>
    appointmentRows(t).appointment({ yardId, doorId, loadTypeId, carrierId, startAt, extra, code });
  const arrivedAt = Date.parse('2026-01-15T14:50:00Z');
  const ARRIVED = { arrivedAt, arrival: 'early' };

  describe('POST /api/appointment/{id}/status', () => {
    it('docked, then completed, by hand: the times are now, the history keeps who and why', async () => {
      const { id } = await book(ARRIVED);
      const docked = await admin.post(`/api/appointment/${id}/status`, {
        to: 'docked',
        reason: 'door 1 by radio',
      });
      expect(docked.status, docked.text).toBe(200);
      expect(docked.body).toMatchObject({ id, status: 'docked', dockedAt: '2026-01-15T15:00:00.000Z' });
      clock.advance(30 * 60_000);
      const completed = await admin.post(`/api/appointment/${id}/status`, { to: 'completed' });
      expect(completed.status, completed.text).toBe(200);
      expect(completed.body).toMatchObject({ status: 'completed', completedAt: '2026-01-15T15:30:00.000Z' });
      expect(await appointmentRow(t.db, id)).toMatchObject({
        docked_at: Date.parse('2026-01-15T15:00:00Z'),
        completed_at: Date.parse('2026-01-15T15:30:00Z'),
      });
      expect(await historyOf(t.db, id)).toMatchObject([
        {
          kind: 'docked',
          from_status: 'arrived',
          to_status: 'docked',
          actor_kind: 'user',
          reason: 'door 1 by radio',
        },
        {
          kind: 'completed',
          from_status: 'docked',
          to_status: 'completed',
          actor_kind: 'user',
          reason: null,
        },
      ]);
      expect(changedEvents(events, id).map((e) => e.data.status)).toEqual(['docked', 'completed']);
    });

    it('completed straight from arrived (it never docked)', async () => {
      const { id } = await book(ARRIVED);
      const res = await admin.post(`/api/appointment/${id}/status`, { to: 'completed' });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ status: 'completed', dockedAt: null });
    });

    it('undo a no-show: scheduled again', async () => {
      const { id } = await book({ noShowAt: Date.parse('2026-01-15T14:00:00Z') });
      const res = await admin.post(`/api/appointment/${id}/status`, { to: 'scheduled' });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ status: 'scheduled', noShowAt: null });
      expect((await appointmentRow(t.db, id)).no_show_at).toBeNull();
    });

    it.each([
      [
        'docked',
        'scheduled',
        {},
        'Only an appointment that has arrived can be marked docked; this one is scheduled.',
      ],
      [
        'completed',
        'a no-show',
        { noShowAt: Date.parse('2026-01-15T14:00:00Z') },
        'Only an appointment that has arrived or docked can be marked completed; this one is a no-show.',
      ],
      ['scheduled', 'arrived', ARRIVED, 'Only a no-show can be set back to scheduled; this one is arrived.'],
      [
        'docked',
        'cancelled',
        { cancelledAt: Date.parse('2026-01-15T14:00:00Z'), cancelReason: 'x' },
        'Only an appointment that has arrived can be marked docked; this one is cancelled.',
      ],
      [
        'completed',
        'completed',
        { ...ARRIVED, completedAt: Date.parse('2026-01-15T14:55:00Z') },
        'Only an appointment that has arrived or docked can be marked completed; this one is completed.',
      ],
    ])('to %s when %s: 409 invalid-transition, nothing changes', async (to, _from, extra, detail) => {
      const { id } = await book(extra);
      const before = await appointmentRow(t.db, id);
      const res = await admin.post(`/api/appointment/${id}/status`, { to });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'invalid-transition', detail });
      expect(await appointmentRow(t.db, id)).toEqual(before);
      expect(await historyOf(t.db, id)).toEqual([]);
    });

    it('404 for an unknown id and outside the caller’s yards; 403 for a viewer; 400 for another status', async () => {
      const { id } = await book(ARRIVED);
      expect((await admin.post(`/api/appointment/${newId()}/status`, { to: 'docked' })).status).toBe(404);
      const scoped = await scopedGate.post(`/api/appointment/${id}/status`, { to: 'docked' });
      expect(scoped.status).toBe(404);
      expect(scoped.body.code).toBe('not-found');
      const viewer = await clientWithRole(admin, 'viewer');
      expect((await viewer.post(`/api/appointment/${id}/status`, { to: 'docked' })).status).toBe(403);
      const bad = await admin.post(`/api/appointment/${id}/status`, { to: 'arrived' });
      expect(bad.status).toBe(400);
      expect((await appointmentRow(t.db, id)).docked_at).toBeNull();
    });
  });

  describe('GET /api/appointment/by-code/{code}', () => {
    it("finds today's appointment as typed or scanned: any case, spaces and dashes ignored", async () => {
      const { id } = await book({}, '2026-01-15T20:00:00.000Z', 'K7M4QX2P');
      for (const typed of ['K7M4QX2P', 'k7m4-qx2p', ' K7M4 QX2P ']) {
        const res = await admin.get(`/api/appointment/by-code/${encodeURIComponent(typed)}`);
        expect(res.status, res.text).toBe(200);
        expect(res.body).toMatchObject({ id, code: 'K7M4QX2P', status: 'scheduled', doorName: 'Door 1' });
      }
    });

    it("not today's (the yard's day: 23:30 in Chicago is tomorrow in UTC), not found", async () => {
      // 2026-01-16T05:30Z is 23:30 on the 15th in Chicago: today there.
      const late = await book({}, '2026-01-16T05:30:00.000Z', 'LATEDAY1');
      expect((await admin.get('/api/appointment/by-code/LATEDAY1')).body.id).toBe(late.id);
      // 2026-01-16T07:00Z is the 16th in Chicago: tomorrow.
      await book({}, '2026-01-16T07:00:00.000Z', 'TOMORRW1');
      const res = await admin.get('/api/appointment/by-code/TOMORRW1');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        code: 'not-found',
        detail: 'No appointment today has the code TOMORRW1.',
      });
    });

    it("only the caller's yards: another yard's code is not found; a yardId outside them is 403", async () => {
      await book({}, '2026-01-15T18:00:00.000Z', 'DALCODE1');
      expect((await scopedGate.get('/api/appointment/by-code/DALCODE1')).status).toBe(404);
      expect((await scopedGate.get(`/api/appointment/by-code/DALCODE1?yardId=${yardId}`)).status).toBe(403);
      const hou = await appointmentRows(t).appointment({
        yardId: otherYardId,
        doorId: otherDoorId,
        loadTypeId: otherLoadTypeId,
        carrierId,
        startAt: '2026-01-15T18:00:00.000Z',
        code: 'HOUCODE1',
      });
      expect((await scopedGate.get('/api/appointment/by-code/HOUCODE1')).body.id).toBe(hou.id);
    });
  });

  it('a trailer moved to a door by hand here docks the appointment it arrived for', async () => {
    const trailerId = await seedRows(t).trailer({
      carrierId,
      number: 'CL-1',
      yardId,
      locationId: spotId,
      arrivedAt,
    });
    const movementId = newId();
    // The site's check-in, as the sync applier stores it.
    await query(
      t.db,
      "INSERT INTO movement (id, yard_id, direction, at, trailer_id, created_at, hlc, appointment_id) VALUES (?, ?, 'in', ?, ?, ?, ?, NULL)",
      movementId,
      yardId,
      arrivedAt,
      trailerId,
      arrivedAt,
      '0000000000001-0000-site-1',
    );
    const { id } = await book({ ...ARRIVED, movementId });
    const trailer = await admin.get(`/api/trailer/${trailerId}`);
    const moved = await admin.patch(
      `/api/trailer/${trailerId}`,
      { locationId: doorId },
      { 'if-match': trailer.headers.get('etag')! },
    );
    expect(moved.status, moved.text).toBe(200);
    expect((await appointmentRow(t.db, id)).docked_at).toBe(clock.now());
    expect(await historyOf(t.db, id)).toMatchObject([{ kind: 'docked', actor_kind: 'system' }]);
    await waitFor(() => changedEvents(events, id).find((e) => e.data.status === 'docked'));
  });
});
