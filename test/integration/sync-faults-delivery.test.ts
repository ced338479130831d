import { afterEach, describe, expect, it } from 'vitest';
import type { Faults } from '../helpers/faulty-transport.js';
import { cloudWork, edgeWork, expectSameState, prepareSite, scalar } from '../helpers/sync-traffic.js';
import { SyncWorld } from '../helpers/sync-world.js';

/**
 * MQTT may deliver a message twice and out of order (SYNC.md): every message duplicated, or every
 * message shuffled, on both sides, under realistic traffic both ways with small batches (many
 * messages, many in flight), across a dropped and restored link. The short companion test of both
 * faults at once is in sync-faults.test.ts.
 */
let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

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
  expect(scalar(world.cloud.sqlite, "SELECT count(*) FROM movement WHERE direction = 'in'")).toBe(6 * 4);
  expect(scalar(world.cloud.sqlite, 'SELECT count(*) FROM visit WHERE out_at IS NULL')).toBe(6 * 2);
  expect(scalar(edge.sqlite, "SELECT count(*) FROM carrier WHERE name LIKE 'Carrier C%'")).toBe(6);
  return edge;
}

const both = (faults: Faults) => (_role: 'cloud' | 'edge', siteId: string) => ({
  ...faults,
  seed: siteId.length,
});

describe('sync: duplicated and reordered delivery under load', () => {
  it('every message delivered twice, both ways: same rows and visits on both sides, nothing applied twice', async () => {
    world = await SyncWorld.start({
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
      config: { 'sync.batchRows': 50 },
      faults: both({ reorder: 6, holdMs: 25 }),
    });
    const edge = await trafficWithCut(world);
    for (const node of [edge, world.cloud]) {
      expect(node.faulty!.counts.reordered).toBeGreaterThan(10);
    }
  }, 60_000);
});
