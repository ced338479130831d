import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayHub } from '../../../edge/hardware/relay-hub.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { PostgresWork, SqliteWork } from '../../../shared/db/sql-work.js';
import { allPeerFiguresWork } from '../../../shared/sync/peer-counts.js';
import { FakeBoardBinding, FakeRelayBoard } from '../../fixtures/fake-relay-board.js';
import { seed } from '../../helpers/builders.js';
import { countsByRecountOn } from '../../helpers/peer-counts.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { EventStream } from '../../helpers/sse-client.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { checkIn, cloudMasterData, type MasterData } from './link-fixture.js';

/**
 * The office's sites page at the cloud: each site's row of /api/sync/status (its link, queues,
 * dead letters, gates' relay states) and the `site.status` live event when the site's status
 * changes. The edge drives a real RelayHub on an emulated serial relay board that can be unplugged.
 */
const PORT = '/dev/serial/by-id/usb-fake-lcus-site-status';

describe.each(TEST_DIALECTS)('site status (cloud on %s)', (dialect) => {
  // The edge's relay board and hub, one per variant (the hub is stopped with its edge).
  const board = new FakeRelayBoard('serial-lcus');
  const binding = new FakeBoardBinding();
  binding.attach(PORT, board);
  const hub = new RelayHub({ serialBinding: binding, reopenDelayMs: { min: 20, max: 100 } });
  let h: SyncHarness;
  let m: MasterData;
  let events: EventStream;
  let relayGateId: string;

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, gates: () => hub });
    m = await cloudMasterData(h.cloud.client, 'site-a');
    await h.converged(edge());
    const gate = await edge().client.post(`/api/yard/${m.yardId}/gate`, {
      name: 'North',
      direction: 'both',
      relay: { driver: 'serial-lcus', channel: 1, pulseMs: 100, device: PORT },
    });
    expect(gate.status, gate.text).toBe(201);
    relayGateId = gate.body.id;
    events = await EventStream.open(h.cloud.app.url, h.cloud.client.token);
  });
  afterAll(async () => {
    events?.close();
    await h?.close();
    await hub.stop();
  });

  const edge = () => h.edges[0]!;
  /** sync_peer_count as the sync runtime reads it, on either database. */
  const peerFigures = (db: AppDatabase) =>
    db.dialect === 'sqlite'
      ? new SqliteWork(db.sqlite).run(allPeerFiguresWork())
      : new PostgresWork().run(db.kysely, allPeerFiguresWork());
  const siteRow = async () => {
    const res = await h.cloud.client.get('/api/sync/status');
    expect(res.status).toBe(200);
    return res.body.sites.find((s: { siteId: string }) => s.siteId === 'site-a');
  };
  const siteEvents = () =>
    events.events.filter((e) => e.event === 'site.status').map((e) => e.data.data as Record<string, any>);
  /** The link states the site.status events told, a repeated state once. */
  const linkSequence = () =>
    siteEvents()
      .map((row) => row.link as string)
      .filter((link, i, all) => i === 0 || all[i - 1] !== link);

  describe('site status at the cloud', () => {
    it("the site's gates' relay states reach /api/sync/status, and a relay that faults shows as fault", async () => {
      await waitFor(
        async () => (await siteRow()).gates?.some((g: { gateId: string }) => g.gateId === relayGateId),
        {
          timeoutMs: 10_000,
          what: 'the relay gate in the cloud status',
        },
      );
      expect((await siteRow()).gates).toEqual([{ gateId: relayGateId, state: 'ok' }]);

      binding.unplug(PORT);
      await waitFor(async () => (await siteRow()).gates?.[0]?.state === 'fault', {
        timeoutMs: 10_000,
        what: 'the fault in the cloud status',
      });
      // The dashboard hears of it live too.
      await events.until(
        () => siteEvents().some((row) => row.gates?.[0]?.state === 'fault' && row.link === 'online'),
        5_000,
      );
      binding.replug(PORT);
      await waitFor(async () => (await siteRow()).gates?.[0]?.state === 'ok', {
        timeoutMs: 10_000,
        what: 'the relay back to ok in the cloud status',
      });
    });

    it('a link that drops and returns: site.status online, offline, online; queues counted while away', async () => {
      const startEvents = events.events.length;
      const cutAt = Date.now();
      await h.cut(edge());
      await events.until(() => siteEvents().some((row) => row.link === 'offline'), 10_000);
      const offline = siteEvents().find((row) => row.link === 'offline')!;
      expect(offline).toMatchObject({ siteId: 'site-a', name: 'Site site-a', link: 'offline' });
      expect(Date.parse(offline.linkSince)).toBeGreaterThanOrEqual(cutAt - 5);
      // An offline site's relays cannot be vouched for.
      expect(offline.gates).toEqual([{ gateId: relayGateId, state: 'unknown' }]);
      expect(await siteRow()).toMatchObject({ link: 'offline', linkSince: offline.linkSince });

      // While it is away, the office changes a carrier (queued for the site) and the gate house
      // checks trucks in (queued at the edge).
      const carrier = await seed(h.cloud.client).carrier({ name: 'Away Carrier', scac: 'AWAY' });
      expect(carrier.id).toBeTruthy();
      await checkIn(edge().client, m, 'AWAY-1');
      await checkIn(edge().client, m, 'AWAY-2');
      const away = await siteRow();
      expect(away.queued).toBeGreaterThan(0);
      expect(away.queued).toBe((await countsByRecountOn(h.cloud.app.db))['site-a']!.queued);
      expect(away.lagMs).toBeGreaterThanOrEqual(0);
      const edgeStatus = (await edge().client.get('/api/sync/status')).body;
      expect(edgeStatus.queued).toBeGreaterThan(0);
      expect(edgeStatus.queued).toBe((await countsByRecountOn(edge().app.db)).cloud!.queued);
      const ready = await h.cloud.client.get('/readyz');
      expect(ready.body.checks.sync).toEqual({ mode: 'cloud', queued: away.queued });

      await h.restore(edge());
      await events.until(
        () =>
          siteEvents()
            .slice(siteEvents().indexOf(offline))
            .some((row) => row.link === 'online'),
        10_000,
      );
      const online = siteEvents()
        .slice(siteEvents().indexOf(offline))
        .find((row) => row.link === 'online')!;
      expect(Date.parse(online.linkSince)).toBeGreaterThan(Date.parse(offline.linkSince));
      expect(linkSequence().slice(-3)).toEqual(['online', 'offline', 'online']);
      expect(events.events.length).toBeGreaterThan(startEvents);
      await h.converged(edge());
      // Both queues drain; the edge's last report says so too.
      await waitFor(
        async () => {
          const row = await siteRow();
          return (
            row.queued === 0 && row.reportedQueued === 0 && row.lagMs === 0 && row.gates?.[0]?.state === 'ok'
          );
        },
        { timeoutMs: 15_000, what: 'both queues drained and the gates reported again' },
      );
      // The event follows the stored status within the throttle (one a second per site).
      await events.until(() => siteEvents().at(-1)?.reportedQueued === 0, 5_000);
      expect(siteEvents().at(-1)).toMatchObject({ link: 'online', reportedQueued: 0 });
    });

    it('every count kept by the triggers equals a recount of the rows, at the cloud and at the edge', async () => {
      // The edge was first contacted with a snapshot, acknowledged batches both ways and queued
      // rows while away: the counts followed all of it.
      for (const node of [h.cloud, edge()]) {
        const db = node.app.db;
        expect(Object.fromEntries(await peerFigures(db))).toEqual(await countsByRecountOn(db));
      }
    });
  });
});
