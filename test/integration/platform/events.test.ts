import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import type { YardEvent } from '../../../shared/events.js';
import { newId } from '../../../shared/ids.js';
import { LiveEvent } from '../../../shared/modules/platform/live-events.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { EventStream } from '../../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** The live event stream at the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes"): who sees what, replay, ending. */
describe.each(TEST_DIALECTS)('live events at the cloud (%s)', (dialect) => {
  const w = world(() => startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } }));
  const { stream, driverToken, publish, endsAfter } = w;
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  beforeAll(() => {
    ({ t, admin, yardA, yardB } = w.get());
  });

  describe('GET /api/events', () => {
    it('needs a principal; answers an event stream', async () => {
      expect((await stream(undefined)).status).toBe(401);
      const s = await stream(t.adminToken);
      expect(s.status).toBe(200);
      expect(s.contentType).toContain('text/event-stream');
    });

    it('an admin receives every yard event, with id, event name and JSON data', async () => {
      const s = await stream(t.adminToken);
      const a = publish('movement.created', { yardId: yardA }, { movementId: 'm-1' });
      publish('trailer.updated', { yardId: yardB });
      publish('task.assigned', { driverId: newId() });
      publish('settings.changed');
      await s.untilEvent('settings.changed');
      expect(s.types()).toEqual(['movement.created', 'trailer.updated', 'task.assigned', 'settings.changed']);
      expect(s.events[0]).toEqual({
        id: t.core.bus.idOf(a.seq),
        event: 'movement.created',
        data: expect.objectContaining({
          type: 'movement.created',
          yardId: yardA,
          data: { movementId: 'm-1' },
        }),
      });
      expect(s.events[0]?.data.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    });

    it('a driver receives only events addressed to that driver', async () => {
      const me = await driverToken('SSE-1');
      const other = await driverToken('SSE-2');
      const s = await stream(me.token);
      publish('task.assigned', { driverId: other.id, yardId: yardA }, { taskId: 'not-mine' });
      publish('movement.created', { yardId: yardA });
      publish('settings.changed');
      publish('task.assigned', { driverId: me.id, yardId: yardA }, { taskId: 'mine' });
      publish('task.done-marker', { driverId: me.id });
      await s.untilEvent('task.done-marker');
      expect(s.types()).toEqual(['task.assigned', 'task.done-marker']);
      expect(s.events[0]?.data.data).toEqual({ taskId: 'mine' });
    });

    it('staff scoped to yard A do not receive yard B events (nor unscoped ones)', async () => {
      const viewer = await clientWithRole(admin, 'viewer', { yardIds: [yardA] });
      const s = await stream(viewer.token);
      publish('movement.created', { yardId: yardB }, { which: 'B' });
      publish('task.assigned', { driverId: newId() });
      publish('settings.changed');
      publish('movement.created', { yardId: yardA }, { which: 'A' });
      publish('marker', { yardId: yardA });
      await s.untilEvent('marker');
      expect(s.types()).toEqual(['movement.created', 'marker']);
      expect(s.events[0]?.data.data).toEqual({ which: 'A' });
    });

    it("sync.link (the site's link) reaches every staff member, yard scope or not, and no driver", async () => {
      const viewer = await clientWithRole(admin, 'viewer', { yardIds: [yardA] });
      const me = await driverToken('SSE-LINK');
      const streams = [await stream(t.adminToken), await stream(viewer.token), await stream(me.token)];
      t.core.bus.publish({
        type: 'sync.link',
        yardId: null,
        data: { link: 'offline', since: '2026-03-01T14:05:00.000Z', queued: 12 },
      });
      publish('marker', { yardId: yardA, driverId: me.id });
      for (const s of streams) await s.untilEvent('marker');
      const [adminSees, viewerSees, driverSees] = streams.map((s) => s.types());
      expect(adminSees).toEqual(['sync.link', 'marker']);
      expect(viewerSees).toEqual(['sync.link', 'marker']);
      expect(driverSees).toEqual(['marker']);
      expect(streams[1]?.events[0]?.data.data).toEqual({
        link: 'offline',
        since: '2026-03-01T14:05:00.000Z',
        queued: 12,
      });
    });

    it('Last-Event-ID replays the events missed while disconnected, then continues live', async () => {
      const first = await stream(t.adminToken);
      const seen = publish('gate.opened', { yardId: yardA }, { n: 1 });
      await first.untilEvent('gate.opened');
      const lastSeen = first.events.at(-1)?.id;
      first.close();

      publish('movement.created', { yardId: yardA }, { n: 2 });
      publish('movement.created', { yardId: yardB }, { n: 3 });
      const resumed = await stream(t.adminToken, lastSeen);
      await resumed.until(() => resumed.events.length >= 2);
      expect(resumed.events.map((e) => e.data.data)).toEqual([{ n: 2 }, { n: 3 }]);
      expect(lastSeen).toBe(t.core.bus.idOf(seen.seq));
      expect(resumed.events.map((e) => e.id)).toEqual([
        t.core.bus.idOf(seen.seq + 1),
        t.core.bus.idOf(seen.seq + 2),
      ]);
      expect(resumed.types()).not.toContain('stream.reset');

      publish('movement.created', { yardId: yardA }, { n: 4 });
      await resumed.until(() => resumed.events.length >= 3);
      expect(resumed.events.at(-1)?.data.data).toEqual({ n: 4 });
    });

    it('an id of an earlier process (or a bare number from before boot ids) yields stream.reset, then live events', async () => {
      // A restarted process numbers its events from 1 again: without the boot id, an id of the old
      // process would resume at some unrelated point of the new one.
      const earlier = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
      let oldId: string;
      try {
        const s = await EventStream.open(earlier.url, earlier.adminToken);
        earlier.core.bus.publish({ type: 'settings.changed', data: { names: ['x'] } });
        await s.untilEvent('settings.changed');
        oldId = s.events.at(-1)!.id!;
        s.close();
      } finally {
        await earlier.close();
      }
      publish('movement.created', { yardId: yardA }, { missed: true });
      for (const lastEventId of [oldId, '3']) {
        const s = await stream(t.adminToken, lastEventId);
        const next = publish('movement.created', { yardId: yardA }, { live: lastEventId });
        await s.untilEvent('movement.created');
        expect(s.types()).toEqual(['stream.reset', 'movement.created']);
        expect(s.events[0]).toEqual({
          id: t.core.bus.idOf(next.seq - 1),
          event: 'stream.reset',
          data: { type: 'stream.reset', data: { reason: 'restarted' } },
        });
        expect(s.events[1]?.data.data).toEqual({ live: lastEventId });
        expect(LiveEvent.safeParse(s.events[0]?.data).error).toBeUndefined();
      }
    });

    it('an id older than the replay buffer, or ahead of the last event, yields stream.reset', async () => {
      const old = publish('marker', { yardId: yardA });
      // The buffer keeps the last 1000 live events: of the 1001 after `old`, the first is gone.
      for (let i = 0; i < 1001; i++) publish('filler', { yardId: yardB });
      const expired = await stream(t.adminToken, t.core.bus.idOf(old.seq));
      const ahead = await stream(t.adminToken, t.core.bus.idOf(old.seq + 5000));
      const garbage = await stream(t.adminToken, 'not-an-id');
      publish('after', { yardId: yardA });
      for (const [r, reason] of [
        [expired, 'expired'],
        [ahead, 'unknown'],
        [garbage, 'unknown'],
      ] as const) {
        await r.untilEvent('after');
        expect(r.types()).toEqual(['stream.reset', 'after']);
        expect(r.events[0]?.data.data).toEqual({ reason });
      }
      // From the third filler on (two more kept events have been pushed out since), every missed
      // event is still kept: replayed, no reset.
      const kept = await stream(t.adminToken, t.core.bus.idOf(old.seq + 2));
      await kept.untilEvent('after');
      expect(kept.types()).toEqual([...Array<string>(999).fill('filler'), 'after']);
    });

    it('in-process events (sync.signed-out, sync.tasks-queued) never reach a stream nor take an id', async () => {
      const s = await stream(t.adminToken);
      const before = publish('marker', { yardId: yardA });
      t.core.bus.publish({ type: 'sync.signed-out', data: { kind: 'user', id: newId() } });
      t.core.bus.publish({ type: 'sync.tasks-queued', data: { yardId: yardA } });
      publish('after', { yardId: yardA });
      await s.untilEvent('after');
      expect(s.types()).toEqual(['marker', 'after']);
      expect(s.events.map((e) => e.id)).toEqual([
        t.core.bus.idOf(before.seq),
        t.core.bus.idOf(before.seq + 1),
      ]);
      const replayed = await stream(t.adminToken, t.core.bus.idOf(before.seq));
      await replayed.untilEvent('after');
      expect(replayed.types()).toEqual(['after']);
    });

    it('replay is filtered like live events', async () => {
      const me = await driverToken('SSE-3');
      const before = publish('marker', {});
      publish('task.assigned', { driverId: newId() }, { taskId: 'someone-else' });
      publish('task.assigned', { driverId: me.id }, { taskId: 'missed-but-mine' });
      const s = await stream(me.token, t.core.bus.idOf(before.seq));
      await s.untilEvent('task.assigned');
      publish('task.done-marker', { driverId: me.id });
      await s.untilEvent('task.done-marker');
      expect(s.events.map((e) => e.data.data)).toEqual([{ taskId: 'missed-but-mine' }, {}]);
    });
  });

  describe('an open stream ends as soon as its credential stops being valid', () => {
    it('logout', async () => {
      const viewer = await clientWithRole(admin, 'viewer');
      const s = await endsAfter(viewer.token!, () => viewer.post('/api/auth/logout'));
      expect(s.events.at(-1)?.data).toEqual({ type: 'session.ended', data: { reason: 'logged-out' } });
      expect(LiveEvent.safeParse(s.events.at(-1)?.data).error).toBeUndefined();
    });

    it('the user is disabled', async () => {
      const viewer = await clientWithRole(admin, 'viewer');
      const id = (await viewer.get('/api/auth/me')).body.id;
      await endsAfter(viewer.token!, async () =>
        expect((await admin.delete(`/api/user/${id}`)).status).toBe(200),
      );
    });

    it('the password is changed', async () => {
      const viewer = await clientWithRole(admin, 'viewer');
      const id = (await viewer.get('/api/auth/me')).body.id;
      await endsAfter(viewer.token!, () =>
        admin.patch(`/api/user/${id}`, { password: 'a-changed-password' }),
      );
    });

    it("the yard scope changes: no more of the old yard's events", async () => {
      const viewer = await clientWithRole(admin, 'viewer', { yardIds: [yardA] });
      const id = (await viewer.get('/api/auth/me')).body.id;
      await endsAfter(viewer.token!, () => admin.patch(`/api/user/${id}`, { yardIds: [yardB] }));
    });

    it('the API key is revoked', async () => {
      const key = (await admin.post('/api/auth/api-key', { name: 'board', role: 'viewer' })).body;
      await endsAfter(key.key, () => admin.delete(`/api/auth/api-key/${key.id}`));
    });

    it('the driver is blocked', async () => {
      const driver = await driverToken('SSE-BLOCK');
      await endsAfter(driver.token, () => admin.delete(`/api/driver/${driver.id}`), { driverId: driver.id });
    });
  });
});

