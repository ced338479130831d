import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from '../../../helpers/postgres.js';
import {
  cloudWork,
  edgeWork,
  expectSameState,
  pings,
  prepareSite,
  scalar,
  scalarAt,
} from '../../../helpers/sync-traffic.js';
import { SyncWorld } from '../../../helpers/sync-world.js';
import { waitFor } from '../../../helpers/wait-for.js';

/**
 * The broker and the link failing under load (docs/sync.md "Apply, ack, resume"): a broker killed in the middle of a batch,
 * and a link that is down for a long time while both sides keep working. In process, with real
 * time kept short: "long" is thousands of writes and several ack timeouts on both sides, not minutes.
 */
describe.each(TEST_DIALECTS)('sync: broker and link failures (cloud on %s)', (dialect) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  const applied = (world: SyncWorld, siteId: string) =>
    scalarAt(
      world.cloud.db,
      'SELECT coalesce(max(applied_remote_seq), 0) FROM sync_cursor WHERE peer = ?',
      siteId,
    );

  describe('sync: broker and link failures under load', () => {
    it('the broker dies while the cloud is in the middle of a batch of a draining queue; a new one on the same port: nothing lost, nothing twice', async () => {
      // Small batches: many of them in flight both ways when the broker goes.
      world = await SyncWorld.start({ dialect, config: { 'sync.batchRows': 200, 'sync.ackTimeoutMs': 800 } });
      const edge = world.edge();
      const s = await prepareSite(world, edge);
      await world.cut(edge);
      await pings(s, 12, 500);
      await edgeWork(edge.client, s, 'B1', { checkIns: 6 });
      await cloudWork(world.cloud.client, s, 'B1');
      const top = scalar(edge.sqlite, "SELECT max(seq) FROM change_log WHERE peer = 'cloud'");

      let appliedAtKill = -1;
      let stopped: Promise<void> | undefined;
      const before = await scalarAt(world.cloud.db, 'SELECT count(*) FROM session_location');
      await world.cloud.onInsert('session_location', 2_900, () => {
        stopped = world!.killBroker();
      });
      await world.restore(edge);
      await waitFor(() => stopped !== undefined, { what: 'the broker killed mid-batch' });
      await stopped;
      appliedAtKill = await applied(world, 'site-a');
      expect(appliedAtKill).toBeLessThan(top);
      expect(
        (await scalarAt(world.cloud.db, 'SELECT count(*) FROM session_location')) - before,
      ).toBeGreaterThan(0);
      // Both sides keep working while there is no broker at all.
      await cloudWork(world.cloud.client, s, 'B2');
      await edgeWork(edge.client, s, 'B2');
      await world.startBroker();
      await edgeWork(edge.client, s, 'B3');
      await expectSameState(world, edge, { timeoutMs: 30_000 });
      expect(await scalarAt(world.cloud.db, 'SELECT count(*) FROM session_location')).toBe(
        scalar(edge.sqlite, 'SELECT count(*) FROM session_location'),
      );
    }, 60_000);

    it('a link down for long, first silently (everything lost, several ack timeouts both ways) then for good: both sides converge once it is back', async () => {
      world = await SyncWorld.start({ dialect, config: { 'sync.batchRows': 250, 'sync.ackTimeoutMs': 300 } });
      const edge = world.edge();
      const s = await prepareSite(world, edge);

      // A half-open link: the edge and the cloud both believe it is up; nothing gets through.
      edge.link.blackhole = true;
      const writes: Array<Promise<unknown>> = [];
      for (let round = 0; round < 4; round++) {
        writes.push(edgeWork(edge.client, s, `H${round}`, { locationBatches: 2, points: 500 }));
        writes.push(cloudWork(world.cloud.client, s, `H${round}`));
        await Promise.all(writes.splice(0));
      }
      // Each side resent its first unacknowledged batch at least three times (three ack timeouts).
      await waitFor(
        () => edge.link.mostResent('/up/changes') >= 3 && world!.cloud.link.mostResent('/down/changes') >= 3,
        { what: 'three ack timeouts on both sides' },
      );
      const site = (await world.cloud.client.get('/api/sync/status')).body.sites[0];
      expect(site).toMatchObject({ siteId: 'site-a', link: 'online' });
      expect(site.queued).toBeGreaterThan(0);

      // Then the link dies for good: the will says offline; both sides keep writing.
      edge.link.blackhole = false;
      await world.cut(edge);
      await waitFor(
        async () => (await world!.cloud.client.get('/api/sync/status')).body.sites[0].link === 'offline',
        { what: 'site offline at the cloud' },
      );
      for (let round = 4; round < 7; round++) {
        await Promise.all([
          edgeWork(edge.client, s, `H${round}`, { locationBatches: 2, points: 500 }),
          cloudWork(world.cloud.client, s, `H${round}`),
        ]);
      }
      const queued = (await edge.client.get('/api/sync/status')).body.queued;
      expect(queued).toBeGreaterThan(7_000);

      await world.restore(edge);
      await expectSameState(world, edge, { timeoutMs: 30_000 });
      expect(await scalarAt(world.cloud.db, "SELECT count(*) FROM trailer WHERE number LIKE 'H%'")).toBe(
        scalar(edge.sqlite, "SELECT count(*) FROM trailer WHERE number LIKE 'H%'"),
      );
    }, 60_000);
  });
});
