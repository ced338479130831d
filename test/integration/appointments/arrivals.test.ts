import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../../shared/bus.js';
import { ManualClock } from '../../../shared/clock.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  appointmentRow,
  appointmentRows,
  changedEvents,
  checkIn,
  historyOf,
  serveOfflineLinkedEdge,
} from './gate-fixture.js';

/**
 * docs/domain.md "Appointments", at the gate: a check-in that names an appointment records its
 * arrival (early / on time / late by lateGraceMinutes; a no-show that comes is arrived, late) in the
 * check-in's transaction, and the movement keeps the appointment it matched. Recording movements
 * is the edge's (SQLite); a linked edge does it offline too.
 */
const START = '2026-01-15T15:00:00.000Z';
const clock = new ManualClock(Date.parse('2026-01-15T17:00:00Z'));
let t: TestApp;
let admin: Client;
const events: PublishedEvent[] = [];
let yardId: string;
let otherYardId: string;
let spotId: string;
let doorId: string;
let otherDoorId: string;
let carrierId: string;
let loadTypeId: string;
let otherLoadTypeId: string;
let seq = 0;

beforeAll(async () => {
  t = await startTestApp({ clock });
  admin = new Client(t.url, t.adminToken);
  t.core.bus.subscribe((e) => events.push(e));
  const rowsOf = seedRows(t);
  yardId = await rowsOf.yard('DAL');
  otherYardId = await rowsOf.yard('HOU');
  spotId = await rowsOf.location(yardId, 'A-01');
  doorId = await rowsOf.location(yardId, 'Door 1', 'door');
  otherDoorId = await rowsOf.location(otherYardId, 'Door 9', 'door');
  carrierId = await rowsOf.carrier('Acme', { scac: 'ACME' });
  const a = appointmentRows(t);
  await a.config(yardId, { lateGraceMinutes: 15 });
  loadTypeId = await a.loadType(yardId);
  otherLoadTypeId = await a.loadType(otherYardId);
});
afterAll(() => t.close());

const book = (extra: Record<string, unknown> = {}, startAt = START) =>
  appointmentRows(t).appointment({ yardId, doorId, loadTypeId, carrierId, startAt, extra });

/** A check-in of a new trailer at `at` (ISO) naming the appointment, parked on a spot. */
const arrive = (appointmentId: string, at: string) =>
  checkIn(admin, {
    yardId,
    at,
    appointmentId,
    trailer: { number: `AR-${++seq}`, carrierId },
    locationId: spotId,
  });

