import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { checksumsOf, type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  checkIn,
  cloudMasterData,
  count,
  countAt,
  createTask,
  driverWork,
  type MasterData,
} from './link-fixture.js';

/**
 * The sync link over a real MQTT broker (in-process Aedes), a cloud and an edge on two databases,
 * driven through the HTTP API of each side; the cloud on SQLite and on PostgreSQL.
 */
describe.each(TEST_DIALECTS)('sync link (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  let m: MasterData;
  const cloudCount = (sql: string, ...args: unknown[]) => countAt(h.cloud.app.db, sql, ...args);

  beforeAll(async () => {
    h = await startSyncHarness({ dialect });
    m = await cloudMasterData(h.cloud.client, 'site-a');
  });
  afterAll(() => h?.close());

  const edge = () => h.edges[0]!;

  describe('sync link: records reach the side that needs them', () => {
    it('cloud records reach the edge, edge records reach the cloud; both hold the same rows after', async () => {
      const taskId = await createTask(h.cloud.client, m);
      await h.converged(edge());
      for (const [entity, id] of [
        ['carrier', m.carrierId],
        ['driver', m.driverId],
        ['app_user', m.userId],
        ['yard_task', taskId],
      ] as const) {
        expect(count(edge().app, `SELECT count(*) FROM ${entity} WHERE id = ?`, id), entity).toBe(1);
      }

      const api = edge().client;
      const { truckId, movementId } = await checkIn(api, m, 'TR-1');
      const { sessionId } = await driverWork(api, m, truckId, taskId);
      await h.converged(edge());
      expect(await cloudCount('SELECT count(*) FROM movement WHERE id = ?', movementId)).toBe(1);
      expect(await cloudCount('SELECT count(*) FROM truck_inspection WHERE truck_id = ?', truckId)).toBe(1);
      expect(await cloudCount('SELECT count(*) FROM driver_session WHERE id = ?', sessionId)).toBe(1);
      expect(await cloudCount('SELECT count(*) FROM session_location WHERE session_id = ?', sessionId)).toBe(
        2,
      );
      const atCloud = await h.cloud.client.get(`/api/yard-task/${taskId}`);
      expect(atCloud.body).toMatchObject({ status: 'COMPLETED', driverId: m.driverId });
      // 0 lost, 0 applied twice: every entity has the same rows on both sides, nothing dead-lettered.
      expect(await checksumsOf(edge().app.db)).toEqual(await checksumsOf(h.cloud.app.db));
      expect(await cloudCount('SELECT count(*) FROM dead_letter')).toBe(0);
      expect(count(edge().app, 'SELECT count(*) FROM dead_letter')).toBe(0);
      // The cloud node says what it did: it sends to the site and applied its batches.
      const { node } = (await h.cloud.client.get('/api/sync/status')).body;
      expect(node.sendsTo).toEqual(['site-a']);
      expect(node.applied.batches).toBeGreaterThan(0);
      expect(node.applied.rows).toBeGreaterThanOrEqual(await cloudCount('SELECT count(*) FROM movement'));
    });
  });

  describe('sync link: a cut link', () => {
    it('both sides keep working while cut, report it, and converge once the link is back', async () => {
      await h.converged(edge());
      await h.cut(edge());
      // The broker published the edge's will: the cloud shows the site offline.
      await waitFor(
        async () => (await h.cloud.client.get('/api/sync/status')).body.sites[0].link === 'offline',
        { what: 'site offline at the cloud' },
      );
      const carrier = await h.cloud.client.post('/api/carrier', { name: 'While Cut Freight' });
      expect(carrier.status, carrier.text).toBe(201);
      const patched = await h.cloud.client.patch(`/api/driver/${m.driverId}`, { phone: '+15550100' });
      expect(patched.status, patched.text).toBe(200);
      const movements: string[] = [];
      for (let i = 0; i < 5; i++) movements.push((await checkIn(edge().client, m, `CUT-${i}`)).movementId);

      const edgeStatus = (await edge().client.get('/api/sync/status')).body;
      expect(edgeStatus).toMatchObject({ mode: 'linked', link: 'offline' });
      expect(edgeStatus.queued).toBeGreaterThan(0);
      const site = (await h.cloud.client.get('/api/sync/status')).body.sites[0];
      expect(site).toMatchObject({ siteId: 'site-a', link: 'offline' });
      expect(site.queued).toBeGreaterThan(0);
      expect(site.lagMs).toBeGreaterThanOrEqual(0);
      expect(count(edge().app, 'SELECT count(*) FROM carrier WHERE id = ?', carrier.body.id)).toBe(0);

      await h.restore(edge());
      await h.converged(edge());
      for (const id of movements)
        expect(await cloudCount('SELECT count(*) FROM movement WHERE id = ?', id)).toBe(1);
      expect(
        edge().app.db.sqlite.prepare('SELECT phone FROM driver WHERE id = ?').pluck().get(m.driverId),
      ).toBe('+15550100');
      await waitFor(
        async () => {
          const s = (await edge().client.get('/api/sync/status')).body;
          return s.link === 'online' && s.queued === 0 && s.lastAckAt !== null && s.appliedRemoteSeq > 0;
        },
        { what: 'edge status online with an empty queue' },
      );
      await waitFor(
        async () => {
          const s = (await h.cloud.client.get('/api/sync/status')).body.sites[0];
          return s.link === 'online' && s.queued === 0 && s.reportedQueued === 0 && s.lagMs === 0;
        },
        { what: 'site online at the cloud with nothing queued either way' },
      );
    });
  });

  describe('sync link: broker restart', () => {
    it('a broker restarted while batches are in flight loses nothing', async () => {
      const api = edge().client;
      let disconnects = 0;
      edge().transport.onDisconnect(() => {
        disconnects += 1;
      });
      const { gateId } = await checkIn(api, m, 'BR-0');
      const writes: Array<Promise<unknown>> = [];
      for (let i = 1; i <= 20; i++) writes.push(checkIn(api, m, `BR-${i}`, gateId));
      const restart = h.restartBroker();
      await Promise.all(writes);
      await restart;
      const carrier = await h.cloud.client.post('/api/carrier', { name: 'After Restart Freight' });
      expect(carrier.status, carrier.text).toBe(201);
      await h.converged(edge(), { timeoutMs: 20_000 });
      expect(await cloudCount("SELECT count(*) FROM trailer WHERE number LIKE 'BR-%'")).toBe(21);
      expect(count(edge().app, 'SELECT count(*) FROM carrier WHERE id = ?', carrier.body.id)).toBe(1);
      expect(disconnects).toBeGreaterThan(0);
    });
  });
});
