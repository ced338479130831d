import { afterEach, describe, expect, it } from 'vitest';
import { query } from '../../helpers/http.js';
import { cloudWork, edgeWork, expectSameState, prepareSite } from '../../helpers/sync-traffic.js';
import { SyncWorld } from '../../helpers/sync-world.js';

/**
 * Batches travel compressed when the peer's acks say it takes them (wire-encoding.ts, link-sender.ts),
 * and plain JSON to a peer that never says so (a version from before compression), or when this
 * side is set to send plain JSON. Either way both sides end with the same rows.
 */
let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const sent = (node: { link: { batches: Array<{ encoding: string; to: number; from: number }> } }) => {
  const rows = node.link.batches.filter((b) => b.to >= b.from);
  return {
    deflate: rows.filter((b) => b.encoding === 'deflate').length,
    json: rows.filter((b) => b.encoding === 'json').length,
  };
};

async function traffic(w: SyncWorld) {
  const edge = w.edge();
  const s = await prepareSite(w, edge);
  for (let round = 0; round < 3; round++) {
    await edgeWork(edge.client, s, `E${round}`, { locationBatches: 1, points: 100 });
    await cloudWork(w.cloud.client, s, `C${round}`);
  }
  await expectSameState(w, edge);
  return edge;
}

describe('sync: compressed batches on the wire', () => {
  it('both sides on this version: after the first ack each way, every batch goes compressed', async () => {
    world = await SyncWorld.start({ config: { 'sync.batchRows': 50 } });
    const edge = await traffic(world);
    const up = sent(edge);
    const down = sent(world.cloud);
    // Only what went before the peer's first ack (at most a window) is plain JSON.
    expect(up.deflate).toBeGreaterThan(10);
    expect(up.json).toBeLessThanOrEqual(8);
    expect(down.deflate).toBeGreaterThan(2);
    expect(down.json).toBeLessThanOrEqual(8);
    // Remembered, so a restarted process compresses from its first batch.
    const meta = 'SELECT value FROM sync_meta WHERE name = ?';
    expect(edge.sqlite.prepare(meta).pluck().get('peer-accepts:cloud')).toBe('["deflate"]');
    expect(await query(world.cloud.db, meta, 'peer-accepts:site-a')).toEqual([{ value: '["deflate"]' }]);
  }, 60_000);

  it('a cloud whose acks do not offer compression (an older version) gets plain JSON, and both sides converge', async () => {
    world = await SyncWorld.start({ config: { 'sync.batchRows': 50 } });
    // The cloud's acks of the edge's batches lose their `accept`, as an older cloud's never had it.
    world.cloud.link.mangleOut = (topic, text) => {
      if (!topic.endsWith('/down/ack')) return undefined;
      const { accept: _dropped, ...ack } = JSON.parse(text) as Record<string, unknown>;
      return JSON.stringify(ack);
    };
    const edge = await traffic(world);
    expect(sent(edge)).toMatchObject({ deflate: 0 });
    expect(sent(edge).json).toBeGreaterThan(10);
    expect(
      edge.sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'peer-accepts:cloud'").pluck().get(),
    ).toBe('[]');
    // The other direction still negotiates on its own.
    expect(sent(world.cloud).deflate).toBeGreaterThan(2);
  }, 60_000);

  it("sync.compression 'none': plain JSON both ways even though the peers accept deflate", async () => {
    world = await SyncWorld.start({ config: { 'sync.batchRows': 50, 'sync.compression': 'none' } });
    const edge = await traffic(world);
    expect(sent(edge)).toMatchObject({ deflate: 0 });
    expect(sent(world.cloud)).toMatchObject({ deflate: 0 });
  }, 60_000);
});
