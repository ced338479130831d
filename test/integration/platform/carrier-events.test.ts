import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../../helpers/builders.js';
import { carrierClient } from '../../helpers/carrier-user.js';
import { clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { EventStream } from '../../helpers/sse-client.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { arriveAt, bookAt, schedulingAt } from '../sync/appointments-fixture.js';
import { cloudMasterData, createTask, type MasterData } from '../sync/link-fixture.js';

const DAY = 86_400_000;

/**
 * A carrier user's live events (docs/api.md "Live events"): at the cloud its `/api/events` stream
 * carries the appointment changes of its own carrier, from a booking made there and from an
 * arrival made at the site's gate that reaches the cloud by sync, and nothing of the yard's
 * inventory, tasks or sync state, nor another carrier's appointments. A real cloud and edge over a
 * real broker.
 */
describe.each(TEST_DIALECTS)('carrier live events (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  let m: MasterData;
  let loadTypeId: string;
  let own: EventStream;
  let other: EventStream;
  let staff: EventStream;
  let appointmentId: string;

  const changesOf = (stream: EventStream, id: string) =>
    stream.events.filter((e) => e.event === 'appointment.changed' && e.data.data.id === id);

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, sites: ['site-a'] });
    const cloud = h.cloud.client;
    m = await cloudMasterData(cloud, 'site-a', 'A');
    loadTypeId = await schedulingAt(cloud, m);
    const otherCarrier = (await seed(cloud).carrier({ name: 'Other Lines' })).id as string;
    const ownUser = await carrierClient(cloud, m.carrierId);
    const otherUser = await carrierClient(cloud, otherCarrier);
    const viewer = await clientWithRole(cloud, 'viewer');
    own = await EventStream.open(cloud.baseUrl, ownUser.token);
    other = await EventStream.open(cloud.baseUrl, otherUser.token);
    staff = await EventStream.open(cloud.baseUrl, viewer.token);
  }, 90_000);
  afterAll(async () => {
    for (const s of [own, other, staff]) s?.close();
    await h?.close();
  });

  it('a booking at the cloud reaches its carrier, not another carrier', async () => {
    // Next Tuesday 10:00 in the yard's zone (America/Chicago, UTC-5/-6): within the open hours.
    const tuesday = nextWeekday(2, Date.now() + 2 * DAY);
    appointmentId = await bookAt(h.cloud.client, m, loadTypeId, tuesday);
    await own.until(() => changesOf(own, appointmentId).length > 0);
    const [event] = changesOf(own, appointmentId);
    expect(event!.data.data).toMatchObject({
      id: appointmentId,
      carrierId: m.carrierId,
      status: 'scheduled',
    });
    await staff.until(() => changesOf(staff, appointmentId).length > 0);
    expect(changesOf(other, appointmentId)).toEqual([]);
    // The carrier reads it as its API reads show it: without the office's override and author.
    expect(changesOf(staff, appointmentId)[0]!.data.data.overrideReason).toBe('sync test booking');
    expect(event!.data.data).toMatchObject({ overrideReason: null, createdBy: null });
  });

  it('an arrival made at the site reaches the carrier at the cloud by sync, live', async () => {
    const edge = h.edges[0]!.client;
    await arriveAt(edge, m, appointmentId);
    await own.until(
      () => changesOf(own, appointmentId).some((e) => e.data.data.status === 'arrived'),
      20_000,
    );
    const arrived = changesOf(own, appointmentId).find((e) => e.data.data.status === 'arrived')!;
    expect(arrived.data.data.arrivedAt).not.toBeNull();
    expect(arrived.data.carrierId ?? arrived.data.data.carrierId).toBe(m.carrierId);
    expect(changesOf(other, appointmentId)).toEqual([]);
  });

  it('yard inventory, tasks and sync state never reach a carrier user', async () => {
    await createTask(h.cloud.client, m);
    await staff.untilEvent('task.created');
    // Staff saw the sync traffic and the yard's records; the carriers saw appointments only.
    expect(staff.types()).toEqual(expect.arrayContaining(['sync.applied', 'task.created']));
    for (const stream of [own, other]) {
      expect(stream.types().filter((t) => t !== 'appointment.changed')).toEqual([]);
    }
  });
});

/** The first `weekday` (0 = Sunday) at 16:00 UTC (10:00 or 11:00 in Chicago) on or after `from`. */
function nextWeekday(weekday: number, from: number): number {
  const d = new Date(from);
  d.setUTCHours(16, 0, 0, 0);
  while (d.getUTCDay() !== weekday) d.setUTCDate(d.getUTCDate() + 1);
  return d.getTime();
}
