import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveEvent } from '../../../shared/modules/platform/live-events.js';
import { EventStream } from '../../helpers/sse-client.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { checkIn, cloudMasterData, type MasterData } from './link-fixture.js';

/**
 * The gate house's link badge follows the edge's link live: `sync.link` on the edge's event stream
 * when the link goes down or up and when its queue changes, and `linkSince` in its sync status.
 */
let h: SyncHarness;
let m: MasterData;
let events: EventStream;

beforeAll(async () => {
  h = await startSyncHarness();
  m = await cloudMasterData(h.cloud.client, 'site-a');
  await h.converged(edge());
  events = await EventStream.open(edge().app.url, edge().client.token);
});
afterAll(async () => {
  events?.close();
  await h?.close();
});

const edge = () => h.edges[0]!;
const linkEvents = () => events.events.filter((e) => e.event === 'sync.link').map((e) => e.data.data);
const status = async () => (await edge().client.get('/api/sync/status')).body;

// Edge-only behaviour (the edge's link state and events): SQLite, as every edge.
describe('sync.link on the edge', () => {
  it('the link goes down: sync.link offline arrives and the status says since when; back: online', async () => {
    const before = await status();
    expect(before).toMatchObject({ mode: 'linked', link: 'online' });
    // The link came up when the edge started: that was a change of state.
    expect(Date.parse(before.linkSince)).toBeGreaterThan(0);

    const cutAt = Date.now();
    await h.cut(edge());
    await events.until(() => linkEvents().some((e) => e.link === 'offline'), 10_000);
    const offline = linkEvents().find((e) => e.link === 'offline');
    expect(Date.parse(offline.since)).toBeGreaterThanOrEqual(cutAt - 5);
    const down = await status();
    expect(down).toMatchObject({ link: 'offline', linkSince: offline.since });

    // Work at the gate while offline: the queue grows, and the badge hears of it (throttled).
    await checkIn(edge().client, m, 'LINK-1');
    await checkIn(edge().client, m, 'LINK-2');
    await events.until(() => linkEvents().some((e) => e.link === 'offline' && e.queued > 0), 10_000);
    const queued = (await status()).queued;
    await events.until(() => linkEvents().at(-1)?.queued === queued, 10_000);
    expect(linkEvents().at(-1)).toEqual({ link: 'offline', since: offline.since, queued });

    await h.restore(edge());
    await events.until(
      () => linkEvents().some((e) => e.link === 'online' && e.since !== offline.since),
      10_000,
    );
    const online = linkEvents().find((e) => e.link === 'online' && e.since !== offline.since);
    expect(Date.parse(online.since)).toBeGreaterThanOrEqual(Date.parse(offline.since));
    expect((await status()).linkSince).toBe(online.since);
    // Once the queue is sent, the last event says so: the trailing event always follows.
    await events.until(
      () => linkEvents().at(-1)?.link === 'online' && linkEvents().at(-1)?.queued === 0,
      10_000,
    );
  });

  it('each is the documented LiveEvent (SyncLinkEvent)', () => {
    const sent = events.events.filter((e) => e.event === 'sync.link');
    expect(sent.length).toBeGreaterThan(0);
    for (const e of sent) expect(LiveEvent.safeParse(e.data).error).toBeUndefined();
  });

  it('at most one sync.link per 2 s', async () => {
    const times = events.events.filter((e) => e.event === 'sync.link').map((e) => Date.parse(e.data.at));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1_900);
  });

  it('a driver does not receive it', async () => {
    await waitFor(async () => (await status()).link === 'online', { what: 'edge online' });
    const pin = await edge()
      .client.as(undefined)
      .post('/api/auth/driver-login', { driverCode: m.driverCode, pin: '2468' });
    expect(pin.status, pin.text).toBe(200);
    const driver = await EventStream.open(edge().app.url, pin.body.token);
    const staff = await EventStream.open(edge().app.url, edge().client.token);
    try {
      await h.cut(edge());
      await staff.until(() => staff.types().includes('sync.link'), 10_000);
      expect(driver.types()).not.toContain('sync.link');
    } finally {
      driver.close();
      staff.close();
      await h.restore(edge());
    }
  });
});
