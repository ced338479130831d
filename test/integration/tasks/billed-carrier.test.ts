import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { seedRows } from '../../helpers/builders.js';
import { type Client, query } from '../../helpers/http.js';
import { act, createTask, startTwoDriverWorld, type TaskWorld } from './fixture.js';

/**
 * docs/domain.md "Working a task" (DOMAIN.md "Yard tasks"): completing a relocating task bills one
 * move to the carrier of the trailer's open visit, i.e. the carrier on its in-movement (a pooled
 * trailer's is not the carrier on its record); the trailer's own carrier only when it has no open
 * visit. A trailer that left the yard before the task was completed is not placed on a spot.
 * At an edge (drivers complete their tasks there), through real gate movements.
 */
let w: TaskWorld;
let admin: Client;
let jo: { id: string; client: Client };
let pool: string;
const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));

beforeAll(async () => {
  ({ w, jo } = await startTwoDriverWorld(clock));
  admin = w.admin;
  pool = await seedRows(w.t).carrier('Pool Fleet', { scac: 'POOL' });
});
afterAll(() => w.t.close());

async function gate(direction: 'in' | 'out', trailerId: string, carrierId?: string, locationId?: string) {
  clock.advance(60_000);
  const res = await admin.post('/api/movement', {
    yardId: w.yardId,
    direction,
    trailer: { id: trailerId },
    ...(carrierId ? { carrierId } : {}),
    ...(locationId ? { locationId } : {}),
  });
  expect(res.status, res.text).toBe(201);
}

/** A move of the trailer from spot 0 to spot 1, assigned to Jo and started. */
async function startedMove(trailerId: string, type = 'move') {
  const task = await createTask(w, {
    type,
    trailerId,
    fromLocationId: w.spots[0],
    toLocationId: w.spots[1],
    driverId: jo.id,
  });
  expect((await act(jo.client, 'start', task.id)).ok).toBe(true);
  return task as { id: string };
}

const trailerRow = async (id: string) =>
  (await query(w.t.db, 'SELECT yard_id, location_id, carrier_id FROM trailer WHERE id = ?', id))[0];

describe('the carrier a completed move is billed to', () => {
  it('a pooled trailer checked in for another carrier: that carrier, not the one on its record', async () => {
    const trailerId = await seedRows(w.t).trailer({ carrierId: w.carrierId, number: 'PL-1' });
    await gate('in', trailerId, pool, w.spots[0]);
    const task = await startedMove(trailerId, 'shunt');
    const done = await act(jo.client, 'complete', task.id);
    expect(done.task).toMatchObject({ status: 'COMPLETED', billedCarrierId: pool });
    expect(await trailerRow(trailerId)).toEqual({
      yard_id: w.yardId,
      location_id: w.spots[1],
      carrier_id: w.carrierId,
    });
  });

  it('a trailer with no carrier of its own: the carrier of its visit', async () => {
    const created = await admin.post('/api/trailer', { number: 'NC-1' });
    expect(created.status, created.text).toBe(201);
    await gate('in', created.body.id, pool, w.spots[0]);
    const task = await startedMove(created.body.id);
    const done = await act(jo.client, 'complete', task.id);
    expect(done.task).toMatchObject({ status: 'COMPLETED', billedCarrierId: pool });
  });

  it('a trailer with no open visit: its own carrier', async () => {
    // The world's TR-1 stands in the yard without a recorded visit (seeded directly).
    const task = await startedMove(w.trailerId, 'return_to_spot');
    const done = await act(jo.client, 'complete', task.id);
    expect(done.task).toMatchObject({ status: 'COMPLETED', billedCarrierId: w.carrierId });
  });

  it('a trailer that left the yard before the task was completed is placed on no spot', async () => {
    const trailerId = await seedRows(w.t).trailer({ carrierId: w.carrierId, number: 'GO-1' });
    await gate('in', trailerId, pool, w.spots[0]);
    const task = await startedMove(trailerId);
    await gate('out', trailerId, pool);
    const before = await query(w.t.db, 'SELECT version FROM trailer WHERE id = ?', trailerId);
    const done = await act(jo.client, 'complete', task.id);
    // Gone: no open visit, so the trailer's own carrier; and it stays out of every yard and spot.
    expect(done.task).toMatchObject({ status: 'COMPLETED', billedCarrierId: w.carrierId });
    expect(await trailerRow(trailerId)).toEqual({
      yard_id: null,
      location_id: null,
      carrier_id: w.carrierId,
    });
    expect(await query(w.t.db, 'SELECT version FROM trailer WHERE id = ?', trailerId)).toEqual(before);
    const api = await admin.get(`/api/trailer/${trailerId}`);
    expect(api.body).toMatchObject({ yardId: null, locationId: null });
  });
});
