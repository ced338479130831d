import { afterEach, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../../shared/db/database.js';
import { TEST_DIALECTS } from '../../../helpers/postgres.js';
import {
  cloudWork,
  edgeWork,
  expectSameState,
  pings,
  prepareSite,
  rebindDriver,
  scalar,
  scalarAt,
} from '../../../helpers/sync-traffic.js';
import { SyncWorld } from '../../../helpers/sync-world.js';
import { waitFor } from '../../../helpers/wait-for.js';

/**
 * Processes killed at the worst moments (docs/sync.md "Apply, ack, resume"), in process: a
 * node's crash is its link dead at once plus its database cut back to the committed transactions
 * (sync-world.ts; a cloud on PostgreSQL: its sessions terminated mid-transaction), then the node
 * is started again on that database. The real SIGKILLs are
 * in test/system/sync-processes.test.ts.
 */
describe.each(TEST_DIALECTS)('process crashes (cloud on %s)', (dialect) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  const APPLIED = 'SELECT coalesce(max(applied_remote_seq), 0) FROM sync_cursor WHERE peer = ?';
  const appliedPosition = (sqlite: import('better-sqlite3').Database, peer: string) =>
    scalar(sqlite, APPLIED, peer);
  const ackedPosition = (db: AppDatabase, peer: string) =>
    scalarAt(db, 'SELECT coalesce(max(acked_seq), 0) FROM sync_cursor WHERE peer = ?', peer);
  const topSeq = (db: AppDatabase, peer: string) =>
    scalarAt(db, 'SELECT coalesce(max(seq), 0) FROM change_log WHERE peer = ?', peer);

  describe('a process killed between commit and ack, or in the middle of an apply', () => {
    it('the edge dies after committing the cloud’s batches and before its acks leave: the cloud resends, the edge applies nothing twice', async () => {
      world = await SyncWorld.start({ dialect, config: { 'sync.ackTimeoutMs': 500 } });
      const edge = world.edge();
      const s = await prepareSite(world, edge);
      await edgeWork(edge.client, s, 'K0');
      await expectSameState(world, edge);

      // The edge's acks of the cloud's batches are lost from now on (as if it died right after each commit).
      edge.link.dropOut = ['/up/ack'];
      const ackedBefore = await ackedPosition(world.cloud.db, 'site-a');
      for (let i = 0; i < 3; i++) await cloudWork(world.cloud.client, s, `K${i + 1}`);
      const sent = await topSeq(world.cloud.db, 'site-a');
      await waitFor(() => appliedPosition(edge.sqlite, 'cloud') >= sent, {
        what: "the edge applying all of the cloud's batches",
      });
      // The edge's own work goes up meanwhile (its sender still gets the cloud's acks).
      await edgeWork(edge.client, s, 'K1');
      // The cloud never heard: it resent on its ack timeout, and those acks were lost too.
      expect(await ackedPosition(world.cloud.db, 'site-a')).toBe(ackedBefore);
      await waitFor(() => world!.cloud.link.mostResent('/down/changes') >= 2, {
        what: 'the cloud resending after an ack timeout',
      });

      // Killed: what is on disk is the committed state, batches applied, no ack ever sent.
      const { result: appliedAtCrash, done } = edge.crash((state) => appliedPosition(state, 'cloud'));
      await done;
      expect(appliedAtCrash).toBeGreaterThanOrEqual(sent);
      await edge.restart();
      rebindDriver(s, edge);
      // The cloud resends what the edge holds already: duplicates, answered by an ack, nothing applied.
      await waitFor(async () => (await ackedPosition(world!.cloud.db, 'site-a')) >= sent, {
        what: 'the cloud hearing the restarted edge’s ack',
      });
      expect(edge.link.delivered.get('down/changes') ?? 0).toBeGreaterThan(0);
      expect(edge.applied).toEqual([]);
      expect(appliedPosition(edge.sqlite, 'cloud')).toBe(appliedAtCrash);

      // And the link goes on both ways.
      const after = await cloudWork(world.cloud.client, s, 'K9');
      await edgeWork(edge.client, s, 'K9');
      await expectSameState(world, edge);
      expect(scalar(edge.sqlite, 'SELECT count(*) FROM carrier WHERE id = ?', after.carrierId)).toBe(1);
      expect(edge.applied.length).toBeGreaterThan(0);
    }, 60_000);

    it('the cloud dies in the middle of applying a batch of a large queue: restarted on what it committed, it takes the rest once', async () => {
      world = await SyncWorld.start({ dialect, config: { 'sync.ackTimeoutMs': 800 } });
      const edge = world.edge();
      const s = await prepareSite(world, edge);
      await world.cut(edge);
      // A queue at the edge: 5,000 pings, gate traffic, a task; and cloud work for the site meanwhile.
      await pings(s, 10, 500);
      await edgeWork(edge.client, s, 'M1', { checkIns: 6 });
      await cloudWork(world.cloud.client, s, 'M1');
      const before = await scalarAt(world.cloud.db, 'SELECT count(*) FROM session_location');

      // The 2,250th ping row the cloud inserts is in the middle of a batch's transaction.
      const { down } = await world.cloud.crashAtInsert('session_location', 2_250);
      await world.restore(edge);
      const { committed } = await down;
      expect(committed - before).toBeLessThan(2_250);
      expect(committed - before).toBeGreaterThan(0);
      await world.cloud.restart();

      await cloudWork(world.cloud.client, s, 'M2');
      await edgeWork(edge.client, s, 'M2');
      await expectSameState(world, edge);
      expect(await scalarAt(world.cloud.db, 'SELECT count(*) FROM session_location')).toBe(
        scalar(edge.sqlite, 'SELECT count(*) FROM session_location'),
      );
    }, 60_000);
  });
});