const count = async (table: string) =>
  (await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

describe('a check-in with appointmentId', () => {
  it('records the arrival on time, links the movement both ways, keeps the history and tells the watchers', async () => {
    const { id } = await book();
    const movement = await arrive(id, '2026-01-15T15:10:00.000Z');
    expect(movement.appointmentId).toBe(id);
    expect((await query(t.db, 'SELECT appointment_id FROM movement WHERE id = ?', movement.id))[0]).toEqual({
      appointment_id: id,
    });
    expect(await appointmentRow(t.db, id)).toMatchObject({
      arrived_at: Date.parse('2026-01-15T15:10:00Z'),
      arrival: 'on_time',
      movement_id: movement.id,
      docked_at: null,
      no_show_at: null,
    });
    expect(await historyOf(t.db, id)).toEqual([
      {
        kind: 'arrived',
        from_status: 'scheduled',
        to_status: 'arrived',
        actor_kind: 'user',
        reason: null,
        // When it was recorded (the arrival's own time is arrivedAt).
        at: clock.now(),
      },
    ]);
    const [changed] = changedEvents(events, id);
    expect(changed).toMatchObject({
      yardId,
      data: { id, status: 'arrived', arrival: 'on_time', movementId: movement.id },
    });
  });

  it.each([
    ['16 minutes early', 'early', '2026-01-15T14:44:00.000Z'],
    ['15 minutes early (the grace)', 'on_time', '2026-01-15T14:45:00.000Z'],
    ['15 minutes late (the grace)', 'on_time', '2026-01-15T15:15:00.000Z'],
    ['16 minutes late', 'late', '2026-01-15T15:16:00.000Z'],
  ])('%s is %s', async (_label, arrival, at) => {
    const { id } = await book();
    await arrive(id, at);
    expect((await appointmentRow(t.db, id)).arrival).toBe(arrival);
  });

  it('a no-show that comes after all is arrived, late, and keeps the time it was marked', async () => {
    const noShowAt = Date.parse('2026-01-15T16:00:00Z');
    const { id } = await book({ noShowAt });
    await arrive(id, '2026-01-15T16:30:00.000Z');
    expect(await appointmentRow(t.db, id)).toMatchObject({ arrival: 'late', no_show_at: noShowAt });
    expect((await admin.get(`/api/movement?yardId=${yardId}&limit=1`)).status).toBe(200);
    expect(await historyOf(t.db, id)).toMatchObject([
      { kind: 'arrived', from_status: 'no_show', to_status: 'arrived' },
    ]);
  });

  it('a walk-in (no appointmentId) is recorded as before and touches no appointment', async () => {
    const { id } = await book();
    const before = await appointmentRow(t.db, id);
    const movement = await checkIn(admin, { yardId, trailer: { number: `WALK-${++seq}`, carrierId } });
    expect(movement.appointmentId).toBeNull();
    expect(await appointmentRow(t.db, id)).toEqual(before);
  });
});

describe('an appointment the check-in may not match: refused, nothing recorded', () => {
  const refused = async (appointmentId: string, status: number, code: string) => {
    const before = {
      movements: await count('movement'),
      trailers: await count('trailer'),
      log: await count('change_log'),
    };
    const res = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      appointmentId,
      trailer: { number: `NO-${++seq}`, carrierId },
    });
    expect(res.status, res.text).toBe(status);
    expect(res.body.code).toBe(code);
    expect({
      movements: await count('movement'),
      trailers: await count('trailer'),
      log: await count('change_log'),
    }).toEqual(before);
    return res.body;
  };

  it('of another yard, or unknown: 404', async () => {
    const other = await appointmentRows(t).appointment({
      yardId: otherYardId,
      doorId: otherDoorId,
      loadTypeId: otherLoadTypeId,
      carrierId,
      startAt: START,
    });
    await refused(other.id, 404, 'not-found');
    await refused('01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f', 404, 'not-found');
    expect((await appointmentRow(t.db, other.id)).arrived_at).toBeNull();
  });

  it('cancelled: 409 invalid-transition', async () => {
    const { id } = await book({ cancelledAt: clock.now(), cancelReason: 'carrier called' });
    const body = await refused(id, 409, 'invalid-transition');
    expect(body.detail).toBe('This appointment is cancelled: check in without it.');
  });

  it('arrived already: 409 invalid-transition', async () => {
    const { id } = await book();
    await arrive(id, '2026-01-15T15:00:00.000Z');
    const body = await refused(id, 409, 'invalid-transition');
    expect(body.detail).toBe('This appointment arrived already, at 15:00 UTC.');
  });

  it('on a check-out: 400 on appointmentId', async () => {
    const { id } = await book();
    const res = await admin.post('/api/movement', {
      yardId,
      direction: 'out',
      appointmentId: id,
      trailer: { number: `OUT-${++seq}`, carrierId },
      force: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('body.appointmentId');
  });
});

describe('at an edge linked to a cloud, with the cloud out of reach', () => {
  it('matches the arrival, docks it by hand, departs it at the check-out and sweeps no-shows; all logged for the cloud', async () => {
    const { id } = await book();
    const due = await book({}, '2026-01-15T10:00:00.000Z');
    const edge = await serveOfflineLinkedEdge(t);
    try {
      expect(edge.syncMode).toBe('linked');
      const movement = await checkIn(edge.admin, {
        yardId,
        at: '2026-01-15T15:20:00.000Z',
        appointmentId: id,
        trailer: { number: `LNK-${++seq}`, carrierId },
      });
      expect(movement.appointmentId).toBe(id);
      expect(await appointmentRow(t.db, id)).toMatchObject({ arrival: 'late', movement_id: movement.id });

      const docked = await edge.admin.post(`/api/appointment/${id}/status`, { to: 'docked' });
      expect(docked.status, docked.text).toBe(200);
      expect(docked.body).toMatchObject({ status: 'docked' });

      const out = await edge.admin.post('/api/movement', {
        yardId,
        direction: 'out',
        trailer: { id: movement.trailerId },
      });
      expect(out.status, out.text).toBe(201);
      expect(await appointmentRow(t.db, id)).toMatchObject({
        completed_at: Date.parse(out.body.at),
        departed_at: Date.parse(out.body.at),
      });

      expect(await edge.services.noShowSweep!.tick()).toContain(due.id);
      expect((await appointmentRow(t.db, due.id)).no_show_at).toBe(Date.parse('2026-01-15T11:00:00Z'));
      expect(changedEvents(edge.events, id).map((e) => e.data.status)).toEqual([
        'arrived',
        'docked',
        'completed',
      ]);

      // Everything goes to the cloud with the next sync: the appointment as it now stands and each
      // history row are logged for it.
      const [last] = await query(
        t.db,
        "SELECT data FROM change_log WHERE peer = 'cloud' AND entity = 'appointment' AND entity_id = ? ORDER BY seq DESC LIMIT 1",
        id,
      );
      expect(JSON.parse(last.data)).toMatchObject({
        arrivedAt: Date.parse('2026-01-15T15:20:00Z'),
        arrival: 'late',
        movementId: movement.id,
        dockedAt: clock.now(),
        completedAt: Date.parse(out.body.at),
        departedAt: Date.parse(out.body.at),
      });
      const history = await query(
        t.db,
        "SELECT data FROM change_log WHERE peer = 'cloud' AND entity = 'appointment_event' ORDER BY seq",
      );
      expect(
        history
          .map((h) => JSON.parse(h.data))
          .filter((e) => e.appointmentId === id)
          .map((e) => e.kind),
      ).toEqual(['arrived', 'docked', 'completed', 'departed']);
    } finally {
      await edge.close();
    }
  });
});
