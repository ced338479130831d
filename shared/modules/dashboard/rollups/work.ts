import { type SqlStatement, type SqlWork, statement } from '../../../db/sql-work.js';
import type { Counter, CounterAdds } from '../../../sync/counter-adds.js';
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
 * What one row write does to the dashboard's rollups, as SqlWork (shared/db/sql-work.ts): the
 * decisions (which buckets and figures, the truck-arrival logic) and the SQL live here once, for
 * both databases. The work yields each statement and is resumed with its result; it reads between
 * writes (an arrival before deciding what to add), so it is a generator rather than a list of
 * statements. The sync applier yields it into its own work (its transaction, either database);
 * ChangeCapture's writes run it through observer.ts (SQLite synchronously on the shared
 * connection, PostgreSQL awaited in the write's Kysely transaction).
 */
export type RollupWork = SqlWork<void>;

const addFigure = statement(
  'rollup|figure|add',
  'changes',
  `INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (yard_id, figure, item) DO UPDATE SET n = dashboard_yard_figure.n + excluded.n,
      total = dashboard_yard_figure.total + excluded.total`,
);

const addMovement = statement(
  'rollup|movement|add',
  'changes',
  `INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (scope, grain, bucket, direction) DO UPDATE SET n = dashboard_movement_count.n + excluded.n`,
);

/** The two counter tables, for writers that sum additions before writing them (RowWrite.counters). */
export const YARD_FIGURES: Counter = {
  table: 'dashboard_yard_figure',
  keys: ['yard_id', 'figure', 'item'],
  amounts: ['n', 'total'],
};
export const MOVEMENT_COUNTS: Counter = {
  table: 'dashboard_movement_count',
  keys: ['scope', 'grain', 'bucket', 'direction'],
  amounts: ['n'],
};

const arrivalAt = statement(
  'rollup|arrival|get',
  'value',
  'SELECT at FROM dashboard_truck_arrival WHERE truck_id = ? AND yard_id = ?',
);

const putArrival = statement(
  'rollup|arrival|put',
  'changes',
  `INSERT INTO dashboard_truck_arrival (truck_id, yard_id, at) VALUES (?, ?, ?)
      ON CONFLICT (truck_id, yard_id) DO UPDATE SET at = excluded.at`,
);

const truckYard = statement('rollup|truck|yard', 'value', 'SELECT yard_id FROM truck WHERE id = ?');

type Step = { kind: 'sql'; statement: SqlStatement; params: readonly unknown[] };

/** A step yielded directly (not through sqlRun): each level of yield* costs on SQLite's hot path. */
function step(statement: SqlStatement, params: readonly unknown[]): Step {
  return { kind: 'sql', statement, params };
}

/** The tables whose rows the rollups count. */
export const ROLLUP_TABLES: ReadonlySet<string> = new Set(['movement', 'trailer', 'truck', 'visit']);

/**
 * The statements that keep the rollups in step with one row write (see the top of this file). A
 * writer that sums counter additions (`counters`: the sync applier, docs/sync.md) is handed the
 * additions instead of their statements; reads and the arrivals (not counters) are statements still.
 */
export function rollupWork({ table, before, after, counters }: RowWrite): RollupWork {
  const add = counters ? collect(counters) : undefined;
  // The table's generator itself, not delegated to: each level of yield* costs on SQLite's hot path.
  if (table === 'movement') return movementWritten(before, after, add);
  if (table === 'trailer') return addFigures(netFigures(trailerFigures(before), trailerFigures(after)), add);
  if (table === 'truck') return truckWritten(before, after, add);
  if (table === 'visit') return visitWritten(before, after, add);
  return addFigures([], add);
}

/** Both kinds of addition handed to the writer's collector; undefined: written here as statements. */
interface Collect {
  figure(d: FigureDelta): void;
  movement(d: MovementDelta): void;
}

function collect(counters: CounterAdds): Collect {
  return {
    figure: (d) => counters.add(YARD_FIGURES, [d.yardId, d.figure, d.item], [d.n, d.total]),
    movement: (d) => counters.add(MOVEMENT_COUNTS, [d.scope, d.grain, d.bucket, d.direction], [d.n]),
  };
}

function* movementWritten(
  before: ObservedRow | undefined,
  after: ObservedRow | undefined,
  add: Collect | undefined,
): RollupWork {
  if (before && after && sameMovementBucket(before, after)) return;
  for (const d of [...movementBuckets(before, -1), ...movementBuckets(after, 1)]) {
    if (add) add.movement(d);
    else yield addMovementStep(d);
  }
}

function* truckWritten(
  before: ObservedRow | undefined,
  after: ObservedRow | undefined,
  add: Collect | undefined,
): RollupWork {
  if (before?.yardId === after?.yardId && before && after) return;
  const beforeFigures = before
    ? truckFigures(before.yardId, yield* arrival(String(before.id), before.yardId))
    : [];
  const afterFigures = after
    ? truckFigures(after.yardId, yield* arrival(String(after.id), after.yardId))
    : [];
  yield* addFigures(netFigures(beforeFigures, afterFigures), add);
}

function* visitWritten(
  before: ObservedRow | undefined,
  after: ObservedRow | undefined,
  add: Collect | undefined,
): RollupWork {
  yield* addFigures(netFigures(visitFigures(before), visitFigures(after)), add);
  // A visit's unit, yard and check-in time never change: only a new visit moves an arrival.
  if (before || !after || typeof after.truckId !== 'string') return;
  const truckId = after.truckId;
  const yardId = String(after.yardId);
  const inAt = Number(after.inAt);
  const previous = yield* arrival(truckId, yardId);
  if (previous !== undefined && previous >= inAt) return;
  yield step(putArrival, [truckId, yardId, inAt]);
  if ((yield step(truckYard, [truckId])) !== yardId) return;
  yield* addFigures(
    netFigures(truckFigures(yardId, previous), truckFigures(yardId, inAt)).filter(
      (d) => d.figure === FIGURE.truckArrival,
    ),
    add,
  );
}

/** The truck's latest check-in into the yard, if it has one there. */
function* arrival(truckId: string, yardId: unknown): SqlWork<number | undefined> {
  if (typeof yardId !== 'string') return undefined;
  const at = yield step(arrivalAt, [truckId, yardId]);
  return at === undefined || at === null ? undefined : Number(at);
}

function* addFigures(deltas: FigureDelta[], add: Collect | undefined): RollupWork {
  for (const d of deltas) {
    if (add) add.figure(d);
    else yield figureStep(d);
  }
}

function figureStep(d: FigureDelta): Step {
  return step(addFigure, [d.yardId, d.figure, d.item, d.n, d.total]);
}

function addMovementStep(d: MovementDelta): Step {
  return step(addMovement, [d.scope, d.grain, d.bucket, d.direction, d.n]);
}

function sameMovementBucket(a: ObservedRow, b: ObservedRow): boolean {
  return a.yardId === b.yardId && a.direction === b.direction && a.at === b.at;
}
