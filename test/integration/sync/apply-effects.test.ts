import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus, type PublishedEvent } from '../../../shared/bus.js';
import { ChangeApplier } from '../../../shared/sync/applier.js';
import { waitFor } from '../../helpers/wait-for.js';
import { batchesFrom, cloudMasterData, type MasterData, SITE, SyncPair, total } from './apply-fixture.js';

/** What applying does beside the rows: caches, live events, sign-outs, auto-dispatch at the edge. */
let pair: SyncPair;
let m: MasterData;

beforeEach(async () => {
  pair = await SyncPair.start();
  m = await cloudMasterData(pair);
  expect(total(pair.down()).deadLetters).toBe(0);
});
afterEach(async () => {
  await pair.close();
});

describe('apply side effects', () => {
  it('lists cached before the apply show the applied rows, and a sync.applied event names the yard', async () => {
    const edge = await pair.loginEdge();
    const events: PublishedEvent[] = [];
    pair.cloud.core.bus.subscribe((e) => events.push(e));
    const before = await pair.cloudApi.get('/api/trailer?limit=10');
    expect(before.body.items).toEqual([]);
    const checkIn = await edge.post('/api/movement', {
      yardId: m.yardId,
      direction: 'in',
      trailer: { number: 'TR-7', carrierId: m.carrierId },
    });
    expect(checkIn.status, checkIn.text).toBe(201);
    // A site setting goes up with the rest but stays the edge's own: the cloud ignores it.
    const siteSetting = await edge.put('/api/settings', { settings: { 'ui.siteName': 'North site' } });
    expect(siteSetting.status, siteSetting.text).toBe(200);
    expect(total(pair.up())).toMatchObject({ deadLetters: 0, applied: 2 }); // the trailer and the movement
    expect(
      pair.cloud.db.sqlite.prepare("SELECT count(*) FROM setting WHERE name = 'ui.siteName'").pluck().get(),
    ).toBe(0);
    const after = await pair.cloudApi.get('/api/trailer?limit=10');
    expect(after.body.items.map((t: { number: string }) => t.number)).toEqual(['TR-7']);
    const applied = events.filter((e) => e.type === 'sync.applied');
    expect(applied.find((e) => e.yardId === m.yardId)?.data).toMatchObject({
      peer: 'site-a',
      yardIds: [m.yardId],
      entities: expect.objectContaining({ movement: 1, trailer: 1 }),
    });
  });

  it('a new password or a block at the cloud signs the user or driver out at the edge', async () => {
    const edge = await pair.loginEdge();
    const gatekeeper = await edge
      .as(undefined)
      .post('/api/auth/login', { username: 'gatekeeper', password: 'gate-password-1' });
    expect(gatekeeper.status, gatekeeper.text).toBe(200);
    const driver = await edge
      .as(undefined)
      .post('/api/auth/driver-login', { driverCode: 'J01', pin: '2468' });
    expect(driver.status, driver.text).toBe(200);
    const me = (token: string) => edge.as(token).get('/api/auth/me');
    expect((await me(gatekeeper.body.token)).status).toBe(200);

    const changed = await pair.cloudApi.patch(`/api/user/${m.userId}`, { password: 'another-password-2' });
    expect(changed.status, changed.text).toBe(200);
    const blocked = await pair.cloudApi.delete(`/api/driver/${m.driverId}`);
    expect(blocked.status, blocked.text).toBeLessThan(300);
    expect(total(pair.down()).applied).toBe(2);
    // Revoked in the apply's transaction; principals cached in memory go right after it.
    await waitFor(async () => (await me(gatekeeper.body.token)).status === 401, { what: 'user signed out' });
    await waitFor(async () => (await me(driver.body.token)).status === 401, { what: 'driver signed out' });
    const revoked = pair.edge.db.sqlite
      .prepare(
        'SELECT principal_kind, revoked_at IS NOT NULL AS revoked FROM auth_token ORDER BY principal_kind',
      )
      .all();
    expect(revoked).toEqual(
      expect.arrayContaining([
        { principal_kind: 'driver', revoked: 1 },
        { principal_kind: 'user', revoked: 1 },
      ]),
    );
    const again = await edge
      .as(undefined)
      .post('/api/auth/login', { username: 'gatekeeper', password: 'another-password-2' });
    expect(again.status).toBe(200);
  });

  it('the applier is built from db, clock, log, its side of sync and a bus: sign-outs and queued tasks are typed events', async () => {
    const changed = await pair.cloudApi.patch(`/api/user/${m.userId}`, { password: 'another-password-2' });
    expect(changed.status, changed.text).toBe(200);
    const task = await pair.cloudApi.post('/api/yard-task', { yardId: m.yardId, type: 'inspect' });
    expect(task.status, task.text).toBe(201);
    // No module service in sight: what the domain does about these events is wired elsewhere (reactions.ts).
    const { db, clock, log, hlc, changes, syncSide } = pair.edge.core;
    const bus = new EventBus();
    const events: PublishedEvent[] = [];
    bus.subscribe((e) => events.push(e));
    const applier = new ChangeApplier({ db, clock, log, hlc, changes, bus, syncSide });
    const position = pair.edge.db.sqlite
      .prepare("SELECT applied_remote_seq FROM sync_cursor WHERE peer = 'cloud'")
      .pluck()
      .get() as number;
    const outcomes = batchesFrom(pair.cloud, SITE, position).map((b) => applier.apply('cloud', b));
    expect(total(outcomes)).toMatchObject({ applied: 3, deadLetters: 0 }); // the user, the task, its event
    expect(events.filter((e) => e.type.startsWith('sync.') && e.type !== 'sync.applied')).toEqual([
      expect.objectContaining({ type: 'sync.signed-out', data: { kind: 'user', id: m.userId } }),
      expect.objectContaining({ type: 'sync.tasks-queued', data: { yardId: m.yardId } }),
    ]);
    expect(events.find((e) => e.type === 'sync.applied' && e.yardId === m.yardId)?.data).toMatchObject({
      peer: 'cloud',
      entities: expect.objectContaining({ user: 1, yard_task: 1, task_event: 1 }),
    });
  });

  it('a queued task that reaches an edge with an available driver is assigned there', async () => {
    const edge = await pair.loginEdge();
    const login = await edge.as(undefined).post('/api/auth/driver-login', { driverCode: 'J01', pin: '2468' });
    const driver = edge.as(login.body.token);
    expect((await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId })).status).toBe(201);
    const task = await pair.cloudApi.post('/api/yard-task', { yardId: m.yardId, type: 'inspect' });
    expect(task.status, task.text).toBe(201);
    expect(task.body.status).toBe('QUEUED');
    expect(total(pair.down()).applied).toBe(2); // the task and its QUEUED event
    await waitFor(async () => (await edge.get(`/api/yard-task/${task.body.id}`)).body.status === 'ASSIGNED', {
      what: 'auto-dispatch at the edge',
    });
    // The assignment goes up like any edge write.
    expect(total(pair.up()).deadLetters).toBe(0);
    expect((await pair.cloudApi.get(`/api/yard-task/${task.body.id}`)).body).toMatchObject({
      status: 'ASSIGNED',
      driverId: m.driverId,
    });
  });
});
