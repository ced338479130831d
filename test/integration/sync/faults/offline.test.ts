import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from '../../../helpers/postgres.js';
import {
  cloudWork,
  edgeWork,
  expectSameState,
  pings,
  prepareSite,
  scalarAt,
} from '../../../helpers/sync-traffic.js';
import { SyncWorld } from '../../../helpers/sync-world.js';

/**
 * A week offline (docs/sync.md "Apply, ack, resume"), kept to about 20,000 changes in npm test (the system test queues
 * 150,000 in real processes): ends with both sides compared row by row.
 */
describe.each(TEST_DIALECTS)('sync: a week offline (cloud on %s)', (dialect) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  describe('sync: a week offline', () => {
    it('a week offline: about 20,000 changes queued at the edge (and the office’s work at the cloud) drain after reconnect', async () => {
      world = await SyncWorld.start({ dialect });
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
      console.log(
        `a week offline: ${queued} changes drained in ${Math.round(performance.now() - started)} ms`,
      );
      expect(await scalarAt(world.cloud.db, 'SELECT count(*) FROM session_location')).toBeGreaterThanOrEqual(
        19_000,
      );
    }, 120_000);
  });
});
