import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from './fixture.js';

/**
 * Availability answers are kept between writes (appointments/availability-cache.ts) and are never
 * stale: a booking, a cancellation, a door's capacity, the scheduling config and the passing of
 * the lead time each change the next answer; on PostgreSQL also when the write went through the
 * other cloud node. The yard (fixture.ts): Monday 2026-03-02 12:00 in Chicago is 06:00 local, lead
 * time 2 hours, doors "Door 2" and "Door 10", a 60-minute load type.
 */
describe.each(TEST_DIALECTS)('availability between writes (%s)', (dialect) => {
  const nodes: Array<TestApp<AppDatabase>> = [];
  const clocks: ManualClock[] = [];
  let admin: Client;
  let other: Client;
  let y: Awaited<ReturnType<typeof bookableYard>>;
  const DAY = '2026-03-03';
  const at8 = '2026-03-03T08:00:00-06:00';

  const slots = async (as: Client = admin, date = DAY) => {
    const res = await as.get(
      `/api/appointment/availability?yardId=${y.yardId}&loadTypeId=${y.loadTypeId}&date=${date}`,
    );
    expect(res.status, res.text).toBe(200);
    return res.body.slots as Array<{ startAt: string; doors: Array<{ name: string }> }>;
  };
  const doorsAt = async (startAt: string, as: Client = admin) =>
    (await slots(as)).find((s) => s.startAt === startAt)?.doors.map((d) => d.name) ?? [];

  beforeAll(async () => {
    clocks.push(new ManualClock(Date.parse(NOW)));
    // Started: on PostgreSQL that is when a node begins to hear the others' commits.
    const first = await startTestApp({ dialect, clock: clocks[0], env: { YARD_ROLE: 'cloud' }, start: true });
    nodes.push(first);
    if (dialect === 'postgres') {
      clocks.push(new ManualClock(Date.parse(NOW)));
      nodes.push(
        await startTestApp({
          dialect,
          postgresUrl: first.postgresUrl!,
          clock: clocks[1],
          env: { YARD_ROLE: 'cloud' },
          start: true,
        }),
      );
    }
    admin = new Client(nodes[0]!.url, nodes[0]!.adminToken);
    other = new Client(nodes.at(-1)!.url, nodes.at(-1)!.adminToken);
    y = await bookableYard(admin);
  });
  afterAll(async () => {
    for (const node of [...nodes].reverse()) await node.close();
  });

  it('a booking and its cancellation change the next answer, through either node', async () => {
    expect(await doorsAt(at8)).toEqual(['Door 2', 'Door 10']);
    expect(await doorsAt(at8)).toEqual(['Door 2', 'Door 10']); // asked again: the kept answer
    const booked = await other.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: at8,
    });
    expect(booked.status, booked.text).toBe(201);
    // The other node's commit reaches this one as a signal; wait for it rather than for a time.
    await expect.poll(() => doorsAt(at8), { timeout: 5_000 }).toEqual(['Door 10']);
    const cancelled = await other.post(`/api/appointment/${booked.body.id}/cancel`, { reason: 'not needed' });
    expect(cancelled.status, cancelled.text).toBe(200);
    await expect.poll(() => doorsAt(at8), { timeout: 5_000 }).toEqual(['Door 2', 'Door 10']);
  });

  it("a door's capacity and the opening hours change the next answer", async () => {
    const booked = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: at8,
    });
    expect(booked.body.doorName, booked.text).toBe('Door 2');
    expect(await doorsAt(at8)).toEqual(['Door 10']);
    const wider = await other.patch(`/api/yard/${y.yardId}/location/${y.doors['Door 2']}`, { capacity: 2 });
    expect(wider.status, wider.text).toBe(200);
    await expect.poll(() => doorsAt(at8), { timeout: 5_000 }).toEqual(['Door 2', 'Door 10']);

    const config = await admin.get(`/api/appointment/config/${y.yardId}`);
    const later = await other.put(
      `/api/appointment/config/${y.yardId}`,
      {
        enabled: true,
        openHours: { 1: [{ from: '06:00', to: '18:00' }], 2: [{ from: '09:00', to: '18:00' }] },
      },
      { 'if-match': config.headers.get('etag') ?? '' },
    );
    expect(later.status, later.text).toBe(200);
    await expect
      .poll(async () => (await slots())[0]?.startAt, { timeout: 5_000 })
      .toBe('2026-03-03T09:00:00-06:00');
  });

  it('drops a start once it is closer than the lead time, with no write in between', async () => {
    const today = '2026-03-02';
    const first = (await slots(admin, today))[0]?.startAt;
    // 06:00 now, 2 hours' lead time: 08:00 is the first start today.
    expect(first).toBe('2026-03-02T08:00:00-06:00');
    expect((await slots(admin, today))[0]?.startAt).toBe(first);
    for (const c of clocks) c.set('2026-03-02T12:00:00.001Z'); // 06:00:00.001
    expect((await slots(admin, today))[0]?.startAt).toBe('2026-03-02T08:15:00-06:00');
  });
});
