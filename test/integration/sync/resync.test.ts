import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.js';
import { LogPruner } from '../../../shared/sync/prune.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, type SyncNode, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { checkIn, cloudMasterData, count, countAt, valueAt } from './link-fixture.js';

/**
 * When positions go wrong: an edge replaced by a new appliance, an edge behind the pruned log, an
 * edge database restored from a backup. Each ends with both sides holding the same rows.
 */
describe.each(TEST_DIALECTS)('sync resync (cloud on %s)', (dialect) => {
  let h: SyncHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const meta = (node: SyncNode, name: string) =>
    valueAt(node.app.db, 'SELECT value FROM sync_meta WHERE name = ?', name) as Promise<string | undefined>;
  const cloudCount = (sql: string, ...args: unknown[]) => countAt(h!.cloud.app.db, sql, ...args);

  describe('sync: resync and restarted streams', () => {
    it('an edge replaced by a new appliance (new database, new stream): snapshot down, its rows applied up', async () => {
      h = await startSyncHarness({ dialect });
      const m = await cloudMasterData(h.cloud.client, 'site-a');
      const old = h.edges[0]!;
      const before = await checkIn(old.client, m, 'OLD-1');
      await h.converged(old);
      const oldStream = await meta(old, 'stream');

      const fresh = await h.replaceEdge(old);
      expect(await meta(fresh, 'stream')).not.toBe(oldStream);
      // The snapshot brought everything the site needs, the old edge's own records included.
      await h.converged(fresh);
      expect(count(fresh.app, 'SELECT count(*) FROM movement WHERE id = ?', before.movementId)).toBe(1);
      // The new appliance's rows (seqs from 1 again, on its new stream) reach the cloud.
      const after = await checkIn(fresh.client, m, 'NEW-1', before.gateId);
      await h.converged(fresh);
      expect(await cloudCount('SELECT count(*) FROM movement WHERE id = ?', after.movementId)).toBe(1);
      const cursor = await valueAt(
        h.cloud.app.db,
        "SELECT remote_stream FROM sync_cursor WHERE peer = 'site-a'",
      );
      expect(cursor).toBe(await meta(fresh, 'stream'));
      expect(await cloudCount('SELECT count(*) FROM dead_letter')).toBe(0);
    });

    it('an edge behind the pruned log gets a snapshot and a resync, then the stream goes on', async () => {
      h = await startSyncHarness({
        dialect,
        config: { 'sync.ackTimeoutMs': 500, 'sync.retentionDays': 1e-9 },
      });
      const edge = h.edges[0]!;
      const m = await cloudMasterData(h.cloud.client, 'site-a');
      await h.converged(edge);
      await waitFor(
        async () =>
          (await cloudCount("SELECT acked_seq FROM sync_cursor WHERE peer = 'site-a'")) >=
          (await cloudCount("SELECT max(seq) FROM change_log WHERE peer = 'site-a'")),
        { what: 'the cloud log for the site acknowledged' },
      );
      const pruned = await new LogPruner(h.cloud.app.core).runOnce();
      expect(pruned['site-a']).toBeGreaterThan(0);
      expect(Number(await meta(h.cloud, 'pruned:site-a'))).toBeGreaterThan(1);
      const snapshotsBefore = await cloudCount("SELECT count(*) FROM change_log WHERE peer = 'site-a'");

      // The edge comes back from a backup that had applied only the cloud's first row.
      await h.cut(edge);
      edge.app.db.sqlite.prepare("UPDATE sync_cursor SET applied_remote_seq = 1 WHERE peer = 'cloud'").run();
      const carrier = await h.cloud.client.post('/api/carrier', { name: 'After Prune Freight' });
      expect(carrier.status, carrier.text).toBe(201);
      await h.restore(edge);

      await waitFor(
        () => count(edge.app, 'SELECT count(*) FROM carrier WHERE id = ?', carrier.body.id) === 1,
        {
          what: 'the new carrier at the edge',
        },
      );
      await h.converged(edge);
      // A snapshot was written for the site (more rows in its log than the one carrier), and the
      // resync is finished.
      expect(await cloudCount("SELECT count(*) FROM change_log WHERE peer = 'site-a'")).toBeGreaterThan(
        snapshotsBefore + 1,
      );
      expect(await meta(h.cloud, 'resync:site-a')).toBeUndefined();
      expect(count(edge.app, 'SELECT count(*) FROM carrier WHERE id = ?', m.carrierId)).toBe(1);
    });

    it('an edge restored from a backup (the cloud acknowledges seqs it no longer has): new stream, nothing lost', async () => {
      h = await startSyncHarness({ dialect, config: { 'sync.ackTimeoutMs': 500 } });
      const edge = h.edges[0]!;
      const m = await cloudMasterData(h.cloud.client, 'site-a');
      await checkIn(edge.client, m, 'RB-1');
      await h.converged(edge);
      const oldStream = await meta(edge, 'stream');
      // As if the edge's database went back in time: the cloud has applied far more of this stream
      // than the edge's log now holds, so the next seqs the edge writes look like duplicates there.
      await query(
        h.cloud.app.db,
        "UPDATE sync_cursor SET applied_remote_seq = 1000000 WHERE peer = 'site-a'",
      );
      const later = await checkIn(edge.client, m, 'RB-2');
      await waitFor(async () => (await meta(edge, 'stream')) !== oldStream, {
        what: 'a new stream at the edge',
      });
      await h.converged(edge);
      expect(await cloudCount('SELECT count(*) FROM movement WHERE id = ?', later.movementId)).toBe(1);
      expect(
        await valueAt(h.cloud.app.db, "SELECT remote_stream FROM sync_cursor WHERE peer = 'site-a'"),
      ).toBe(await meta(edge, 'stream'));
    });
  });

  // The edge's own handling (its resync command, its dead letters): the cloud's database plays no part.
  describe.skipIf(dialect === 'postgres')('sync: the resync command at the edge', () => {
    it('answers ok after resetting its position, refuses bad arguments, ignores an expired command', async () => {
      h = await startSyncHarness({ dialect });
      const edge = h.edges[0]!;
      await h.converged(edge);
      const answers: Array<{ id: string; ok: boolean; error?: { code: string } }> = [];
      h.cloud.transport.onMessage((topic, payload) => {
        if (topic === 'yards/site-a/up/cmd-result') answers.push(JSON.parse(String(payload)));
      });
      const position = () =>
        count(edge.app, "SELECT applied_remote_seq FROM sync_cursor WHERE peer = 'cloud'");
      const stream = await meta(h.cloud, 'stream');
      const at = position();
      const send = (id: string, args: Record<string, unknown>, deadline = Date.now() + 5_000) =>
        h!.cloud.transport.publish(
          'yards/site-a/down/cmd',
          JSON.stringify({ v: 1, id, kind: 'resync', args, deadline, sentAt: Date.now() }),
          { qos: 1 },
        );
      // In this order, from one publisher on one topic: the expired one arrives (and is dropped on
      // arrival) before the bad one, whose answer we wait for.
      await send('good', { stream, resumeFrom: at });
      await send('expired', { stream, resumeFrom: at + 100 }, Date.now() - 60 * 60_000);
      await send('bad', { stream, resumeFrom: 'soon' });
      await waitFor(() => ['good', 'bad'].every((id) => answers.some((a) => a.id === id)), {
        what: "the edge's answers",
      });
      expect(answers.find((a) => a.id === 'good')).toMatchObject({ ok: true });
      expect(answers.find((a) => a.id === 'bad')).toMatchObject({
        ok: false,
        error: { code: 'validation-failed' },
      });
      expect(answers.some((a) => a.id === 'expired')).toBe(false);
      expect(position()).toBe(at - 1);
    });
  });

  describe.skipIf(dialect === 'postgres')('sync: dead letters over the API', () => {
    it('lists dead letters page by page and retries them', async () => {
      h = await startSyncHarness({ dialect });
      const edge = h.edges[0]!;
      await cloudMasterData(h.cloud.client, 'site-a');
      await h.converged(edge);
      // A carrier as the cloud sent it, under a new id: applies on retry. And a row that cannot.
      const [sent] = (await query(
        h.cloud.app.db,
        "SELECT hlc, data FROM change_log WHERE peer = 'site-a' AND entity = 'carrier' LIMIT 1",
      )) as [{ hlc: string; data: string }];
      const carrierId = newId();
      const good = { ...JSON.parse(sent.data), id: carrierId, name: 'Retried Freight', scac: 'RTRY' };
      const put = edge.app.db.sqlite.prepare(
        "INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES ('cloud', ?, ?, ?, 'test', ?, ?)",
      );
      put.run(
        1,
        'carrier',
        carrierId,
        JSON.stringify({ op: 'upsert', hlc: sent.hlc, data: good }),
        Date.now(),
      );
      put.run(
        2,
        'movement',
        newId(),
        JSON.stringify({ op: 'upsert', hlc: sent.hlc, data: { id: 'x' } }),
        Date.now(),
      );

      const first = await edge.client.get('/api/sync/dead-letter?limit=1');
      expect(first.status, first.text).toBe(200);
      expect(first.body.items).toHaveLength(1);
      expect(first.body.items[0]).toMatchObject({ peer: 'cloud', entity: 'carrier', entityId: carrierId });
      const second = await edge.client.get(`/api/sync/dead-letter?limit=1&cursor=${first.body.nextCursor}`);
      expect(second.body.items[0]).toMatchObject({ entity: 'movement' });
      expect(second.body.nextCursor).toBeNull();
      expect((await edge.client.get('/api/sync/status')).body.deadLetters).toBe(2);

      const bad = await edge.client.post('/api/sync/dead-letter/retry', { ids: [0] });
      expect(bad.status).toBe(400);
      const retry = await edge.client.post('/api/sync/dead-letter/retry', { peer: 'cloud' });
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body).toEqual({ retried: 2, applied: 1 });
      expect(count(edge.app, 'SELECT count(*) FROM carrier WHERE id = ?', carrierId)).toBe(1);
      const left = await edge.client.get('/api/sync/dead-letter');
      expect(left.body.items.map((d: { entity: string }) => d.entity)).toEqual(['movement']);
    });
  });
});
