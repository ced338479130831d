import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '../../helpers/http.js';
import { cloudMasterData, expectSameRows, type MasterData, one, SyncPair, total } from './apply-fixture.js';

/**
 * The same yard task changed at the cloud and at the edge while the link is down (nothing exchanged
 * in between): after both sides received the other's changes they hold identical rows.
 */
let pair: SyncPair;
let m: MasterData;
let edge: Client;

beforeEach(async () => {
  pair = await SyncPair.start();
  m = await cloudMasterData(pair);
});
afterEach(async () => {
  await pair.close();
});

async function cloudTask(fields: Record<string, unknown> = {}): Promise<string> {
  const res = await pair.cloudApi.post('/api/yard-task', {
    yardId: m.yardId,
    type: 'other',
    fromLocationId: m.spotId,
    toLocationId: m.doorId,
    ...fields,
  });
  expect(res.status, res.text).toBe(201);
  expect(total(pair.down()).deadLetters).toBe(0);
  edge = await pair.loginEdge();
  return res.body.id;
}

/** The yard driver, logged in at the edge with an open session there. */
async function driverAtEdge(): Promise<Client> {
  const login = await edge.as(undefined).post('/api/auth/driver-login', { driverCode: 'J01', pin: '2468' });
  expect(login.status, login.text).toBe(200);
  const driver = edge.as(login.body.token);
  expect((await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId })).status).toBe(201);
  return driver;
}

const taskRow = (app: SyncPair['cloud'], id: string) =>
  app.db.sqlite.prepare('SELECT * FROM yard_task WHERE id = ?').get(id) as
    | Record<string, unknown>
    | undefined;

/** Both directions, then the rows of the task must be identical on both sides. */
function exchange(id: string): Record<string, unknown> {
  expect(total([...pair.down(), ...pair.up()]).deadLetters).toBe(0);
  const atCloud = taskRow(pair.cloud, id);
  expect(taskRow(pair.edge, id)).toEqual(atCloud);
  expectSameRows(pair, ['yard_task', 'task_event']);
  return atCloud!;
}

describe('shared records edited on both sides converge', () => {
  it('edits of different fields are both kept, with the same version on both sides', async () => {
    const id = await cloudTask({ priority: 1 });
    pair.clock.advance(1000);
    expect((await pair.cloudApi.patch(`/api/yard-task/${id}`, { priority: 3 })).status).toBe(200);
    pair.clock.advance(1000);
    expect((await edge.patch(`/api/yard-task/${id}`, { notes: 'use door 2' })).status).toBe(200);
    const row = exchange(id);
    expect(row).toMatchObject({ priority: 3, notes: 'use door 2', status: 'QUEUED', version: 3 });
    // The merged row reads the same through both APIs.
    const a = (await pair.cloudApi.get(`/api/yard-task/${id}`)).body;
    const b = (await edge.get(`/api/yard-task/${id}`)).body;
    expect(b).toEqual(a);
  });

  it('COMPLETED at the edge and CANCELLED at the cloud: the earlier one wins on both sides', async () => {
    const id = await cloudTask({ driverId: m.driverId });
    const driver = await driverAtEdge();
    pair.clock.advance(1000);
    expect((await driver.post('/api/yard-task/driver/start', { taskIds: [id] })).body.results[0].ok).toBe(
      true,
    );
    pair.up();
    // Link down: the dispatcher cancels at the cloud, a minute later the driver completes at the edge.
    pair.clock.advance(1000);
    const cancel = await pair.cloudApi.patch(`/api/yard-task/${id}`, {
      status: 'CANCELLED',
      cancelReason: 'trailer gone',
    });
    expect(cancel.status, cancel.text).toBe(200);
    pair.clock.advance(60_000);
    expect((await driver.post('/api/yard-task/driver/complete', { taskIds: [id] })).body.results[0].ok).toBe(
      true,
    );
    const row = exchange(id);
    expect(row).toMatchObject({
      status: 'CANCELLED',
      cancel_reason: 'trailer gone',
      completed_at: null,
      driver_id: m.driverId,
    });
    // Both transitions stay in the history (task events are immutable).
    const history = (await pair.cloudApi.get(`/api/yard-task/${id}/history`)).body;
    const tos = history.items.map((e: { to: string }) => e.to);
    expect(tos).toEqual(expect.arrayContaining(['CANCELLED', 'COMPLETED']));
  });

  it('IN_PROGRESS at the edge wins over a later unassignment at the cloud', async () => {
    const id = await cloudTask({ driverId: m.driverId });
    const driver = await driverAtEdge();
    pair.clock.advance(1000);
    expect((await driver.post('/api/yard-task/driver/start', { taskIds: [id] })).body.results[0].ok).toBe(
      true,
    );
    pair.clock.advance(1000);
    const unassign = await pair.cloudApi.patch(`/api/yard-task/${id}`, { driverId: null });
    expect(unassign.status, unassign.text).toBe(200);
    expect(unassign.body.status).toBe('QUEUED');
    const row = exchange(id);
    expect(row).toMatchObject({ status: 'IN_PROGRESS', driver_id: m.driverId });
    expect(row.started_at).not.toBeNull();
  });

  it('a delete at one side wins over a concurrent update at the other: gone on both, events too', async () => {
    const id = await cloudTask();
    pair.clock.advance(1000);
    expect((await pair.cloudApi.delete(`/api/yard-task/${id}`)).status).toBe(204);
    pair.clock.advance(1000);
    // Meanwhile the edge assigns it (an update and a task event of its own).
    const assign = await edge.patch(`/api/yard-task/${id}`, { driverId: m.driverId, priority: 3 });
    expect(assign.status, assign.text).toBe(200);
    expect(total([...pair.down(), ...pair.up()]).deadLetters).toBe(0);
    for (const app of [pair.cloud, pair.edge]) {
      expect(taskRow(app, id)).toBeUndefined();
      expect(one(app, 'SELECT count(*) FROM task_event WHERE task_id = ?', id)).toBe(0);
      expect(
        one(app, "SELECT count(*) FROM sync_tombstone WHERE entity = 'yard_task' AND entity_id = ?", id),
      ).toBe(1);
    }
    expect((await edge.get(`/api/yard-task/${id}`)).status).toBe(404);
    // A late copy of the update changes nothing.
    expect(total(pair.up())).toMatchObject({ applied: 0, deadLetters: 0 });
  });
});
