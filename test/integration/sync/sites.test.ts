import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appVersion } from '../../../edge/sync/index.js';
import { SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { Client } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { cloudMasterData, count, countAt, type MasterData } from './link-fixture.js';

/** One cloud, two sites: each gets what it needs, the cloud passes shared records on, statuses. */
describe.each(TEST_DIALECTS)('sync with two sites (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  const cloudCount = (sql: string, ...args: unknown[]) => countAt(h.cloud.app.db, sql, ...args);
  let a: MasterData;
  let b: MasterData;

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, sites: ['site-a', 'site-b'] });
    a = await cloudMasterData(h.cloud.client, 'site-a', 'A');
    b = await cloudMasterData(h.cloud.client, 'site-b', 'B');
    for (const edge of h.edges) await h.converged(edge, { entities: ['carrier', 'driver', 'user'] });
  });
  afterAll(() => h?.close());

  const siteA = () => h.edges[0]!;
  const siteB = () => h.edges[1]!;
  const cloudSite = async (siteId: string) =>
    ((await h.cloud.client.get('/api/sync/status')).body.sites as Array<Record<string, unknown>>).find(
      (s) => s.siteId === siteId,
    );

  describe('sync with two sites', () => {
    it('each site gets its own yards and the organisation’s records', async () => {
      expect(count(siteA().app, 'SELECT count(*) FROM yard WHERE id = ?', a.yardId)).toBe(1);
      expect(count(siteA().app, 'SELECT count(*) FROM yard WHERE id = ?', b.yardId)).toBe(0);
      expect(count(siteB().app, 'SELECT count(*) FROM yard WHERE id = ?', b.yardId)).toBe(1);
      for (const edge of h.edges) {
        expect(
          count(edge.app, 'SELECT count(*) FROM carrier WHERE id IN (?, ?)', a.carrierId, b.carrierId),
        ).toBe(2);
      }
    });

    it('a shared record edited at one site reaches the other through the cloud', async () => {
      const edited = await siteA().client.patch(`/api/driver/${b.driverId}`, { phone: '+15550199' });
      expect(edited.status, edited.text).toBe(200);
      await waitFor(
        () =>
          siteB().app.db.sqlite.prepare('SELECT phone FROM driver WHERE id = ?').pluck().get(b.driverId) ===
          '+15550199',
        { what: 'the phone number at site-b' },
      );
      for (const edge of h.edges) await h.converged(edge, { entities: ['driver'] });
    });

    it('status at both sides: link, queues, versions; readiness shows the queue', async () => {
      await waitFor(async () => (await cloudSite('site-a'))?.queued === 0, {
        what: 'nothing queued for site-a',
      });
      const site = await cloudSite('site-a');
      expect(site).toMatchObject({
        name: 'Site site-a',
        link: 'online',
        queued: 0,
        deadLetters: 0,
        schemaV: SCHEMA_VERSION,
        version: appVersion(),
      });
      expect(Math.abs(site!.clockSkewMs as number)).toBeLessThan(60_000);
      expect(site!.lastSeenAt).toEqual(expect.any(String));
      const edge = (await siteA().client.get('/api/sync/status')).body;
      expect(edge).toMatchObject({
        mode: 'linked',
        role: 'edge',
        siteId: 'site-a',
        link: 'online',
        pending: 0,
      });
      expect(edge.appliedRemoteSeq).toBeGreaterThan(0);
      const ready = await new Client(siteA().app.url).get('/readyz');
      expect(ready.body.checks.sync).toEqual({ mode: 'linked', queued: expect.any(Number) });
      const cloudReady = await new Client(h.cloud.app.url).get('/readyz');
      expect(cloudReady.body.checks.sync.mode).toBe('cloud');
    });

    it('messages naming an unknown site are dropped; nothing is stored for it', async () => {
      const seen: string[] = [];
      // Registered after the runtime's own listener: when it hears a message, the runtime has too.
      h.cloud.transport.onMessage((topic) => {
        if (topic.startsWith('yards/ghost/')) seen.push(topic);
      });
      const batch = { v: 1, site: 'ghost', stream: 'x', from: 1, to: 1, schemaV: 1, rows: [] };
      await h.cloud.transport.publish('yards/ghost/up/changes', JSON.stringify(batch), { qos: 1 });
      const status = { v: 1, state: 'online', schemaV: 1, version: '1', queued: 0, at: Date.now() };
      await h.cloud.transport.publish('yards/ghost/status', JSON.stringify(status), { qos: 1 });
      await waitFor(() => seen.length === 2, { what: 'both ghost messages at the cloud' });
      // The site lookups they started queue on the database before this write, so once the write
      // has travelled to site-a they are done.
      const carrier = await h.cloud.client.post('/api/carrier', { name: 'Marker Freight' });
      await waitFor(
        () => count(siteA().app, 'SELECT count(*) FROM carrier WHERE id = ?', carrier.body.id) === 1,
        {
          what: 'the marker carrier at site-a',
        },
      );
      expect(await cloudCount("SELECT count(*) FROM sync_cursor WHERE peer = 'ghost'")).toBe(0);
      expect(await cloudCount("SELECT count(*) FROM site WHERE id = 'ghost'")).toBe(0);
      expect(await cloudCount("SELECT count(*) FROM dead_letter WHERE peer = 'ghost'")).toBe(0);
    });

    it('a site stopped cleanly says offline before it goes', async () => {
      const edge = siteB();
      h.edges.splice(1, 1);
      await edge.app.close();
      await waitFor(async () => (await cloudSite('site-b'))?.link === 'offline', { what: 'site-b offline' });
      expect((await cloudSite('site-a'))?.link).toBe('online');
    });
  });
});
