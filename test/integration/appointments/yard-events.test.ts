import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { seedRows } from '../../helpers/builders.js';
import type { Client } from '../../helpers/http.js';
import { waitFor } from '../../helpers/wait-for.js';
import { act, createTask, startTwoDriverWorld, type TaskWorld } from '../tasks/fixture.js';
import { appointmentRow, appointmentRows, changedEvents, checkIn, historyOf } from './gate-fixture.js';

/**
 * docs/domain.md "Appointments": docked, completed and departed follow from the yard. Docked when
 * the appointment's trailer is placed at a door (check-in to a door, a relocating task completed to
 * a door); completed when it leaves that door or the yard; departed on the truck's (else the
 * trailer's) check-out. At an edge, where the gate and the drivers are.
 */
const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));
let w: TaskWorld;
let admin: Client;
let jo: { id: string; client: Client };
let loadTypeId: string;
let seq = 0;

beforeAll(async () => {
  ({ w, jo } = await startTwoDriverWorld(clock));
  admin = w.admin;
  loadTypeId = await appointmentRows(w.t).loadType(w.yardId);
});
afterAll(() => w.t.close());

const iso = (ms: number) => new Date(ms).toISOString();

async function booked() {
  return appointmentRows(w.t).appointment({
    yardId: w.yardId,
    doorId: w.door,
    loadTypeId,
    carrierId: w.carrierId,
    startAt: iso(clock.now()),
  });
}

/** Checks in a new trailer (and a truck when `plate`) for the appointment; returns the movement. */
async function arrive(appointmentId: string, locationId: string, plate?: string) {
  clock.advance(60_000);
  return checkIn(admin, {
    yardId: w.yardId,
    appointmentId,
    trailer: { number: `YE-${++seq}`, carrierId: w.carrierId },
    ...(plate ? { truck: { plate } } : {}),
    locationId,
  });
}

