import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../../shared/bus.js';
import { ManualClock } from '../../../shared/clock.js';
import { seedRows } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { appointmentRow, appointmentRows, changedEvents, checkIn, historyOf } from './gate-fixture.js';

/**
 * docs/domain.md "Appointments": a scheduled appointment not arrived noShowAfterMinutes after its
 * start becomes a no-show, at that moment, by the sweep that runs where arrivals are known (the
 * edge); never at the cloud. Staff may undo a no-show; a no-show that comes is arrived, late.
 */
describe('the no-show sweep at an edge', () => {
  const clock = new ManualClock(Date.parse('2026-01-15T12:00:00Z'));
  let t: TestApp;
  let admin: Client;
  const events: PublishedEvent[] = [];
  let yardId: string;
  let fastYardId: string;
  let doorId: string;
  let fastDoorId: string;
  let carrierId: string;
  let loadTypeId: string;
  let fastLoadTypeId: string;

  beforeAll(async () => {
    t = await startTestApp({ clock });
    admin = new Client(t.url, t.adminToken);
    t.core.bus.subscribe((e) => events.push(e));
    const rowsOf = seedRows(t);
    yardId = await rowsOf.yard('DAL');
    fastYardId = await rowsOf.yard('FTW');
    doorId = await rowsOf.location(yardId, 'Door 1', 'door');
    fastDoorId = await rowsOf.location(fastYardId, 'Door 1', 'door');
    carrierId = await rowsOf.carrier('Acme', { scac: 'ACME' });
    const a = appointmentRows(t);
    // DAL has no scheduling config: the default noShowAfterMinutes, 60. FTW: 20.
    await a.config(fastYardId, { noShowAfterMinutes: 20, lateGraceMinutes: 10 });
    loadTypeId = await a.loadType(yardId);
    fastLoadTypeId = await a.loadType(fastYardId);
  });
  afterAll(() => t.close());

  const book = (startAt: string, extra: Record<string, unknown> = {}, fast = false) =>
    appointmentRows(t).appointment({
      yardId: fast ? fastYardId : yardId,
      doorId: fast ? fastDoorId : doorId,
      loadTypeId: fast ? fastLoadTypeId : loadTypeId,
      carrierId,
      startAt,
      extra,
    });

  it('marks what is due at its no-show time, by the yard’s noShowAfterMinutes, and nothing else', async () => {
    const due = await book('2026-01-15T10:59:00.000Z'); // + 60 min = 11:59, before now (12:00)
    const exactly = await book('2026-01-15T11:00:00.000Z'); // + 60 min = 12:00: due now
    const notYet = await book('2026-01-15T11:01:00.000Z');
    const fastDue = await book('2026-01-15T11:30:00.000Z', {}, true); // + 20 min = 11:50
    const arrived = await book('2026-01-15T09:00:00.000Z', { arrivedAt: clock.now(), arrival: 'late' });
    const cancelled = await book('2026-01-15T09:00:00.000Z', { cancelledAt: clock.now(), cancelReason: 'x' });

    const marked = await t.services.noShowSweep!.tick();

    expect(new Set(marked)).toEqual(new Set([due.id, exactly.id, fastDue.id]));
    expect((await appointmentRow(t.db, due.id)).no_show_at).toBe(Date.parse('2026-01-15T11:59:00Z'));
    expect((await appointmentRow(t.db, exactly.id)).no_show_at).toBe(Date.parse('2026-01-15T12:00:00Z'));
    expect((await appointmentRow(t.db, fastDue.id)).no_show_at).toBe(Date.parse('2026-01-15T11:50:00Z'));
    for (const untouched of [notYet, arrived, cancelled]) {
      expect((await appointmentRow(t.db, untouched.id)).no_show_at).toBeNull();
    }
    expect(await historyOf(t.db, due.id)).toEqual([
      {
        kind: 'no_show',
        from_status: 'scheduled',
        to_status: 'no_show',
        actor_kind: 'system',
        reason: null,
        // When the sweep recorded it (the no-show's own time is noShowAt).
        at: clock.now(),
      },
    ]);
    expect(changedEvents(events, due.id).at(-1)?.data).toMatchObject({ status: 'no_show' });
    // A second sweep finds nothing more.
    expect(await t.services.noShowSweep!.tick()).toEqual([]);
  });

  it('a no-show checked in later is arrived, late; its history keeps both', async () => {
    const { id } = await book('2026-01-15T10:00:00.000Z');
    await t.services.noShowSweep!.tick();
    clock.advance(60_000);
    await checkIn(admin, {
      yardId,
      appointmentId: id,
      trailer: { number: 'NS-1', carrierId },
    });
    expect(await appointmentRow(t.db, id)).toMatchObject({ arrival: 'late', arrived_at: clock.now() });
    expect((await historyOf(t.db, id)).map((h) => [h.kind, h.to_status])).toEqual([
      ['no_show', 'no_show'],
      ['arrived', 'arrived'],
    ]);
  });

  it('undone by hand it is scheduled again, and the sweep does not mark it again', async () => {
    const { id } = await book('2026-01-15T10:30:00.000Z');
    await t.services.noShowSweep!.tick();
    const res = await admin.post(`/api/appointment/${id}/status`, {
      to: 'scheduled',
      reason: 'driver called, delayed',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'scheduled', noShowAt: null });
    expect((await historyOf(t.db, id)).at(-1)).toMatchObject({
      kind: 'no_show_undone',
      from_status: 'no_show',
      to_status: 'scheduled',
      actor_kind: 'user',
      reason: 'driver called, delayed',
    });
    expect(await t.services.noShowSweep!.tick()).toEqual([]);
    expect((await appointmentRow(t.db, id)).no_show_at).toBeNull();
  });
});

describe.each(TEST_DIALECTS)('the cloud (%s) runs no sweep', (dialect) => {
  let t: TestApp<import('../../../shared/db/database.js').AppDatabase>;
  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
  });
  afterAll(() => t.close());

  it('has no no-show sweep: an overdue appointment stays scheduled there', () => {
    expect(t.services.noShowSweep).toBeNull();
  });
});
