import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from '../../../helpers/postgres.js';
import { checksumsOf, type SyncHarness, startSyncHarness } from '../../../helpers/sync-harness.js';
import { waitFor } from '../../../helpers/wait-for.js';
import { checkIn, cloudMasterData, count, countAt, createTask, driverWork } from '../link-fixture.js';

/**
 * docs/sync.md "Principles": MQTT may duplicate, reorder and lose messages; the logs, seqs, acks and resends make up
 * for all of it. FaultyTransport mangles what each side receives from the real broker.
 */
describe.each(TEST_DIALECTS)('sync under delivery faults (cloud on %s)', (dialect) => {
  let h: SyncHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const cloudCount = (sql: string, ...args: unknown[]) => countAt(h!.cloud.app.db, sql, ...args);

  describe('sync under delivery faults', () => {
    it('every message delivered twice and in shuffled order, both ways: same rows on both sides', async () => {
      h = await startSyncHarness({
        dialect,
        // Small batches: many messages, so shuffling and duplicates meet batches in flight.
        config: { 'sync.batchRows': 3 },
        faults: (_role, siteId) => ({ duplicate: true, reorder: 4, holdMs: 15, seed: siteId.length }),
      });
      const edge = h.edges[0]!;
      const m = await cloudMasterData(h.cloud.client, 'site-a');
      const taskId = await createTask(h.cloud.client, m);
      await h.converged(edge);
      const { truckId } = await checkIn(edge.client, m, 'DUP-0');
      const writes: Array<Promise<unknown>> = [driverWork(edge.client, m, truckId, taskId)];
      for (let i = 1; i <= 6; i++) writes.push(checkIn(edge.client, m, `DUP-${i}`));
      for (let i = 0; i < 6; i++)
        writes.push(h.cloud.client.post('/api/carrier', { name: `Dup Carrier ${i}` }));
      await Promise.all(writes);
      await h.converged(edge, { timeoutMs: 20_000 });

      expect(await checksumsOf(edge.app.db)).toEqual(await checksumsOf(h.cloud.app.db));
      expect(await cloudCount("SELECT count(*) FROM trailer WHERE number LIKE 'DUP-%'")).toBe(7);
      expect(await cloudCount('SELECT count(*) FROM dead_letter')).toBe(0);
      expect(count(edge.app, 'SELECT count(*) FROM dead_letter')).toBe(0);
      // The faults really happened, on both sides.
      for (const node of [edge, h.cloud]) {
        expect(node.faulty!.counts.duplicated).toBeGreaterThan(5);
        expect(node.faulty!.counts.reordered).toBeGreaterThan(0);
      }
    });

    it('a lost batch: the next one is a gap, its ack sends the sender back at once', async () => {
      // An ack timeout far beyond the test's deadlines: only the gap ack can trigger the resend.
      h = await startSyncHarness({ dialect, config: { 'sync.ackTimeoutMs': 120_000 }, faults: () => ({}) });
      const edge = h.edges[0]!;
      const m = await cloudMasterData(h.cloud.client, 'site-a');
      await h.converged(edge);
      const cloudIn = h.cloud.faulty!;
      cloudIn.faults = { drop: ['/up/changes'] };
      const lost = await checkIn(edge.client, m, 'LOST');
      await waitFor(() => cloudIn.counts.dropped > 0, { what: 'the batch dropped on its way to the cloud' });
      cloudIn.faults = {};
      const next = await checkIn(edge.client, m, 'NEXT', lost.gateId);
      await h.converged(edge);
      for (const id of [lost.movementId, next.movementId]) {
        expect(await cloudCount('SELECT count(*) FROM movement WHERE id = ?', id)).toBe(1);
      }
    });

    it('a stale ack (lower than acknowledged) does not send the sender back; nothing is applied twice', async () => {
      // A long ack timeout: within this test a lower ack is only remembered, never acted on.
      h = await startSyncHarness({ dialect, config: { 'sync.ackTimeoutMs': 60_000 } });
      const edge = h.edges[0]!;
      const m = await cloudMasterData(h.cloud.client, 'site-a');
      await checkIn(edge.client, m, 'ST-1');
      await h.converged(edge);
      const stream = edge.app.db.sqlite
        .prepare("SELECT value FROM sync_meta WHERE name = 'stream'")
        .pluck()
        .get();
      const acked = () =>
        edge.app.db.sqlite
          .prepare("SELECT acked_seq FROM sync_cursor WHERE peer = 'cloud'")
          .pluck()
          .get() as number;
      await waitFor(
        () => acked() === count(edge.app, "SELECT max(seq) FROM change_log WHERE peer = 'cloud'"),
        {
          what: 'the edge log acknowledged',
        },
      );
      const top = acked();
      const sentFrom: number[] = [];
      const publish = edge.transport.publish.bind(edge.transport);
      edge.transport.publish = (topic, payload, options) => {
        if (topic.endsWith('/up/changes')) sentFrom.push(Number(/"from":(\d+)/.exec(String(payload))?.[1]));
        return publish(topic, payload, options);
      };
      const heard: string[] = [];
      edge.transport.onMessage((topic, payload) => {
        if (topic.endsWith('/down/ack')) heard.push(String(payload));
      });
      // A replayed old ack, as a broker could deliver late.
      const stale = JSON.stringify({ v: 1, stream, upTo: 0 });
      await h.cloud.transport.publish('yards/site-a/down/ack', stale, { qos: 1 });
      await waitFor(() => heard.includes(stale), { what: 'the stale ack at the edge' });
      const more = await checkIn(edge.client, m, 'ST-2');
      await h.converged(edge);
      await waitFor(() => acked() > top, { what: 'the acknowledged position past the new rows' });
      expect(await cloudCount('SELECT count(*) FROM movement WHERE id = ?', more.movementId)).toBe(1);
      // Only the new rows were sent: nothing from before the stale ack's claim was sent again.
      expect(sentFrom.length).toBeGreaterThan(0);
      expect(Math.min(...sentFrom)).toBeGreaterThan(top);
      expect(await cloudCount('SELECT count(*) FROM dead_letter')).toBe(0);
      expect(await checksumsOf(edge.app.db)).toEqual(await checksumsOf(h.cloud.app.db));
    });
  });
});
