import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodBounds, previousPeriod } from '../../../shared/modules/billing/compute/index.js';
import { type Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import {
  type EdgeNode,
  type SyncHarness,
  type SyncNode,
  startSyncHarness,
} from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { cloudMasterData, countAt, type MasterData } from '../sync/link-fixture.js';

/**
 * Billing at the cloud over two sites (docs/domain.md "Billing", waiting sites), real MQTT between
 * real apps (edges on their own SQLite files, the cloud on SQLite or PostgreSQL). Each yard bills 5.00 per check-in and nothing else (no tax).
 * Both sites check a trailer in, back-dated into the previous period. Site B's link is then cut and
 * its clerk records one more check-in of that period while offline: the cloud cannot know what B
 * holds, so B's yard waits (generate-all lists it; a single generation is 409 `site-not-synced`
 * unless forced) while A's yard is invoiced (1 check-in: 500). Once B is back and caught up, its
 * yard is invoiced with both check-ins (1000). A linked edge answers billing with 409 cloud-owned.
 */

describe.each(TEST_DIALECTS)('billing at the cloud (%s)', (dialect) => {
  let h: SyncHarness;
  let a: MasterData;
  let b: MasterData;
  let cloud: Client;
  let period: string;
  let at: (day: number) => string;

  const edge = (siteId: string): EdgeNode => h.edges.find((e) => e.siteId === siteId)!;

  async function checkIn(node: SyncNode, m: MasterData, number: string, when: string) {
    const res = await node.client.post('/api/movement', {
      yardId: m.yardId,
      direction: 'in',
      at: when,
      carrierId: m.carrierId,
      trailer: { number, carrierId: m.carrierId },
    });
    expect(res.status, res.text).toBe(201);
  }

  function movementsAtCloud(m: MasterData, n: number) {
    return waitFor(
      async () =>
        (await countAt(h.cloud.app.db, 'SELECT count(*) AS n FROM movement WHERE yard_id = ?', m.yardId)) ===
        n,
      { what: `${n} movements of yard ${m.yardId} at the cloud`, timeoutMs: 15_000 },
    );
  }

  async function siteRow(siteId: string) {
    const [row] = await query(
      h.cloud.app.db,
      'SELECT link_state AS link, reported_queued AS queued FROM site WHERE id = ?',
      siteId,
    );
    return row as { link: string; queued: number };
  }

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, sites: ['site-a', 'site-b'] });
    cloud = h.cloud.client;
    a = await cloudMasterData(cloud, 'site-a', 'A');
    b = await cloudMasterData(cloud, 'site-b', 'B');
    const now = Date.now();
    for (const m of [a, b]) {
      await h.cloud.app.core.kysely
        .insertInto('billingYardConfig')
        .values({
          yardId: m.yardId,
          currency: 'USD',
          taxRateBp: 0,
          gateFee: 500,
          createdAt: now,
          updatedAt: now,
        })
        .execute();
    }
    period = previousPeriod('America/Chicago', now);
    const start = periodBounds(period, 'America/Chicago').start;
    at = (day) => new Date(start + (day - 1) * 86_400_000 + 12 * 3_600_000).toISOString();
    for (const [siteId, m] of [
      ['site-a', a],
      ['site-b', b],
    ] as const) {
      await waitFor(
        () => edge(siteId).app.db.sqlite.prepare('SELECT 1 FROM carrier WHERE id = ?').get(m.carrierId),
        {
          what: `carrier at ${siteId}`,
          timeoutMs: 15_000,
        },
      );
    }
    await checkIn(edge('site-a'), a, 'A-1', at(3));
    await checkIn(edge('site-b'), b, 'B-1', at(3));
    await movementsAtCloud(a, 1);
    await movementsAtCloud(b, 1);
  }, 60_000);
  afterAll(() => h?.close());

  describe('billing at the cloud with a site offline', () => {
    it('invoices the yard whose site is in step; the offline site’s yard waits', async () => {
      await h.cut(edge('site-b'));
      await waitFor(async () => (await siteRow('site-b')).link === 'offline', {
        what: 'site-b offline at the cloud',
      });
      await checkIn(edge('site-b'), b, 'B-2', at(10)); // queued at the site
      await waitFor(
        async () => {
          const s = await siteRow('site-a');
          return s.link === 'online' && s.queued === 0;
        },
        { what: 'site-a online with nothing queued' },
      );

      const all = await cloud.post('/api/billing/invoice/generate-all');
      expect(all.status, all.text).toBe(200);
      expect(all.body.created).toEqual([
        expect.objectContaining({ yardId: a.yardId, carrierId: a.carrierId, period, total: 500 }),
      ]);
      expect(all.body.waiting).toEqual([
        {
          yardId: b.yardId,
          yardCode: expect.any(String),
          siteId: 'site-b',
          period,
          reason: 'site-offline',
          message: expect.stringMatching(/^The site site-b \(yard \S+\) is offline: activity recorded there/),
        },
      ]);

      const one = await cloud.post('/api/billing/invoice', {
        yardId: b.yardId,
        carrierId: b.carrierId,
        period,
      });
      expect(one.status, one.text).toBe(409);
      expect(one.body).toMatchObject({ code: 'site-not-synced', siteId: 'site-b', reason: 'site-offline' });
      // Said in words, without the code.
      expect(one.body.detail).toContain('is offline');
      expect(one.body.detail).not.toContain('site-offline');
      const count = () =>
        countAt(h.cloud.app.db, 'SELECT count(*) AS n FROM invoice WHERE yard_id = ?', b.yardId);
      expect(await count()).toBe(0);

      // force: true invoices what the cloud has (one check-in); the clerk deletes that draft again.
      const forced = await cloud.post('/api/billing/invoice', {
        yardId: b.yardId,
        carrierId: b.carrierId,
        period,
        force: true,
      });
      expect(forced.status, forced.text).toBe(201);
      expect(forced.body.total).toBe(500);
      expect((await cloud.delete(`/api/billing/invoice/${forced.body.id}`)).status).toBe(204);
      expect(await count()).toBe(0);

      // Generate all "anyway" does the same for every waiting yard: nothing waits, B is invoiced.
      const anyway = await cloud.post('/api/billing/invoice/generate-all', { force: true });
      expect(anyway.status, anyway.text).toBe(200);
      expect(anyway.body.waiting).toEqual([]);
      expect(anyway.body.created).toEqual([
        expect.objectContaining({ yardId: b.yardId, carrierId: b.carrierId, period, total: 500 }),
      ]);
      expect((await cloud.delete(`/api/billing/invoice/${anyway.body.created[0].id}`)).status).toBe(204);
      expect(await count()).toBe(0);
    });

    it('once the site is back and caught up, its yard is invoiced with everything it recorded', async () => {
      await h.restore(edge('site-b'));
      await movementsAtCloud(b, 2);
      await waitFor(
        async () => {
          const s = await siteRow('site-b');
          return s.link === 'online' && s.queued === 0;
        },
        { what: 'site-b online with nothing queued', timeoutMs: 15_000 },
      );
      const all = await cloud.post('/api/billing/invoice/generate-all');
      expect(all.status, all.text).toBe(200);
      expect(all.body.waiting).toEqual([]);
      expect(all.body.created).toEqual([
        expect.objectContaining({ yardId: b.yardId, carrierId: b.carrierId, period, total: 1_000 }),
      ]);
      expect(all.body.skipped).toEqual([
        { yardId: a.yardId, carrierId: a.carrierId, period, reason: 'exists' },
      ]);
    });

    it('a linked edge answers billing routes with 409 cloud-owned', async () => {
      const res = await edge('site-a').client.get('/api/billing/invoice');
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('cloud-owned');
      const gen = await edge('site-a').client.post('/api/billing/invoice/generate-all');
      expect(gen.body.code).toBe('cloud-owned');
    });
  });
});
