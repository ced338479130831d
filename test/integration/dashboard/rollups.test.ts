import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { migrate } from '../../../shared/db/migrate.js';
import { newId } from '../../../shared/ids.js';
import { rebuildDashboardRollups } from '../../../shared/modules/dashboard/rollups/rebuild.js';
import { seed } from '../../helpers/builders.js';
import type { Client } from '../../helpers/http.js';
import type { TestApp } from '../../helpers/test-app.js';
import { linkedEdge, type MasterData, SyncPair, total } from '../sync/apply-fixture.js';

/**
 * The dashboard's rollups (shared/modules/dashboard/rollups/) are written with each change, at an
 * edge by its own writes and at the cloud by the sync applier. Whatever happened, they must equal a
 * recount from scratch (rebuildDashboardRollups).
 */

type Sqlite = Database.Database;

const MOVEMENTS =
  "SELECT CASE WHEN scope LIKE '*%' THEN '*' ELSE scope END AS scope, grain, bucket, direction, " +
  'CAST(sum(n) AS INTEGER) AS n FROM dashboard_movement_count GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4';

/**
 * Every counter of the rollups, in a stable order; counters back at zero count as absent. The
 * every-yard counts as read: their shards summed (rollups/rules.ts EVERY_YARD_SCOPES).
 */
function rollups(sqlite: Sqlite) {
  return {
    movements: sqlite.prepare(MOVEMENTS).all(),
    figures: sqlite
      .prepare(
        'SELECT yard_id, figure, item, n, CAST(total AS TEXT) AS total FROM dashboard_yard_figure ' +
          'WHERE n <> 0 OR total <> 0 ORDER BY yard_id, figure, item',
      )
      .all(),
    arrivals: sqlite.prepare('SELECT * FROM dashboard_truck_arrival ORDER BY truck_id, yard_id').all(),
  };
}

/** The counters kept so far equal a recount from the rows (which then replaces them). */
function expectRecountEqual(sqlite: Sqlite, what: string) {
  const kept = rollups(sqlite);
  rebuildDashboardRollups(sqlite);
  expect(kept, what).toEqual(rollups(sqlite));
  expect(kept.movements.length, what).toBeGreaterThan(0);
  expect(kept.figures.length, what).toBeGreaterThan(0);
}

const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));
let pair: SyncPair;
let m: MasterData;
let edge: Client;
let gateId: string;
let otherCarrier: string;

async function move(body: Record<string, unknown>) {
  const res = await edge.post('/api/movement', { yardId: m.yardId, gateId, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; trailerId: string | null; truckId: string | null };
}

async function trailerIdOf(app: TestApp, number: string): Promise<string> {
  return app.db.sqlite.prepare('SELECT id FROM trailer WHERE number = ?').pluck().get(number) as string;
}

beforeAll(async () => {
  pair = await SyncPair.start(clock);
  ({ m, edge, gateId } = await linkedEdge(pair));
  otherCarrier = (await seed(pair.cloudApi).carrier({ name: 'Beta Lines' })).id;
  expect(total(pair.down()).deadLetters).toBe(0);
});
afterAll(() => pair.close());

describe('dashboard rollups', () => {
  it('equal a recount at the edge and at the cloud after a mixed day of writes and applied rows', async () => {
    const at = (hhmm: string) => `2026-03-10T${hhmm}:00Z`;
    // Check-ins: a trailer with its truck (unknown load), a loaded trailer with another truck, a lone truck.
    await move({
      direction: 'in',
      at: at('08:10'),
      trailer: { number: 'TR-1', carrierId: m.carrierId },
      truck: { plate: 'TX1' },
    });
    await move({
      direction: 'in',
      at: at('09:20'),
      trailer: { number: 'TR-2', carrierId: m.carrierId },
      truck: { plate: 'TX2' },
      loadStatus: 'loaded',
    });
    await move({ direction: 'in', at: at('10:05'), truck: { plate: 'TX3' } });
    // A check-out of the first pair, then a forced check-in of TR-2 (already in the yard).
    await move({ direction: 'out', at: at('11:45'), trailer: { number: 'TR-1' }, truck: { plate: 'TX1' } });
    await move({ direction: 'in', at: at('12:30'), trailer: { number: 'TR-2' }, force: true });
    // The office changes TR-2's load and carrier; a yard task moves it to the door.
    const tr2 = await trailerIdOf(pair.edge, 'TR-2');
    const patched = await edge.patch(`/api/trailer/${tr2}`, { loadStatus: 'empty', carrierId: otherCarrier });
    expect(patched.status, patched.text).toBe(200);
    await pair.edge.core.kysely
      .transaction()
      .execute((trx) => pair.edge.core.services.trailers.placeOnSpot(trx, tr2, m.doorId));
    // A trailer put in the yard by another writer and deleted again (ChangeCapture's delete).
    const strayId = (await seed(edge).trailer({ number: 'TR-9' })).id as string;
    await pair.edge.core.changes.update(pair.edge.core.kysely, 'trailer', strayId, { yardId: m.yardId });
    expectRecountEqual(pair.edge.db.sqlite, 'edge, TR-9 in');
    await pair.edge.core.changes.delete(pair.edge.core.kysely, 'trailer', strayId);
    expectRecountEqual(pair.edge.db.sqlite, 'edge, own writes');

    // Up to the cloud: the applier stores the rows and derives the visits there.
    pair.settle();
    expectRecountEqual(pair.cloud.db.sqlite, 'cloud, applied rows');

    // The cloud edits TR-2 (a shared record: merged at the edge), and puts in and then deletes one of
    // its own; the edge applies each.
    const atCloud = await pair.cloudApi.patch(`/api/trailer/${tr2}`, { loadStatus: 'loaded' });
    expect(atCloud.status, atCloud.text).toBe(200);
    const cloudTrailer = await newTrailer(pair.cloud, 'TR-C');
    await pair.cloud.core.changes.update(pair.cloud.core.kysely, 'trailer', cloudTrailer, {
      yardId: m.yardId,
    });
    pair.settle();
    expect(await edge.get(`/api/trailer/${cloudTrailer}`)).toMatchObject({ status: 200 });
    expectRecountEqual(pair.edge.db.sqlite, 'edge, merged and inserted from the cloud');
    await pair.cloud.core.changes.delete(pair.cloud.core.kysely, 'trailer', cloudTrailer);
    pair.settle();
    expect((await edge.get(`/api/trailer/${cloudTrailer}`)).status).toBe(404);
    expectRecountEqual(pair.edge.db.sqlite, 'edge, deleted from the cloud');
    expectRecountEqual(pair.cloud.db.sqlite, 'cloud, after the deletes');

    // What the office sees, the same on both sides.
    for (const api of [edge, pair.cloudApi]) {
      const trailers = await api.get(`/api/dashboard/yard/trailer?yardId=${m.yardId}`);
      expect(trailers.status).toBe(200);
      expect(trailers.body.items).toEqual([
        expect.objectContaining({
          trailersInYard: 1,
          byLoadStatus: { empty: 0, loaded: 1, unknown: 0 },
          byCarrier: [{ carrierId: otherCarrier, carrierName: 'Beta Lines', count: 1 }],
          openVisits: 1,
          averageDwellMs: clock.now() - Date.parse(at('12:30')),
        }),
      ]);
      const trucks = await api.get(`/api/dashboard/yard/truck?yardId=${m.yardId}`);
      expect(trucks.body.items[0]).toMatchObject({
        trucksInYard: 2,
        // TX2 since 09:20, TX3 since 10:05
        averageDwellMs: clock.now() - (Date.parse(at('09:20')) + Date.parse(at('10:05'))) / 2,
      });
      const day = await api.get(
        `/api/dashboard/movement?yardId=${m.yardId}&bucket=day&from=2026-03-10T06:00:00Z&to=2026-03-10T18:00:00Z`,
      );
      expect(day.body.buckets).toEqual([
        { start: '2026-03-10T05:00:00.000Z', label: '2026-03-10', in: 4, out: 1 },
      ]);
    }
  });

  it('migration 0010 backfills an existing database with the same counts as a recount', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rollups-')), 'old.db');
    await pair.cloud.db.sqlite.backup(file);
    const old = new Database(file);
    try {
      // The database as it was before 0010: its rows, no rollups.
      old.exec(`DROP TABLE dashboard_movement_count; DROP TABLE dashboard_yard_figure;
        DROP TABLE dashboard_truck_arrival; DROP INDEX visit_open_in; DELETE FROM schema_migration WHERE version = 10;`);
      expect(migrate(old)).toEqual([10]);
      const backfilled = rollups(old);
      expect(backfilled).toEqual(rollups(pair.cloud.db.sqlite));
      expectRecountEqual(old, 'backfilled');
    } finally {
      old.close();
    }
  });
});

async function newTrailer(app: TestApp, number: string): Promise<string> {
  const row = await app.core.changes.insert(app.core.kysely, 'trailer', {
    id: newId(),
    carrierId: null,
    number,
    plate: null,
    plateRegion: null,
    lengthFt: null,
    sealNumber: null,
    yardId: null,
    locationId: null,
    arrivedAt: null,
    notes: null,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  return row.id;
}
