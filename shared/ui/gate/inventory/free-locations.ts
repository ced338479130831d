import type { Schemas } from '../../common/api/client';

type Location = Schemas['Location'];

/** Kinds a trailer can be moved to (a zone is an area, not a place to park). */
const PARKING = new Set<Location['kind']>(['spot', 'door', 'staging']);

/**
 * Where a trailer can be sent: active spots, doors and staging areas with room left, counting the
 * trailers standing there and the open move requests already heading there. `exceptId` (the
 * trailer's own place) is left out: a move goes somewhere else.
 */
export function freeLocations(
  locations: Location[],
  occupiedBy: Array<{ locationId: string | null }>,
  openTasks: Array<{ toLocationId: string | null }>,
  exceptId?: string | null,
): Location[] {
  const used = new Map<string, number>();
  for (const id of [...occupiedBy.map((t) => t.locationId), ...openTasks.map((t) => t.toLocationId)]) {
    if (id) used.set(id, (used.get(id) ?? 0) + 1);
  }
  return locations.filter(
    (l) =>
      l.status === 'active' &&
      PARKING.has(l.kind) &&
      l.id !== exceptId &&
      (used.get(l.id) ?? 0) < Math.max(1, l.capacity),
  );
}
