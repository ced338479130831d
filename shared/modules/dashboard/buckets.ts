/**
 * The time buckets of the movement figures (docs/architecture.md): how long a range may be, and
 * which stored rollup grain answers a set of bucket boundaries exactly.
 */
import { ValidationError } from '../../http/errors.js';
import { DAY_MS } from './rollups/rules.js';

const MAX_RANGE = { hour: 31 * DAY_MS, day: 366 * DAY_MS } as const;
/** The range asked without `from`: a day of hours, thirty days of days. */
export const DEFAULT_RANGE = { hour: DAY_MS, day: 30 * DAY_MS } as const;

export function checkRange(from: number, to: number, bucket: 'hour' | 'day'): void {
  if (from >= to) throw new ValidationError([{ path: 'query.from', message: 'must be before to' }]);
  if (to - from > MAX_RANGE[bucket]) {
    const most = bucket === 'hour' ? '31 days with hour buckets' : '366 days with day buckets';
    throw new ValidationError([{ path: 'query.from', message: `the range may span at most ${most}` }]);
  }
}

/**
 * The longest kept bucket length that divides every boundary (bucket starts and the end): each
 * stored bucket then lies inside one answered bucket. A yard in a zone a whole number of hours
 * from UTC reads hour counts (a year of day buckets: at most 366 x 24 x 2 rows), one in UTC or
 * across yards day counts; a zone such as +05:30 quarter hours.
 */
export function coarsestGrain(grains: readonly number[], boundaries: number[]): number {
  const fits = [...grains].sort((a, b) => b - a).find((g) => boundaries.every((t) => t % g === 0));
  return fits ?? Math.min(...grains);
}

/** Index of the last start <= t (starts ascending, t >= starts[0]). */
export function lastAtOrBefore(starts: number[], t: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? Number.POSITIVE_INFINITY) <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