async function checkOut(units: { trailerId?: string; truckId?: string }) {
  clock.advance(60_000);
  const res = await admin.post('/api/movement', {
    yardId: w.yardId,
    direction: 'out',
    ...(units.trailerId ? { trailer: { id: units.trailerId } } : {}),
    ...(units.truckId ? { truck: { id: units.truckId } } : {}),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A relocating task of the trailer to `to`, done by Jo; returns when it was completed. */
async function moveByTask(trailerId: string, from: string, to: string) {
  const task = await createTask(w, {
    type: 'move',
    trailerId,
    fromLocationId: from,
    toLocationId: to,
    driverId: jo.id,
  });
  expect((await act(jo.client, 'start', task.id)).ok).toBe(true);
  clock.advance(60_000);
  expect((await act(jo.client, 'complete', task.id)).task).toMatchObject({ status: 'COMPLETED' });
  return clock.now();
}

const kinds = async (id: string) => (await historyOf(w.t.db, id)).map((h) => `${h.kind}:${h.to_status}`);

describe('docked', () => {
  it('a check-in straight to a door: arrived and docked at the check-in', async () => {
    const { id } = await booked();
    const m = await arrive(id, w.door);
    expect(await appointmentRow(w.t.db, id)).toMatchObject({
      arrived_at: Date.parse(m.at),
      docked_at: Date.parse(m.at),
      completed_at: null,
    });
    expect(await kinds(id)).toEqual(['arrived:arrived', 'docked:docked']);
  });

  it('a relocating task completed to a door docks it; one that takes it off the door completes it', async () => {
    const { id } = await booked();
    const m = await arrive(id, w.spots[0]!);
    expect((await appointmentRow(w.t.db, id)).docked_at).toBeNull();

    const dockedAt = await moveByTask(m.trailerId, w.spots[0]!, w.door);
    expect(await appointmentRow(w.t.db, id)).toMatchObject({ docked_at: dockedAt, completed_at: null });
    await waitFor(() => changedEvents(w.events, id).find((e) => e.data.status === 'docked'));

    const completedAt = await moveByTask(m.trailerId, w.door, w.spots[1]!);
    expect(await appointmentRow(w.t.db, id)).toMatchObject({
      docked_at: dockedAt,
      completed_at: completedAt,
    });
    expect(await historyOf(w.t.db, id)).toMatchObject([
      { kind: 'arrived', actor_kind: 'user' },
      { kind: 'docked', from_status: 'arrived', to_status: 'docked', actor_kind: 'system', at: dockedAt },
      {
        kind: 'completed',
        from_status: 'docked',
        to_status: 'completed',
        actor_kind: 'system',
        at: completedAt,
      },
    ]);
    await waitFor(() => changedEvents(w.events, id).find((e) => e.data.status === 'completed'));
  });

  it('a move to a spot that is no door leaves it arrived', async () => {
    const { id } = await booked();
    const m = await arrive(id, w.spots[0]!);
    await moveByTask(m.trailerId, w.spots[0]!, w.spots[1]!);
    expect(await appointmentRow(w.t.db, id)).toMatchObject({ docked_at: null, completed_at: null });
    expect(await kinds(id)).toEqual(['arrived:arrived']);
  });

  it('an appointment cancelled after its arrival (turned away) is not docked by a move to a door', async () => {
    const { id } = await booked();
    const m = await arrive(id, w.spots[0]!);
    await w.t.core.changes.update(w.t.core.kysely, 'appointment', id, {
      cancelledAt: clock.now(),
      cancelReason: 'refused',
    });
    await moveByTask(m.trailerId, w.spots[0]!, w.door);
    expect((await appointmentRow(w.t.db, id)).docked_at).toBeNull();
  });
});

describe('completed and departed at the gate', () => {
  it('trailer and truck leave together: completed and departed at the check-out', async () => {
    const { id } = await booked();
    const m = await arrive(id, w.door, `TX ${++seq}`);
    const out = await checkOut({ trailerId: m.trailerId, truckId: m.truckId });
    expect(await appointmentRow(w.t.db, id)).toMatchObject({
      completed_at: Date.parse(out.at),
      departed_at: Date.parse(out.at),
    });
    expect(await kinds(id)).toEqual([
      'arrived:arrived',
      'docked:docked',
      'completed:completed',
      'departed:completed',
    ]);
    expect(changedEvents(w.events, id).at(-1)?.data).toMatchObject({
      status: 'completed',
      departedAt: out.at,
    });
  });

  it('a drop: the truck leaves first (departed), the trailer docks and leaves later (completed)', async () => {
    const { id } = await booked();
    const m = await arrive(id, w.spots[0]!, `TX ${++seq}`);
    const truckOut = await checkOut({ truckId: m.truckId });
    expect(await appointmentRow(w.t.db, id)).toMatchObject({
      departed_at: Date.parse(truckOut.at),
      completed_at: null,
    });
    expect(await kinds(id)).toEqual(['arrived:arrived', 'departed:arrived']);

    await moveByTask(m.trailerId, w.spots[0]!, w.door);
    const trailerOut = await checkOut({ trailerId: m.trailerId });
    expect(await appointmentRow(w.t.db, id)).toMatchObject({
      departed_at: Date.parse(truckOut.at),
      completed_at: Date.parse(trailerOut.at),
    });
    expect(await kinds(id)).toEqual([
      'arrived:arrived',
      'departed:arrived',
      'docked:docked',
      'completed:completed',
    ]);
  });

  it('a trailer checked in without a truck departs with its own check-out', async () => {
    const { id } = await booked();
    const m = await arrive(id, w.spots[0]!);
    const out = await checkOut({ trailerId: m.trailerId });
    expect(await appointmentRow(w.t.db, id)).toMatchObject({
      completed_at: Date.parse(out.at),
      departed_at: Date.parse(out.at),
    });
  });

  it("another trailer's check-out changes nothing", async () => {
    const { id } = await booked();
    await arrive(id, w.door);
    const before = await appointmentRow(w.t.db, id);
    const other = await seedRows(w.t).trailer({ carrierId: w.carrierId, number: `OT-${++seq}` });
    await checkIn(admin, { yardId: w.yardId, trailer: { id: other } });
    await checkOut({ trailerId: other });
    expect(await appointmentRow(w.t.db, id)).toEqual(before);
  });
});
