import { type RawBuilder, sql } from 'kysely';
import type { ObservedRow, RowWrite } from '../../../sync/row-observers.js';
import {
  FIGURE,
  type FigureDelta,
  type MovementDelta,
  movementBuckets,
  netFigures,
  trailerFigures,
  truckFigures,
  visitFigures,
} from './rules.js';

/**
 * What one row write does to the dashboard's rollups, as a sequence of statements: the decisions
 * (which buckets and figures, the truck-arrival logic) and the SQL live here once, for both
 * databases. `rollupWork` is a generator: it yields each statement with its parameters and is
 * resumed with the statement's result (a read's first column of its first row, undefined for a
 * write). Each database drives it its own way (observer.ts): SQLite synchronously, in the write's
 * transaction on the better-sqlite3 connection (the sync applier cannot await); PostgreSQL through
 * the write's Kysely transaction, awaiting each statement. A generator rather than an executor
 * interface because the work reads between writes (an arrival before deciding what to add): with
 * an interface the decisions would be written once sync and once async, or SQLite made to await.
 */
export type RollupWork = Generator<RollupStep, void, unknown>;

export interface RollupStep {
  statement: RollupStatement;
  params: readonly unknown[];
}

/**
 * One statement of the rollups. `sql` is the text as a Kysely template with the parameters in the
 * order given: each database compiles it once, with its own placeholders (`?`, `$1`), and then
 * binds the parameters of each call. `reads`: resumed with the first column of the first row.
 */
export interface RollupStatement {
  name: string;
  reads: boolean;
  sql(params: readonly unknown[]): RawBuilder<unknown>;
}

const addFigure: RollupStatement = {
  name: 'figure|add',
  reads: false,
  sql: ([yardId, figure, item, n, total]) =>
    sql`INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total)
      VALUES (${yardId}, ${figure}, ${item}, ${n}, ${total})
      ON CONFLICT (yard_id, figure, item) DO UPDATE SET n = dashboard_yard_figure.n + excluded.n,
      total = dashboard_yard_figure.total + excluded.total`,
};

const addMovement: RollupStatement = {
  name: 'movement|add',
  reads: false,
  sql: ([scope, grain, bucket, direction, n]) =>
    sql`INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n)
      VALUES (${scope}, ${grain}, ${bucket}, ${direction}, ${n})
      ON CONFLICT (scope, grain, bucket, direction) DO UPDATE SET n = dashboard_movement_count.n + excluded.n`,
};

const arrivalAt: RollupStatement = {
  name: 'arrival|get',
  reads: true,
  sql: ([truckId, yardId]) =>
    sql`SELECT at FROM dashboard_truck_arrival WHERE truck_id = ${truckId} AND yard_id = ${yardId}`,
};

const putArrival: RollupStatement = {
  name: 'arrival|put',
  reads: false,
  sql: ([truckId, yardId, at]) =>
    sql`INSERT INTO dashboard_truck_arrival (truck_id, yard_id, at) VALUES (${truckId}, ${yardId}, ${at})
      ON CONFLICT (truck_id, yard_id) DO UPDATE SET at = excluded.at`,
};

const truckYard: RollupStatement = {
  name: 'truck|yard',
  reads: true,
  sql: ([truckId]) => sql`SELECT yard_id FROM truck WHERE id = ${truckId}`,
};

/** Every statement the work may yield (a database may prepare them up front). */
export const ROLLUP_STATEMENTS: readonly RollupStatement[] = [
  addFigure,
  addMovement,
  arrivalAt,
  putArrival,
  truckYard,
];

/** The tables whose rows the rollups count. */
export const ROLLUP_TABLES: ReadonlySet<string> = new Set(['movement', 'trailer', 'truck', 'visit']);

/** The statements that keep the rollups in step with one row write (see the top of this file). */
export function rollupWork({ table, before, after }: RowWrite): RollupWork {
  // The table's generator itself, not delegated to: each level of yield* costs on SQLite's hot path.
  if (table === 'movement') return movementWritten(before, after);
  if (table === 'trailer') return addFigures(netFigures(trailerFigures(before), trailerFigures(after)));
  if (table === 'truck') return truckWritten(before, after);
  if (table === 'visit') return visitWritten(before, after);
  return addFigures([]);
}

function* movementWritten(before: ObservedRow | undefined, after: ObservedRow | undefined): RollupWork {
  if (before && after && sameMovementBucket(before, after)) return;
  for (const d of [...movementBuckets(before, -1), ...movementBuckets(after, 1)]) yield addMovementStep(d);
}

function* truckWritten(before: ObservedRow | undefined, after: ObservedRow | undefined): RollupWork {
  if (before?.yardId === after?.yardId && before && after) return;
  const beforeFigures = before
    ? truckFigures(before.yardId, yield* arrival(String(before.id), before.yardId))
    : [];
  const afterFigures = after
    ? truckFigures(after.yardId, yield* arrival(String(after.id), after.yardId))
    : [];
  for (const d of netFigures(beforeFigures, afterFigures)) yield figureStep(d);
}

function* visitWritten(before: ObservedRow | undefined, after: ObservedRow | undefined): RollupWork {
  for (const d of netFigures(visitFigures(before), visitFigures(after))) yield figureStep(d);
  // A visit's unit, yard and check-in time never change: only a new visit moves an arrival.
  if (before || !after || typeof after.truckId !== 'string') return;
  const truckId = after.truckId;
  const yardId = String(after.yardId);
  const inAt = Number(after.inAt);
  const previous = yield* arrival(truckId, yardId);
  if (previous !== undefined && previous >= inAt) return;
  yield { statement: putArrival, params: [truckId, yardId, inAt] };
  if ((yield { statement: truckYard, params: [truckId] }) !== yardId) return;
  for (const d of netFigures(truckFigures(yardId, previous), truckFigures(yardId, inAt)))
    if (d.figure === FIGURE.truckArrival) yield figureStep(d);
}

/** The truck's latest check-in into the yard, if it has one there. */
function* arrival(truckId: string, yardId: unknown): Generator<RollupStep, number | undefined, unknown> {
  if (typeof yardId !== 'string') return undefined;
  const at = yield { statement: arrivalAt, params: [truckId, yardId] };
  return at === undefined || at === null ? undefined : Number(at);
}

function* addFigures(deltas: FigureDelta[]): RollupWork {
  for (const d of deltas) yield figureStep(d);
}

function figureStep(d: FigureDelta): RollupStep {
  return { statement: addFigure, params: [d.yardId, d.figure, d.item, d.n, d.total] };
}

function addMovementStep(d: MovementDelta): RollupStep {
  return { statement: addMovement, params: [d.scope, d.grain, d.bucket, d.direction, d.n] };
}

function sameMovementBucket(a: ObservedRow, b: ObservedRow): boolean {
  return a.yardId === b.yardId && a.direction === b.direction && a.at === b.at;
}
