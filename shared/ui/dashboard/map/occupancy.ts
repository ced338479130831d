import { LOAD_LABEL } from '../../common/inventory/labels';
import type { InventoryRow } from '../../common/inventory/rows';
import { duration } from '../../common/time';

/**
 * How long a place has been taken, the map's colour (and pattern) classes: the longest dwell of
 * the trailers on it decides. Empty / under a day / one to three days / over three days.
 */
export type Band = 'empty' | 'day' | 'days' | 'long';

const HOUR = 3_600_000;

export function bandOf(dwellMs: number | null): Band {
  if (dwellMs === null) return 'empty';
  if (dwellMs < 24 * HOUR) return 'day';
  if (dwellMs <= 72 * HOUR) return 'days';
  return 'long';
}

export const BAND_LABEL: Record<Band, string> = {
  empty: 'Empty',
  day: 'Occupied, under 24 h',
  days: 'Occupied, 1 to 3 days',
  long: 'Occupied, over 3 days',
};

/** What stands on one location. */
export interface Occupancy {
  trailers: InventoryRow[];
  band: Band;
}

/** The trailers on each location (longest dwell first) and its band. */
export function occupancyByLocation(rows: InventoryRow[]): Map<string, Occupancy> {
  const out = new Map<string, Occupancy>();
  for (const r of rows) {
    if (!r.locationId) continue;
    const entry = out.get(r.locationId) ?? { trailers: [], band: 'empty' as Band };
    entry.trailers.push(r);
    out.set(r.locationId, entry);
  }
  for (const entry of out.values()) {
    entry.trailers.sort((a, b) => b.dwellMs - a.dwellMs);
    entry.band = bandOf(entry.trailers[0]!.dwellMs);
  }
  return out;
}

/** "LSLG5300, Lone Star Logistics (LSLG), loaded, 3 h 5 min in the yard". */
export function trailerSummary(r: InventoryRow): string {
  const carrier = r.carrier ? `, ${r.carrier}` : '';
  return `${r.number}${carrier}, ${LOAD_LABEL[r.loadStatus].toLowerCase()}, ${duration(r.dwellMs)} in the yard`;
}

/** What a screen reader says of a location on the map (and the tooltip's first line). */
export function locationSummary(name: string, kindLabel: string, occupancy: Occupancy | undefined): string {
  if (!occupancy) return `${name} (${kindLabel}): empty`;
  return `${name} (${kindLabel}): ${occupancy.trailers.map(trailerSummary).join('; ')}`;
}

export const KIND_LABEL = { spot: 'spot', door: 'door', zone: 'zone', staging: 'staging area' } as const;
