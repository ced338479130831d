import type { Schemas } from '../../common/api/client';

/** In or out: the API's own list (generated types). */
export type Direction = Schemas['Movement']['direction'];

/**
 * The movement log's one search box: a trailer number or a truck plate, turned into the filter the
 * API has (trailerId or truckId). Exact matches win; several partial ones are offered to pick from.
 */
export interface Unit {
  id: string;
  label: string;
  kind: 'trailer' | 'truck';
  /** The number (trailer) or plate (truck) compared with what was typed. */
  key: string;
}

export type SearchTarget =
  | { kind: 'none' }
  | { kind: 'unit'; unit: Unit }
  | { kind: 'choose'; options: Unit[] };

/** Case, spaces and dashes do not count: "prfu 482-113" is PRFU482113. */
export function normalise(s: string): string {
  return s.toUpperCase().replace(/[\s-]+/g, '');
}

export function searchTarget(typed: string, found: Unit[]): SearchTarget {
  const want = normalise(typed);
  if (!want) return { kind: 'none' };
  const exact = found.filter((u) => normalise(u.key) === want);
  if (exact.length === 1) return { kind: 'unit', unit: exact[0]! };
  const candidates = exact.length > 1 ? exact : found.filter((u) => normalise(u.key).includes(want));
  if (candidates.length === 0) return { kind: 'none' };
  if (candidates.length === 1) return { kind: 'unit', unit: candidates[0]! };
  return { kind: 'choose', options: candidates.slice(0, 8) };
}

/** Filters of the movement log (what the live feed must match to show a new movement). */
export interface MovementFilter {
  direction?: Direction | undefined;
  from?: string | undefined;
  to?: string | undefined;
  trailerId?: string | undefined;
  truckId?: string | undefined;
}

/** Whether a movement arriving live belongs on the list the clerk is looking at. */
export function matchesFilter(
  m: { yardId: string; direction: string; at: string; trailerId: string | null; truckId: string | null },
  yardId: string,
  f: MovementFilter,
): boolean {
  if (m.yardId !== yardId) return false;
  if (f.direction && m.direction !== f.direction) return false;
  const at = Date.parse(m.at);
  if (f.from && at < Date.parse(f.from)) return false;
  if (f.to && at >= Date.parse(f.to)) return false;
  if (f.trailerId && m.trailerId !== f.trailerId) return false;
  if (f.truckId && m.truckId !== f.truckId) return false;
  return true;
}
