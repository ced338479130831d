import type { Schemas } from '../../common/api/client';
import { buildRows, type InventoryRow } from '../../common/inventory/rows';

type Location = Schemas['Location'];

/** Where a trailer can stand (as the gate's move dialog counts them): a zone is an area, not a place. */
const PARKING = new Set<Location['kind']>(['spot', 'door', 'staging']);

export interface Occupancy {
  trailers: number;
  /** Trailer spaces: the yard record's capacity when set, else the active places' capacities added up. */
  capacity: number;
  capacitySource: 'yard' | 'places';
  /** Active spots, doors and staging lanes, and how many hold at least one trailer. */
  places: number;
  placesInUse: number;
  /** Trailers in the yard on no place (just checked in, or parked anywhere). */
  unplaced: number;
}

/** `byLocation`: the trailers in the yard per place (null: on none), as GET /api/trailer/in-yard counts them. */
export function occupancy(
  yardCapacity: number | null,
  trailersInYard: number,
  locations: Location[],
  byLocation: { locationId: string | null; trailers: number }[],
): Occupancy {
  const parking = locations.filter((l) => l.status === 'active' && PARKING.has(l.kind));
  const ids = new Set(parking.map((l) => l.id));
  const onPlaces = byLocation.filter((p) => p.trailers > 0 && p.locationId !== null && ids.has(p.locationId));
  const placeCapacity = parking.reduce((n, l) => n + Math.max(1, l.capacity), 0);
  const all = byLocation.reduce((n, p) => n + p.trailers, 0);
  return {
    trailers: trailersInYard,
    capacity: yardCapacity ?? placeCapacity,
    capacitySource: yardCapacity === null ? 'places' : 'yard',
    places: parking.length,
    placesInUse: onPlaces.length,
    unplaced: all - onPlaces.reduce((n, p) => n + p.trailers, 0),
  };
}

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
