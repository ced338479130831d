import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { Client } from '../../helpers/http.js';
import { startTwoDriverWorld, type TaskWorld } from '../tasks/fixture.js';
import { appointmentRows, checkIn } from './gate-fixture.js';

/**
 * The detention report from what the gate records (docs/domain.md "Wait and detention"): at a
 * standalone edge, a truck checks in for its appointment late, straight to a door, with a photo,
 * and leaves later. By hand: start 15:00Z, arrived 15:40Z (late: past the 15 minutes of grace),
 * docked at once (checked in to the door), out 18:40Z with trailer and truck in one movement.
 * clock start 15:40; wait 0; turn 180; detention 180 - 120 = 60. One check-in, one check-out.
 */
describe('detention report from the gate’s own records', () => {
  const T0 = Date.parse('2026-03-10T15:00:00Z');
  const clock = new ManualClock(T0);
  let w: TaskWorld;
  let admin: Client;
  let appointmentId: string;
  let checkInId: string;
  let checkOutId: string;
  let photo: string;

  beforeAll(async () => {
    ({ w } = await startTwoDriverWorld(clock));
    admin = w.admin;
    const loadTypeId = await appointmentRows(w.t).loadType(w.yardId);
    appointmentId = (
      await appointmentRows(w.t).appointment({
        yardId: w.yardId,
        doorId: w.door,
        loadTypeId,
        carrierId: w.carrierId,
        startAt: new Date(T0).toISOString(),
      })
    ).id;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9, 8, 7])]), 'gate.jpg');
    const uploaded = await admin.post('/api/attachment', form);
    expect(uploaded.status, uploaded.text).toBe(201);
    photo = uploaded.body.id;

    clock.set(T0 + 40 * 60_000);
    const moved = await checkIn(admin, {
      yardId: w.yardId,
      appointmentId,
      trailer: { number: 'DET-1', carrierId: w.carrierId },
      truck: { plate: 'TX-DET1' },
      locationId: w.door,
      attachmentIds: [photo],
    });
    checkInId = moved.id;
    clock.set(T0 + 220 * 60_000);
    const out = await admin.post('/api/movement', {
      yardId: w.yardId,
      direction: 'out',
      trailer: { id: moved.trailerId },
      truck: { id: moved.truckId },
    });
    expect(out.status, out.text).toBe(201);
    checkOutId = out.body.id;
  });
  afterAll(() => w?.t.close());

  it('shows the late arrival’s clock, wait, turn and detention with both gate movements', async () => {
    const res = await admin.get(
      `/api/appointment/detention?yardId=${w.yardId}&from=2026-03-10T00:00:00Z&to=2026-03-11T00:00:00Z`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.items).toHaveLength(1);
    const item = res.body.items[0];
    expect(item).toMatchObject({
      id: appointmentId,
      arrival: 'late',
      arrivedAt: '2026-03-10T15:40:00.000Z',
      dockedAt: '2026-03-10T15:40:00.000Z',
      departedAt: '2026-03-10T18:40:00.000Z',
      clockStartAt: '2026-03-10T15:40:00.000Z',
      waitMinutes: 0,
      turnMinutes: 180,
      detentionMinutes: 60,
    });
    expect(item.movements.map((m: any) => [m.id, m.direction, m.at, m.trailerNumber, m.truckPlate])).toEqual([
      [checkInId, 'in', '2026-03-10T15:40:00.000Z', 'DET-1', 'TX-DET1'],
      [checkOutId, 'out', '2026-03-10T18:40:00.000Z', 'DET-1', 'TX-DET1'],
    ]);
    expect(item.movements[0].attachmentIds).toEqual([photo]);
  });
});
