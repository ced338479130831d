import type { Schemas } from '../../common/api/client';
import { buildRows, type InventoryRow } from '../../common/inventory/rows';

type Location = Schemas['Location'];

/** A yard's occupancy as GET /api/yard/{id}/occupancy counts it (places: active spots, doors, staging lanes). */
export type Occupancy = Schemas['YardOccupancy'];

/** The trailers that have been in the yard longest (the gate inventory's rows, longest dwell first). */
export function longestDwell(
  inYard: Schemas['Trailer'][],
  carriers: Schemas['Carrier'][],
  locations: Location[],
  now: number,
  top = 20,
): InventoryRow[] {
  return buildRows(inYard, carriers, locations, [], now)
    .sort((a, b) => b.dwellMs - a.dwellMs)
    .slice(0, top);
}

export const count = new Intl.NumberFormat();
export const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });
