import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { type AppDatabase, type Kdb, openDatabase } from '../../../shared/db/database.js';
import { migrate } from '../../../shared/db/migrate.js';
import { migratePostgres } from '../../../shared/db/migrate-postgres.js';
import { openPostgres } from '../../../shared/db/postgres-database.js';
import type { Direction } from '../../../shared/enums.js';
import {
  DashboardRollups,
  dashboardRollups,
  PostgresDashboardRollups,
} from '../../../shared/modules/dashboard/rollups/observer.js';
import {
  rebuildDashboardRollups,
  rebuildDashboardRollupsPostgres,
} from '../../../shared/modules/dashboard/rollups/rebuild.js';
import { FIGURE } from '../../../shared/modules/dashboard/rollups/rules.js';
import { visitsOfMovements } from '../../../shared/modules/movements/visits.js';
import { ChangeCapture } from '../../../shared/sync/change-capture.js';
import { Hlc } from '../../../shared/sync/hlc.js';
import { PostgresCloudRouting } from '../../../shared/sync/routing-postgres.js';
import { RowObservers } from '../../../shared/sync/row-observers.js';
import {
  createTestDatabase,
  postgresAvailable,
  TEST_DIALECTS,
  type TestDialect,
} from '../../helpers/postgres.js';

/**
 * The dashboard's rollups written with each change on either database: on SQLite synchronously on
 * the connection, on PostgreSQL through the write's Kysely transaction (observer.ts). The same
 * sequence of writes, made as the movements module makes them (ChangeCapture for the trailer, truck
 * and movement rows, the visit rule for the visits, in one transaction per movement), must leave
 * counters equal to a recount from the rows, and the same counters on both databases.
 */

const T0 = Date.parse('2026-03-10T06:00:00Z');
const at = (hhmm: string) => Date.parse(`2026-03-10T${hhmm}:00Z`);

// Fixed ids, so the two databases' rollups can be compared row for row.
const YARD_1 = '01936b2e-0000-7000-8000-00000000a001';
const YARD_2 = '01936b2e-0000-7000-8000-00000000a002';
const CARRIER_A = '01936b2e-0000-7000-8000-00000000c00a';
const CARRIER_B = '01936b2e-0000-7000-8000-00000000c00b';
const id = (n: number) => `01936b2e-0000-7000-8000-${String(n).padStart(12, '0')}`;
const TR = { 1: id(101), 2: id(102), 3: id(103), 9: id(109), 10: id(110), 11: id(111) };
const TX = { 1: id(201), 2: id(202), 3: id(203) };

interface Side {
  dialect: TestDialect;
  db: AppDatabase;
  changes: ChangeCapture;
  clock: ManualClock;
  /** Counter for the ids of movements and visits (the same sequence on both sides). */
  next: number;
  close(): Promise<void>;
}

/** A migrated, empty database of the dialect, with a ChangeCapture as the app builds it and the rollups observer. */
async function openSide(dialect: TestDialect): Promise<Side> {
  const clock = new ManualClock(T0);
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'rollups-dialects-'));
    const db = openDatabase(join(dir, 'y.db'));
    const changes = new ChangeCapture(new Hlc(clock, 'cloud'), clock, () => []);
    changes.observers.add(dashboardRollups(db));
    changes.observers.add(visitsOfMovements(db, changes.observers));
    return {
      dialect,
      db,
      changes,
      clock,
      next: 1000,
      async close() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await createTestDatabase();
  const db = openPostgres({ url: database.url, poolMax: 4, statementTimeoutMs: 0 });
  await migratePostgres(db.pool);
  // As shared/app.ts builds the cloud's: routing asked in the write's transaction.
  const changes = new ChangeCapture(new Hlc(clock, 'cloud'), clock, new PostgresCloudRouting().peersFor);
  changes.observers.add(dashboardRollups(db));
  changes.observers.add(visitsOfMovements(db, changes.observers));
  return {
    dialect,
    db,
    changes,
    clock,
    next: 1000,
    async close() {
      await db.close();
      await database.drop();
    },
  };
}

/** Every counter of the rollups, in a stable order; counters back at zero count as absent. */
async function rollups(db: Kdb) {
  const rows = async (query: ReturnType<typeof sql>) => (await query.execute(db)).rows;
  return {
    // The every-yard counts as read: their shards summed (rollups/rules.ts EVERY_YARD_SCOPES).
    movements: await rows(
      sql`SELECT CASE WHEN scope LIKE '*%' THEN '*' ELSE scope END AS scope, grain, bucket, direction,
        CAST(sum(n) AS INTEGER) AS n FROM dashboard_movement_count GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
        ORDER BY 1, 2, 3, 4`,
    ),
    figures: await rows(
      sql`SELECT yard_id, figure, item, n, total FROM dashboard_yard_figure WHERE n <> 0 OR total <> 0
        ORDER BY yard_id, figure, item`,
    ),
    arrivals: await rows(
      sql`SELECT truck_id, yard_id, at FROM dashboard_truck_arrival ORDER BY truck_id, yard_id`,
    ),
  };
}

async function recount(side: Side): Promise<void> {
  if (side.db.dialect === 'sqlite') rebuildDashboardRollups(side.db.sqlite);
  else await rebuildDashboardRollupsPostgres(side.db.kysely);
}

/** The counters kept so far equal a recount from the rows (which then replaces them). */
async function expectRecountEqual(side: Side, what: string) {
  const kept = await rollups(side.db.kysely);
  await recount(side);
  expect(kept, `${side.dialect}: ${what}`).toEqual(await rollups(side.db.kysely));
  expect(kept.movements.length, what).toBeGreaterThan(0);
  expect(kept.figures.length, what).toBeGreaterThan(0);
}

// --- writes as the movements module makes them (shared/modules/movements/record.ts) ---

async function masterData(side: Side): Promise<void> {
  const { changes, clock } = side;
  const db = side.db.kysely;
  const now = clock.now();
  for (const [yardId, code] of [
    [YARD_1, 'Y1'],
    [YARD_2, 'Y2'],
  ] as const) {
    await changes.insert(db, 'yard', {
      id: yardId,
      code,
      name: `Yard ${code}`,
      timeZone: 'UTC',
      address: null,
      capacity: null,
      siteId: 'site-1',
      createdAt: now,
      updatedAt: now,
    });
  }
  for (const [carrierId, name] of [
    [CARRIER_A, 'Alpha'],
    [CARRIER_B, 'Beta'],
  ] as const) {
    await changes.insert(db, 'carrier', {
      id: carrierId,
      name,
      scac: null,
      usdot: null,
      blockedReason: null,
      contact: null,
      createdAt: now,
      updatedAt: now,
    });
  }
  for (const [trailerId, number, carrierId] of [
    [TR[1], 'TR-1', CARRIER_A],
    [TR[2], 'TR-2', CARRIER_A],
    [TR[3], 'TR-3', null],
  ] as const) {
    await changes.insert(db, 'trailer', trailerRow(trailerId, number, carrierId, null, now));
  }
  for (const [truckId, plate] of [
    [TX[1], 'TX1'],
    [TX[2], 'TX2'],
    [TX[3], 'TX3'],
  ] as const) {
    await changes.insert(db, 'truck', {
      id: truckId,
      carrierId: null,
      unitNumber: null,
      plate,
      plateRegion: null,
      vin: null,
      yardId: null,
      createdAt: now,
      updatedAt: now,
    });
  }
}

function trailerRow(
  trailerId: string,
  number: string,
  carrierId: string | null,
  yardId: string | null,
  now: number,
) {
  return {
    id: trailerId,
    carrierId,
    number,
    plate: null,
    plateRegion: null,
    lengthFt: null,
    sealNumber: null,
    yardId,
    locationId: null,
    arrivedAt: yardId ? now : null,
    notes: null,
    createdAt: now,
    updatedAt: now,
  };
}

interface Move {
  direction: Direction;
  yardId: string;
  at: number;
  trailerId?: string;
  truckId?: string;
  loadStatus?: 'loaded' | 'empty';
  /** A check-in of a unit still in a yard: its previous stay is closed first. */
  forced?: boolean;
}

/** One gate movement in its transaction: the units' presence, the movement row, the visits. */
async function move(side: Side, m: Move, trx?: Kdb): Promise<void> {
  const work = async (trx: Kdb) => {
    const { changes } = side;
    const checkIn = m.direction === 'in';
    if (m.trailerId) {
      await changes.update(trx, 'trailer', m.trailerId, {
        yardId: checkIn ? m.yardId : null,
        locationId: null,
        arrivedAt: checkIn ? m.at : null,
        ...(m.loadStatus ? { loadStatus: m.loadStatus } : {}),
      });
    }
    if (m.truckId) await changes.update(trx, 'truck', m.truckId, { yardId: checkIn ? m.yardId : null });
    // The movement's insert opens and closes its visits (shared/modules/movements/visits.ts).
    await changes.insert(trx, 'movement', {
      id: id(side.next++),
      yardId: m.yardId,
      gateId: null,
      direction: m.direction,
      at: m.at,
      truckId: m.truckId ?? null,
      trailerId: m.trailerId ?? null,
      driverId: null,
      carrierId: null,
      locationId: null,
      loadStatus: m.loadStatus ?? null,
      sealNumber: null,
      plateRead: null,
      attachmentIds: '[]',
      actuationId: null,
      operatorId: null,
      notes: null,
      warnings: m.forced ? JSON.stringify(['already-in-yard: forced']) : '[]',
      overrideReason: null,
      correctsId: null,
      createdAt: side.clock.now(),
    });
  };
  if (trx) await work(trx);
  else await side.db.kysely.transaction().execute(work);
}

/** A day of writes, each as the app makes it; `check` is called between stages. */
async function aDayOfWrites(side: Side, check: (what: string) => Promise<void>): Promise<void> {
  const db = side.db.kysely;
  const { changes } = side;
  await masterData(side);
  // Check-ins into yard 1: a trailer with its truck, a loaded trailer with another, a lone truck.
  await move(side, { direction: 'in', yardId: YARD_1, at: at('08:10'), trailerId: TR[1], truckId: TX[1] });
  await move(side, {
    direction: 'in',
    yardId: YARD_1,
    at: at('09:20'),
    trailerId: TR[2],
    truckId: TX[2],
    loadStatus: 'loaded',
  });
  await move(side, { direction: 'in', yardId: YARD_1, at: at('10:05'), truckId: TX[3] });
  await check('check-ins');
  // A check-out of the first pair, then a forced check-in of TR-2 (already in the yard).
  await move(side, { direction: 'out', yardId: YARD_1, at: at('11:45'), trailerId: TR[1], truckId: TX[1] });
  await move(side, { direction: 'in', yardId: YARD_1, at: at('12:30'), trailerId: TR[2], forced: true });
  await check('check-out and forced check-in');
  // The office changes TR-2's load and carrier, then moves it to yard 2; TX2 is moved there too
  // (no check-in there: its arrival stays yard 1's), and TX1 checks in at yard 2 (an arrival there).
  await changes.update(db, 'trailer', TR[2], { loadStatus: 'empty', carrierId: CARRIER_B });
  await changes.update(db, 'trailer', TR[2], { yardId: YARD_2 });
  await changes.update(db, 'truck', TX[2], { yardId: YARD_2 });
  await move(side, { direction: 'in', yardId: YARD_2, at: at('13:00'), truckId: TX[1] });
  await check('moved between yards');
  // Rows inserted in one statement, a trailer put in by another writer and deleted again.
  const now = side.clock.now();
  await changes.insertMany(db, 'trailer', [
    trailerRow(TR[10], 'TR-10', CARRIER_A, YARD_2, now),
    trailerRow(TR[11], 'TR-11', null, YARD_1, now),
  ]);
  await changes.insert(db, 'trailer', trailerRow(TR[9], 'TR-9', CARRIER_B, null, now));
  await changes.update(db, 'trailer', TR[9], { yardId: YARD_1 });
  await check('TR-9 in');
  await changes.delete(db, 'trailer', TR[9]);
  await changes.delete(db, 'trailer', TR[11]);
  await check('deletes');
}

/** A movement and an edit in a transaction that fails: nothing of it may stay in the rollups. */
async function aRolledBackWrite(side: Side): Promise<void> {
  const failure = new Error('the write fails after its rows were written');
  await expect(
    side.db.kysely.transaction().execute(async (trx) => {
      await move(
        side,
        { direction: 'in', yardId: YARD_1, at: at('14:00'), trailerId: TR[3], truckId: TX[1] },
        trx,
      );
      await side.changes.update(trx, 'trailer', TR[10], { loadStatus: 'loaded' });
      await side.changes.delete(trx, 'trailer', TR[10]);
      throw failure;
    }),
  ).rejects.toBe(failure);
}

describe.each(TEST_DIALECTS)('dashboard rollups on %s', (dialect) => {
  let side: Side;
  beforeAll(async () => {
    side = await openSide(dialect);
  });
  afterAll(() => side?.close());

  it('the observer registered is the one of the dialect', () => {
    const observer = dashboardRollups(side.db);
    expect(observer).toBeInstanceOf(dialect === 'sqlite' ? DashboardRollups : PostgresDashboardRollups);
  });

  it('equal a recount after check-ins, check-outs, edits, moves between yards and deletes', async () => {
    await aDayOfWrites(side, (what) => expectRecountEqual(side, what));
    const figures = (await rollups(side.db.kysely)).figures as Array<Record<string, unknown>>;
    const figure = (yardId: string, name: string, item = '') =>
      figures.find((f) => f.yardId === yardId && f.figure === name && f.item === item);
    // TR-2 (since the forced check-in at 12:30) and TR-10 in yard 2; TX1 (arrived 13:00) and TX2 there.
    expect(figure(YARD_2, FIGURE.trailerCarrier, CARRIER_B)).toMatchObject({ n: 1 });
    expect(figure(YARD_2, FIGURE.truck)).toMatchObject({ n: 2 });
    expect(figure(YARD_2, FIGURE.truckArrival)).toMatchObject({ n: 1, total: at('13:00') });
    // TR-2's open visit is yard 1's (visits follow gate movements, not office edits).
    expect(figure(YARD_1, FIGURE.trailerVisit)).toMatchObject({ n: 1, total: at('12:30') });
    expect(figure(YARD_1, FIGURE.truck)).toMatchObject({ n: 1 });
    expect(figure(YARD_1, FIGURE.truckArrival)).toMatchObject({ n: 1, total: at('10:05') });
  });

  it('a rolled-back transaction leaves the rollups as they were', async () => {
    const before = await rollups(side.db.kysely);
    await aRolledBackWrite(side);
    expect(await rollups(side.db.kysely)).toEqual(before);
    await expectRecountEqual(side, 'after the rollback');
  });

  it('migration 0010 backfills the same counts as a recount', async () => {
    const recounted = await rollups(side.db.kysely);
    // The database as it was before 0010: its rows, no rollups.
    await sql`DROP TABLE dashboard_movement_count`.execute(side.db.kysely);
    await sql`DROP TABLE dashboard_yard_figure`.execute(side.db.kysely);
    await sql`DROP TABLE dashboard_truck_arrival`.execute(side.db.kysely);
    await sql`DROP INDEX visit_open_in`.execute(side.db.kysely);
    await sql`DELETE FROM schema_migration WHERE version = 10`.execute(side.db.kysely);
    const applied =
      side.db.dialect === 'sqlite' ? migrate(side.db.sqlite) : await migratePostgres(side.db.pool);
    expect(applied).toEqual([10]);
    expect(await rollups(side.db.kysely)).toEqual(recounted);
  });
});

describe.skipIf(!postgresAvailable())('dashboard rollups on SQLite and PostgreSQL', () => {
  let sides: Side[] = [];
  beforeAll(async () => {
    sides = [await openSide('sqlite'), await openSide('postgres')];
  });
  afterAll(async () => {
    for (const side of sides) await side.close();
  });

  it('the same writes give the same rollup rows', async () => {
    for (const side of sides) {
      await aDayOfWrites(side, async () => {});
      await aRolledBackWrite(side);
    }
    const [onSqlite, onPostgres] = [await rollups(sides[0]!.db.kysely), await rollups(sides[1]!.db.kysely)];
    expect(onPostgres).toEqual(onSqlite);
    expect(onSqlite.movements.length).toBeGreaterThan(0);
    expect(onSqlite.arrivals.length).toBeGreaterThan(0);
  });

  it('SqlWork writers (the sync applier) refuse an observer that can only be awaited through Kysely', () => {
    const observers = new RowObservers();
    observers.add({ tables: new Set(['trailer']), rowWrittenIn: async () => {} });
    const work = observers.work('trailer', undefined, { yardId: YARD_1 });
    expect(() => work.next()).toThrow(/can only be awaited/);
  });
});
