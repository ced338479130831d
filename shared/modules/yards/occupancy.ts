import { sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { Id } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import type { YardRow } from './repo.js';

/**
 * A yard's occupancy as the dashboard's Yard screen shows it (docs/web-apps.md "Yard"), counted by
 * the database in one request whatever the yard holds. Without it the screen read every place of
 * the yard page by page (4,000 places: nine pages of 500) and every place's trailer count, only to
 * count them.
 *
 * Where a trailer can stand (as the gate's move dialog counts them): an active spot, door or
 * staging lane; a zone is an area, not a place, and an inactive place holds no one.
 */
const PARKING = ['spot', 'door', 'staging'] as const;

export const OccupancyOut = z
  .object({
    yardId: Id,
    trailers: z.number().int().openapi({ description: 'trailers in the yard' }),
    capacity: z
      .number()
      .int()
      .openapi({
        description:
          "trailer spaces: the yard record's capacity when set, else the capacities of its active spots, " +
          'doors and staging lanes added up (each at least 1)',
      }),
    capacitySource: z.enum(['yard', 'places']).openapi({ description: 'where `capacity` comes from' }),
    places: z.number().int().openapi({ description: 'active spots, doors and staging lanes' }),
    placesInUse: z.number().int().openapi({ description: 'of `places`, those holding at least one trailer' }),
    unplaced: z.number().int().openapi({
      description:
        'trailers in the yard on none of `places` (just checked in, in a zone, or on an inactive place)',
    }),
  })
  .openapi('YardOccupancy');

export type OccupancyOutT = z.infer<typeof OccupancyOut>;

/** Three counts, each on an index range of this yard's rows (location_yard_name, trailer_yard). */
export async function readOccupancy(db: Kdb, yard: Pick<YardRow, 'id' | 'capacity'>): Promise<OccupancyOutT> {
  const [places, trailers, onPlaces] = await Promise.all([
    db
      .selectFrom('location')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        sql<number>`coalesce(sum(case when capacity < 1 then 1 else capacity end), 0)`.as('capacity'),
      ])
      .where('yardId', '=', yard.id)
      .where('status', '=', 'active')
      .where('kind', 'in', PARKING)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('trailer')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('yardId', '=', yard.id)
      .executeTakeFirstOrThrow(),
    // The yard's places as a set first: the trailers are then counted on one index range with a
    // lookup each (a join that read each trailer's place row took three times as long at 5,000).
    db
      .selectFrom('trailer')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        sql<number>`count(distinct location_id)`.as('places'),
      ])
      .where('yardId', '=', yard.id)
      .where('locationId', 'in', (eb) =>
        eb
          .selectFrom('location')
          .select('id')
          .where('yardId', '=', yard.id)
          .where('status', '=', 'active')
          .where('kind', 'in', PARKING),
      )
      .executeTakeFirstOrThrow(),
  ]);
  const total = Number(trailers.n);
  return {
    yardId: yard.id,
    trailers: total,
    capacity: yard.capacity ?? Number(places.capacity),
    capacitySource: yard.capacity === null ? 'places' : 'yard',
    places: Number(places.n),
    placesInUse: Number(onPlaces.places),
    unplaced: total - Number(onPlaces.n),
  };
}
