import { afterEach, describe, expect, it } from 'vitest';
import {
  cloudWork,
  edgeWork,
  expectSameState,
  pings,
  prepareSite,
  scalar,
} from '../../../helpers/sync-traffic.js';
import { SyncWorld } from '../../../helpers/sync-world.js';

/**
 * A week offline (docs/sync.md "Apply, ack, resume"), kept to about 20,000 changes in npm test (the system test queues
 * 150,000 in real processes): ends with both sides compared row by row.
 */
let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

// SQLite only for now: a cloud's sync runtime on PostgreSQL also needs the applier's PostgreSQL twin
// (issue 16, ported separately); the send side it uses here is tested on both in send-store.test.ts.
describe('sync: a week offline', () => {
  it('a week offline: about 20,000 changes queued at the edge (and the office’s work at the cloud) drain after reconnect', async () => {
    world = await SyncWorld.start();
    const edge = world.edge();
    const s = await prepareSite(world, edge);
    await world.cut(edge);
    // npm test keeps the week small: 42 phone uploads of 500 pings, gate traffic and tasks every
    // "day"; the system test queues 150,000 changes.
    for (let day = 0; day < 7; day++) {
      await pings(s, 6, 500);
      await edgeWork(edge.client, s, `W${day}`, { checkIns: 6 });
      await cloudWork(world.cloud.client, s, `W${day}`);
    }
    const queued = (await edge.client.get('/api/sync/status')).body.queued as number;
    expect(queued).toBeGreaterThanOrEqual(20_000);
    const site = (await world.cloud.client.get('/api/sync/status')).body.sites[0];
    expect(site).toMatchObject({ link: 'offline' });
    expect(site.queued).toBeGreaterThan(0);

    const started = performance.now();
    await world.restore(edge);
    await expectSameState(world, edge, { timeoutMs: 60_000 });
    console.log(`a week offline: ${queued} changes drained in ${Math.round(performance.now() - started)} ms`);
    expect(scalar(world.cloud.sqlite, 'SELECT count(*) FROM session_location')).toBeGreaterThanOrEqual(
      19_000,
    );
  }, 120_000);
});
