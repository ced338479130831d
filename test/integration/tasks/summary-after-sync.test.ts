import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import { cloudMasterData, type MasterData, SyncPair, total } from '../sync/apply-fixture.js';

/**
 * The cloud's task summary counts the tasks its sites ran, as the sync applier wrote them: a task
 * queued at the cloud, assigned, started and completed at the edge, then applied at the cloud, is
 * in the cloud's wait and duration figures (shared/modules/tasks/summary-repo.ts reads the rows
 * themselves, so nothing derived can lag behind the applier).
 */
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

describe('task summary after sync', () => {
  it('a task completed at the edge is in the cloud’s summary once applied there', async () => {
    const edge = await pair.loginEdge();
    const login = await edge.as(undefined).post('/api/auth/driver-login', { driverCode: 'J01', pin: '2468' });
    const driver = edge.as(login.body.token);
    expect((await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId })).status).toBe(201);
    const task = await pair.cloudApi.post('/api/yard-task', { yardId: m.yardId, type: 'inspect' });
    expect(task.status, task.text).toBe(201);
    expect(total(pair.down()).deadLetters).toBe(0);
    await waitFor(async () => (await edge.get(`/api/yard-task/${task.body.id}`)).body.status === 'ASSIGNED', {
      what: 'auto-dispatch at the edge',
    });
    pair.clock.advance(90_000); // 90 s after it was created
    let res = await driver.post('/api/yard-task/driver/start', { taskIds: [task.body.id] });
    expect(res.body.results[0].ok, res.text).toBe(true);
    pair.clock.advance(300_000); // 5 min of work
    res = await driver.post('/api/yard-task/driver/complete', { taskIds: [task.body.id] });
    expect(res.body.results[0].ok, res.text).toBe(true);

    const before = await pair.cloudApi.get(`/api/yard-task/summary/${m.yardId}`);
    expect(before.body.duration.count).toBe(0); // not applied at the cloud yet
    expect(total(pair.up()).deadLetters).toBe(0);
    for (const path of [`/api/yard-task/summary/${m.yardId}`, '/api/yard-task/summary']) {
      const after = await pair.cloudApi.get(path);
      expect(after.status).toBe(200);
      const summary = after.body.items?.find((i: { yardId: string }) => i.yardId === m.yardId) ?? after.body;
      expect(summary.wait, path).toEqual({ count: 1, meanSec: 90, p90Sec: 90 });
      expect(summary.duration, path).toEqual({ count: 1, meanSec: 300, p90Sec: 300 });
      expect(summary.completedToday, path).toBe(1);
    }
  });
});