/**
 * At a site's edge (SQLite): movements and site settings are written there (the cloud answers 409
 * edge-owned), and rows of the cloud's records (API keys) arrive there by sync.
 */
describe('live events at the edge (sqlite)', () => {
  const w = world(() => startTestApp());
  const { stream, endsAfter } = w;
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  beforeAll(() => {
    ({ t, admin, yardA } = w.get());
  });

  it('what the modules publish is the documented LiveEvent (the OpenAPI schema of the stream)', async () => {
    const s = await stream(t.adminToken);
    const gate = await seed(admin).gate(yardA, { direction: 'both' });
    const movement = await admin.post('/api/movement', {
      yardId: yardA,
      gateId: gate.id,
      direction: 'in',
      trailer: { number: `LIVE-${newId().slice(-6)}` },
    });
    expect(movement.status, movement.text).toBe(201);
    await seed(admin).task(yardA);
    await admin.put('/api/settings', { settings: { 'ui.siteName': 'Live Yard' } });
    await s.untilEvent('settings.changed');
    for (const type of ['movement.created', 'task.created', 'settings.changed']) {
      const event = s.events.find((e) => e.event === type);
      expect(event?.data.type).toBe(type);
      expect(LiveEvent.safeParse(event?.data).error).toBeUndefined();
    }
  });

  it('the API key is revoked at the cloud and the revocation arrives by sync', async () => {
    const key = (await admin.post('/api/auth/api-key', { name: 'synced board', role: 'viewer' })).body;
    await endsAfter(key.key, async () => {
      // What the sync applier does: write the row, then announce the applied batch.
      await query(t.db, 'UPDATE api_key SET revoked_at = ? WHERE id = ?', Date.now(), key.id);
      t.core.bus.publish({
        type: 'sync.applied',
        yardId: null,
        data: { peer: 'cloud', entities: { api_key: 1 } },
      });
    });
  });
});

