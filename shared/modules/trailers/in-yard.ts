import { sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { Id, QueryBool } from '../../http/common-schemas.js';
import { RawJson } from '../../http/raw-json.js';
import { z } from '../../http/zod.js';
import { TrailerOut } from './schema.js';

/**
 * What the dashboard's Yard screen shows of the trailers in one yard, in one request whatever the
 * yard holds (docs/web-apps.md "Yard"): how many stand on each place (occupancy by place) and the
 * ones in the yard longest. Without it the screen read every trailer of the yard page by page
 * (5,000 trailers: ten pages one after another) to count places and pick twenty.
 */
export const InYardQuery = z.object({
  yardId: Id,
  longest: z.coerce.number().int().min(0).max(100).default(20).openapi({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    default: 20,
    description: 'how many of the longest in the yard',
  }),
  byLocation: QueryBool.default(true).openapi({
    type: 'boolean',
    default: true,
    description:
      'false: leave out `byLocation` (a yard of 4,000 places answers it in some 280 kB); the places in ' +
      'use are counted by GET /api/yard/{id}/occupancy',
  }),
});

export const InYardOut = z
  .object({
    yardId: Id,
    trailers: z.number().int().openapi({ description: 'trailers in the yard' }),
    byLocation: z
      .array(
        z.object({
          locationId: Id.nullable().openapi({ description: 'null: on no place (last among equal counts)' }),
          trailers: z.number().int(),
        }),
      )
      .optional()
      .openapi({ description: 'absent when asked with byLocation=false' }),
    longest: z.array(TrailerOut).openapi({
      description: 'the trailers in the yard longest, earliest arrival first (no arrival time last)',
    }),
  })
  .openapi('TrailersInYard');

export type InYardQueryT = z.infer<typeof InYardQuery>;

/**
 * The two reads, each on the trailer_yard (yard_id, id) index: a count per place (or, without
 * byLocation, of the yard) and a sort of one yard's rows.
 */
export async function readInYard(
  db: Kdb,
  yardId: string,
  longest: number,
  withPlaces: boolean,
): Promise<RawJson> {
  const places = withPlaces
    ? await db
        .selectFrom('trailer')
        .select((eb) => ['locationId', eb.fn.countAll<number>().as('n')])
        .where('yardId', '=', yardId)
        .groupBy('locationId')
        .execute()
    : await db
        .selectFrom('trailer')
        .select((eb) => [sql<null>`null`.as('locationId'), eb.fn.countAll<number>().as('n')])
        .where('yardId', '=', yardId)
        .execute();
  const rows =
    longest === 0
      ? []
      : await db
          .selectFrom('trailer')
          .select('apiJson')
          .where('yardId', '=', yardId)
          .orderBy(sql`arrived_at is null`)
          .orderBy('arrivedAt')
          .orderBy('id')
          .limit(longest)
          .execute();
  const byLocation = places
    .map((p) => ({ locationId: p.locationId, trailers: Number(p.n) }))
    .sort(
      (a, b) =>
        b.trailers - a.trailers ||
        Number(a.locationId === null) - Number(b.locationId === null) ||
        (a.locationId ?? '').localeCompare(b.locationId ?? ''),
    );
  const head = JSON.stringify({
    yardId,
    trailers: byLocation.reduce((sum, p) => sum + p.trailers, 0),
    ...(withPlaces ? { byLocation } : {}),
  });
  // The rows' JSON is the list's own (api_json, the same text as trailerOut): spliced in as it is.
  return new RawJson(`${head.slice(0, -1)},"longest":[${rows.map((r) => r.apiJson).join(',')}]}`);
}
