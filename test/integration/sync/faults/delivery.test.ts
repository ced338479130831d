import { afterEach, describe, expect, it } from 'vitest';
import type { Faults } from '../../../helpers/faulty-transport.js';
import { TEST_DIALECTS } from '../../../helpers/postgres.js';
import {
  cloudWork,
  edgeWork,
  expectSameState,
  prepareSite,
  scalar,
  scalarAt,
} from '../../../helpers/sync-traffic.js';
import { SyncWorld } from '../../../helpers/sync-world.js';
import { waitFor } from '../../../helpers/wait-for.js';

/**
 * MQTT may deliver a message twice and out of order (docs/sync.md "Principles"): every message duplicated, or every
 * message shuffled, on both sides, under realistic traffic both ways with small batches (many
 * messages, many in flight), across a dropped and restored link. The short companion test of both
 * faults at once is in faults.test.ts.
 */
async function trafficWithCut(world: SyncWorld) {
  const edge = world.edge();
  const s = await prepareSite(world, edge);
  for (let round = 0; round < 3; round++) {
    await Promise.all([
      edgeWork(edge.client, s, `E${round}`, { locationBatches: 2, points: 200 }),
      cloudWork(world.cloud.client, s, `C${round}`),
    ]);
  }
  // The link drops in the middle of it: what was held or in flight is lost and resent.
  await world.cut(edge);
  await edgeWork(edge.client, s, 'E3', { locationBatches: 2, points: 200 });
  await cloudWork(world.cloud.client, s, 'C3');
  await world.restore(edge);
  for (let round = 4; round < 6; round++) {
    await Promise.all([
      edgeWork(edge.client, s, `E${round}`, { locationBatches: 1, points: 200 }),
      cloudWork(world.cloud.client, s, `C${round}`),
    ]);
  }
  await expectSameState(world, edge, { timeoutMs: 30_000 });
  // Every check-in of the six rounds once at the cloud (4 per round, 2 of them checked out again).
  expect(await scalarAt(world.cloud.db, "SELECT count(*) FROM movement WHERE direction = 'in'")).toBe(6 * 4);
  expect(await scalarAt(world.cloud.db, 'SELECT count(*) FROM visit WHERE out_at IS NULL')).toBe(6 * 2);
  expect(scalar(edge.sqlite, "SELECT count(*) FROM carrier WHERE name LIKE 'Carrier C%'")).toBe(6);
  return edge;
}

const both = (faults: Faults) => (_role: 'cloud' | 'edge', siteId: string) => ({
  ...faults,
  seed: siteId.length,
});

describe.each(TEST_DIALECTS)(
  'sync: duplicated and reordered delivery under load (cloud on %s)',
  (dialect) => {
    let world: SyncWorld | undefined;
    afterEach(async () => {
      await world?.close();
      world = undefined;
    });

    it('every message delivered twice, both ways: same rows and visits on both sides, nothing applied twice', async () => {
      world = await SyncWorld.start({
        dialect,
        config: { 'sync.batchRows': 50 },
        faults: both({ duplicate: true }),
      });
      const edge = await trafficWithCut(world);
      for (const node of [edge, world.cloud]) {
        expect(node.faulty!.counts.duplicated).toBeGreaterThan(30);
      }
    }, 60_000);

    it('messages shuffled, both ways (batches, acks and statuses overtake each other): same rows and visits on both sides', async () => {
      world = await SyncWorld.start({
        dialect,
        config: { 'sync.batchRows': 50 },
        faults: both({ reorder: 6, holdMs: 25 }),
      });
      const edge = await trafficWithCut(world);
      // How many messages overtook others depends on how the rows fell into batches (a busy machine
      // sends fewer, fuller ones): enough that each side saw several.
      for (const node of [edge, world.cloud]) {
        expect(node.faulty!.counts.reordered).toBeGreaterThan(5);
      }
    }, 60_000);

    // The edge's handling of a redelivered command (edges are SQLite); the cloud plays no part in it.
    it.skipIf(dialect === 'postgres')(
      'a resync command delivered again later (its PUBACK lost with the link) does not send the edge back',
      async () => {
        world = await SyncWorld.start();
        const edge = world.edge();
        // The first contact: the cloud sent the new edge a snapshot and a resync command.
        const resync = edge.link.commands.find((c) => JSON.parse(c.payload.toString()).kind === 'resync');
        expect(resync, 'the first-contact resync command').toBeDefined();
        const s = await prepareSite(world, edge);
        await cloudWork(world.cloud.client, s, 'R1');
        await edgeWork(edge.client, s, 'R1');
        await expectSameState(world, edge);
        // Watch the edge's applied position of the cloud's stream: it must only go forward.
        edge.sqlite.exec(`
      CREATE TEMP TABLE rewinds (before INTEGER, after INTEGER);
      CREATE TEMP TRIGGER watch_rewinds AFTER UPDATE OF applied_remote_seq ON main.sync_cursor
      WHEN NEW.applied_remote_seq < OLD.applied_remote_seq
      BEGIN INSERT INTO rewinds VALUES (OLD.applied_remote_seq, NEW.applied_remote_seq); END;`);
        const answers = () => world!.cloud.link.delivered.get('up/cmd-result') ?? 0;
        const answered = answers();
        // The broker hands the edge the same command again (QoS 1 redelivery after a lost PUBACK).
        await world.cloud.link.publish(resync!.topic, resync!.payload, { qos: 1 });
        await waitFor(() => answers() > answered, { what: 'the edge answering the redelivered command' });
        await cloudWork(world.cloud.client, s, 'R2');
        await expectSameState(world, edge);
        expect(edge.sqlite.prepare('SELECT * FROM rewinds').all()).toEqual([]);
      },
      30_000,
    );
  },
);