/** An app with two real yards, and the streams, drivers and events the tests use on it. */
function world(start: () => Promise<TestApp<AppDatabase>>) {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  // Real yards: a user can be scoped only to yards that exist.
  let yardA: string;
  let yardB: string;
  const open: EventStream[] = [];

  beforeAll(async () => {
    t = await start();
    admin = new Client(t.url, t.adminToken);
    const yard = async (code: string) =>
      (await seed(admin).yard({ code, name: code, timeZone: 'Europe/Berlin' })).id as string;
    yardA = await yard('SSE-A');
    yardB = await yard('SSE-B');
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(() => t.close());

  async function stream(token: string | undefined, lastEventId?: string): Promise<EventStream> {
    const s = await EventStream.open(t.url, token, lastEventId);
    open.push(s);
    return s;
  }

  // Markers ('before', 'marker', ...) and made-up data test the stream itself, whatever the event map
  // (shared/events.ts) holds: the cast lets a test publish what no module would.
  const publish = (type: string, scope: { yardId?: string; driverId?: string } = {}, data: unknown = {}) =>
    t.core.bus.publish({
      type,
      yardId: scope.yardId ?? null,
      driverId: scope.driverId ?? null,
      data,
    } as YardEvent);

  /** A yard driver logged in through the real routes. */
  async function driverToken(code: string): Promise<{ id: string; token: string }> {
    const driver = await seed(admin).yardDriver({ driverCode: code, pin: '2468', firstName: 'Sam' });
    return { id: driver.id, token: driver.client.token! };
  }

  async function endsAfter(
    token: string,
    action: () => Promise<unknown>,
    to: { yardId?: string; driverId?: string } = { yardId: yardA },
  ): Promise<EventStream> {
    const s = await stream(token);
    const bystander = await stream(t.adminToken);
    publish('before', to);
    await s.untilEvent('before');
    await action();
    await s.untilEnded();
    expect(s.types().at(-1)).toBe('session.ended');
    // Nothing more reaches it; other streams go on.
    publish('after', to);
    await bystander.untilEvent('after');
    expect(bystander.ended).toBe(false);
    expect(s.types()).not.toContain('after');
    return s;
  }

  return { get: () => ({ t, admin, yardA, yardB }), stream, publish, driverToken, endsAfter };
}
