import type { ObservedRow } from '../../../sync/row-observers.js';

/**
 * What each row counts for in the dashboard's rollups (migration 0010). Every counter is a sum over
 * the current rows of one table of what each row contributes, so a write changes it by what the row
 * contributes after minus before: counters equal a recount as long as every write is observed
 * (ChangeCapture, the sync applier, the visits the movements module and the applier derive), and
 * rebuild.ts recounts the same sums from scratch.
 *
 * Sources, chosen so nothing drifts:
 * - trailers in a yard, by load status and by carrier: the trailer rows (yard_id, load_status,
 *   carrier_id), which every check-in/out, PATCH and merge from a peer writes;
 * - open trailer visits and the sum of their check-in times (average dwell): the visit rows, which
 *   only the movements module and the applier write (opened by a check-in, closed by a check-out or
 *   a forced check-in; never deleted, in_at never changed);
 * - trucks in a yard: the truck rows (yard_id); their dwell runs from each truck's latest check-in
 *   into that yard, the max visit in_at per (truck, yard) (dashboard_truck_arrival): visits are
 *   never deleted, so that max only grows.
 * - movements per yard, direction and bucket: the movement rows (immutable, inserted once).
 */

export const QUARTER_MS = 900_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The scope of movement counts over every yard of this database (a yard id is a UUID, never this). */
export const EVERY_YARD = '*';

/**
 * The every-yard counts are kept in shards, summed where read (repo.ts): every site's movements of
 * an hour would otherwise add to the same two rows, and the cloud applies sites side by side
 * (docs/sync.md "Apply, ack, resume"): one row would make them wait for each other's commits. A
 * movement counts in the shard of its yard: the yard id's last character code modulo the count,
 * which SQL computes the same way (everyYardScopeSql: the recount, rebuild.ts). '*' itself (the
 * scope migration 0010 backfilled) is read as one more shard.
 */
export const EVERY_YARD_SHARDS = 16;
export const EVERY_YARD_SCOPES: readonly string[] = [
  EVERY_YARD,
  ...Array.from({ length: EVERY_YARD_SHARDS }, (_, i) => `${EVERY_YARD}:${i}`),
];

export function everyYardScope(yardId: string): string {
  return `${EVERY_YARD}:${(yardId.charCodeAt(yardId.length - 1) || 0) % EVERY_YARD_SHARDS}`;
}

/** everyYardScope in SQL, for a yard id column (SQLite's unicode(), PostgreSQL's ascii()). */
export function everyYardScopeSql(column: string, dialect: 'sqlite' | 'postgres'): string {
  const last = dialect === 'sqlite' ? `unicode(substr(${column}, -1))` : `ascii(right(${column}, 1))`;
  return `'${EVERY_YARD}:' || (coalesce(${last}, 0) % ${EVERY_YARD_SHARDS})`;
}

/**
 * Movement buckets kept per yard and for every yard. A yard's hour and day buckets in its own zone
 * start on UTC quarter hours (every real zone offset is a multiple of 15 min), so the quarter-hour
 * counts answer any zone exactly; the coarser ones let a reader take fewer rows whenever its buckets
 * are whole UTC hours or days (repo.ts picks the coarsest that fits). Across yards, buckets are UTC
 * hours and days, so the every-yard scope keeps just those: a year of day buckets over every yard
 * is 366 x 2 rows, not one per yard.
 */
export const YARD_GRAINS = [QUARTER_MS, HOUR_MS, DAY_MS] as const;
export const EVERY_YARD_GRAINS = [HOUR_MS, DAY_MS] as const;

export const FIGURE = {
  /** item: load status; n trailers. */
  trailerLoad: 'trailer-load',
  /** item: carrier id ('' none); n trailers. */
  trailerCarrier: 'trailer-carrier',
  /** item ''; n open trailer visits, total sum of their in_at. */
  trailerVisit: 'trailer-visit',
  /** item ''; n trucks. */
  truck: 'truck',
  /** item ''; n trucks with a check-in into the yard they are in, total sum of the latest one. */
  truckArrival: 'truck-arrival',
} as const;

export const NO_CARRIER = '';

export interface FigureDelta {
  yardId: string;
  figure: string;
  item: string;
  n: number;
  total: number;
}

export interface MovementDelta {
  scope: string;
  grain: number;
  bucket: number;
  direction: string;
  n: number;
}

export function bucketOf(at: number, grain: number): number {
  return Math.floor(at / grain) * grain;
}

/** The buckets a movement row counts in. */
export function movementBuckets(row: ObservedRow | undefined, sign: 1 | -1): MovementDelta[] {
  if (!row) return [];
  const at = Number(row.at);
  const direction = String(row.direction);
  const yardId = String(row.yardId);
  return [
    ...YARD_GRAINS.map((grain) => ({
      scope: yardId,
      grain,
      bucket: bucketOf(at, grain),
      direction,
      n: sign,
    })),
    ...EVERY_YARD_GRAINS.map((grain) => ({
      scope: everyYardScope(yardId),
      grain,
      bucket: bucketOf(at, grain),
      direction,
      n: sign,
    })),
  ];
}

/** A trailer in a yard counts for its load status and its carrier there. */
export function trailerFigures(row: ObservedRow | undefined): FigureDelta[] {
  if (!row || typeof row.yardId !== 'string') return [];
  const carrier = typeof row.carrierId === 'string' ? row.carrierId : NO_CARRIER;
  return [
    { yardId: row.yardId, figure: FIGURE.trailerLoad, item: String(row.loadStatus), n: 1, total: 0 },
    { yardId: row.yardId, figure: FIGURE.trailerCarrier, item: carrier, n: 1, total: 0 },
  ];
}

/** An open trailer visit counts once, with its check-in time (for the mean dwell). */
export function visitFigures(row: ObservedRow | undefined): FigureDelta[] {
  if (row?.unitKind !== 'trailer' || row.outAt !== null) return [];
  return [
    { yardId: String(row.yardId), figure: FIGURE.trailerVisit, item: '', n: 1, total: Number(row.inAt) },
  ];
}

/** A truck in a yard; with its latest check-in there (if it has one) for the mean dwell. */
export function truckFigures(yardId: unknown, arrivalAt: number | undefined): FigureDelta[] {
  if (typeof yardId !== 'string') return [];
  const out: FigureDelta[] = [{ yardId, figure: FIGURE.truck, item: '', n: 1, total: 0 }];
  if (arrivalAt !== undefined)
    out.push({ yardId, figure: FIGURE.truckArrival, item: '', n: 1, total: arrivalAt });
  return out;
}

/** after - before, per counter; counters that do not change are left out. */
export function netFigures(before: FigureDelta[], after: FigureDelta[]): FigureDelta[] {
  const byKey = new Map<string, FigureDelta>();
  const add = (d: FigureDelta, sign: number) => {
    const key = `${d.yardId}|${d.figure}|${d.item}`;
    const sum = byKey.get(key) ?? { ...d, n: 0, total: 0 };
    sum.n += sign * d.n;
    sum.total += sign * d.total;
    byKey.set(key, sum);
  };
  for (const d of before) add(d, -1);
  for (const d of after) add(d, 1);
  return [...byKey.values()].filter((d) => d.n !== 0 || d.total !== 0);
}
