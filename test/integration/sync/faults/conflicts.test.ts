import { afterEach, describe, expect, it } from 'vitest';
import { type Client, query } from '../../../helpers/http.js';
import { TEST_DIALECTS } from '../../../helpers/postgres.js';
import {
  cloudWork,
  edgeWork,
  expectSameState,
  pings,
  prepareSite,
  type SiteRefs,
  scalar,
  scalarAt,
  settled,
} from '../../../helpers/sync-traffic.js';
import { SyncWorld } from '../../../helpers/sync-world.js';
import { waitFor } from '../../../helpers/wait-for.js';

/**
 * Both sides editing the same task while the link is down, and a row that cannot be applied
 * (docs/sync.md "Conflict rules"), over the real broker: each ends with both sides compared row by row.
 */
describe.each(TEST_DIALECTS)('sync conflicts (cloud on %s)', (dialect) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  describe('sync: conflicts and dead letters', () => {
    it('one task edited at the cloud and at the edge while the link is down converges; a third site gets the merged driver', async () => {
      world = await SyncWorld.start({ dialect, sites: ['site-a', 'site-b'] });
      const [a, b] = world.edges as [
        NonNullable<(typeof world.edges)[0]>,
        NonNullable<(typeof world.edges)[0]>,
      ];
      const s = await prepareSite(world, a);
      const cloud = world.cloud.client;
      const d2 = await newDriver(cloud, 'J2');
      const d3 = await newDriver(cloud, 'J3');
      const fields = await task(cloud, s, { priority: 1 });
      const finals = await task(cloud, s, { driverId: s.driverId });
      const reassigned = await task(cloud, s, { driverId: s.driverId });
      const taskIds = [fields, finals, reassigned];
      await settled(world, a);
      await settled(world, b, { entities: ['driver', 'carrier', 'user'] });

      await world.cut(a);
      const edge = a.client;
      // Different fields of one task: both edits stay.
      await ok(cloud.patch(`/api/yard-task/${fields}`, { priority: 3 }));
      await ok(edge.patch(`/api/yard-task/${fields}`, { notes: 'use door 2' }));
      // CANCELLED at the cloud, then started and COMPLETED at the edge: the earlier final status wins.
      await ok(
        cloud.patch(`/api/yard-task/${finals}`, { status: 'CANCELLED', cancelReason: 'trailer gone' }),
      );
      for (const step of ['start', 'complete']) {
        const done = await s.driver.post(`/api/yard-task/driver/${step}`, { taskIds: [finals] });
        expect(done.body.results[0].ok, done.text).toBe(true);
      }
      // Reassigned on both sides: the later assignment wins.
      await ok(cloud.patch(`/api/yard-task/${reassigned}`, { driverId: d2 }));
      await ok(edge.patch(`/api/yard-task/${reassigned}`, { driverId: d3 }));
      // A shared driver record edited at both (different fields), seen by the third site.
      await ok(cloud.patch(`/api/driver/${s.driverId}`, { phone: '+15550111' }));
      await ok(edge.patch(`/api/driver/${s.driverId}`, { lastName: 'Jockey Renamed' }));

      await world.restore(a);
      await settled(world, a, {
        entities: ['yard_task', 'task_event', 'driver', 'trailer'],
        timeoutMs: 30_000,
      });
      await settled(world, b, { entities: ['driver', 'carrier', 'user'], timeoutMs: 30_000 });
      const rowsAt = (node: typeof a) =>
        query(node.db, `SELECT * FROM yard_task WHERE id IN (?, ?, ?) ORDER BY id`, ...taskIds) as Promise<
          Array<Record<string, unknown>>
        >;
      const atCloud = await rowsAt(world.cloud);
      expect(await rowsAt(a)).toEqual(atCloud);
      const byId = new Map(atCloud.map((r) => [r.id, r]));
      expect(byId.get(fields)).toMatchObject({ priority: 3, notes: 'use door 2' });
      expect(byId.get(finals)).toMatchObject({ status: 'CANCELLED', cancel_reason: 'trailer gone' });
      expect(byId.get(reassigned)).toMatchObject({ driver_id: d3, status: 'ASSIGNED' });
      const driverRow = async (node: typeof a) =>
        (await query(node.db, 'SELECT * FROM driver WHERE id = ?', s.driverId))[0] as Record<string, unknown>;
      const atCloudDriver = await driverRow(world.cloud);
      expect(atCloudDriver).toMatchObject({ phone: '+15550111', last_name: 'Jockey Renamed' });
      expect(await driverRow(a)).toEqual(atCloudDriver);
      expect(await driverRow(b)).toEqual(atCloudDriver);
      for (const node of [world.cloud, a, b]) {
        expect(await scalarAt(node.db, 'SELECT count(*) FROM dead_letter'), node.siteId).toBe(0);
      }
    }, 60_000);

    it('a row that cannot be applied goes to dead_letter without holding up the queue, and applies on retry over the API', async () => {
      world = await SyncWorld.start({ dialect });
      const edge = world.edge();
      const s = await prepareSite(world, edge);
      // The new gate's row is lost on the way: the check-in through it names a gate the cloud lacks.
      edge.link.mangleOut = (topic, payload) => {
        if (!topic.endsWith('/up/changes')) return undefined;
        const batch = JSON.parse(payload) as { rows: Array<{ entity: string }> };
        return JSON.stringify({ ...batch, rows: batch.rows.filter((row) => row.entity !== 'gate') });
      };
      const gate = await edge.client.post(`/api/yard/${s.yardId}/gate`, {
        name: 'Side gate',
        direction: 'in',
      });
      expect(gate.status, gate.text).toBe(201);
      const refs: SiteRefs = { ...s, gateId: gate.body.id };
      const { movementIds } = await edgeWork(edge.client, refs, 'DL', { checkIns: 1, locationBatches: 0 });
      const deadMovement = movementIds[0]!;
      await waitFor(async () => (await scalarAt(world!.cloud.db, 'SELECT count(*) FROM dead_letter')) > 0, {
        what: 'a dead letter at the cloud',
      });
      edge.link.mangleOut = undefined;

      // The queue goes on past it: thousands of rows after the bad one apply.
      await pings(s, 6, 500);
      await edgeWork(edge.client, s, 'AFTER', { checkIns: 4 });
      await cloudWork(world.cloud.client, s, 'AFTER');
      const top = scalar(edge.sqlite, "SELECT max(seq) FROM change_log WHERE peer = 'cloud'");
      await waitFor(
        async () =>
          (await scalarAt(
            world!.cloud.db,
            "SELECT applied_remote_seq FROM sync_cursor WHERE peer = 'site-a'",
          )) >= top,
        { what: 'the cloud past the dead letter' },
      );
      const letters = await world.cloud.client.get('/api/sync/dead-letter');
      expect(letters.status, letters.text).toBe(200);
      expect(letters.body.items).toMatchObject([
        { peer: 'site-a', entity: 'movement', entityId: deadMovement },
      ]);
      expect((await world.cloud.client.get('/api/sync/status')).body.sites[0].deadLetters).toBe(1);
      expect(await scalarAt(world.cloud.db, 'SELECT count(*) FROM movement WHERE id = ?', deadMovement)).toBe(
        0,
      );

      // Still missing its gate: the retry keeps the letter.
      const early = await world.cloud.client.post('/api/sync/dead-letter/retry', {});
      expect(early.body).toEqual({ retried: 1, applied: 0 });
      // The gate reaches the cloud with its next change; the retry applies the movement (and its visit).
      await ok(edge.client.patch(`/api/yard/${s.yardId}/gate/${gate.body.id}`, { name: 'Side gate 2' }));
      await waitFor(
        async () => await scalarAt(world!.cloud.db, 'SELECT count(*) FROM gate WHERE id = ?', gate.body.id),
        {
          what: 'the gate at the cloud',
        },
      );
      const retry = await world.cloud.client.post('/api/sync/dead-letter/retry', { peer: 'site-a' });
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body).toEqual({ retried: 1, applied: 1 });
      await expectSameState(world, edge);
    }, 60_000);
  });
});

async function ok(request: Promise<{ status: number; text: string }>): Promise<void> {
  const res = await request;
  expect(res.status, res.text).toBeLessThan(300);
}

async function newDriver(cloud: Client, code: string): Promise<string> {
  const res = await cloud.post('/api/driver', {
    kind: 'yard',
    firstName: 'Extra',
    lastName: code,
    driverCode: code,
    pin: '2468',
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function task(cloud: Client, s: SiteRefs, extra: Record<string, unknown>): Promise<string> {
  const res = await cloud.post('/api/yard-task', {
    yardId: s.yardId,
    type: 'other',
    fromLocationId: s.spotId,
    toLocationId: s.doorId,
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}
