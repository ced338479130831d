import { asciiLower } from '../../db/sql-helpers.js';
import { LOAD_STATUSES, TRAILER_TYPES } from '../../enums.js';
import { Id, IsoDateTime, PageQuery, QueryBool, queryList } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
import { z } from '../../http/zod.js';
import { Plate, PlateRegion } from '../trucks/schema.js';

export const TrailerType = z.enum(TRAILER_TYPES);
export const LoadStatus = z.enum(LOAD_STATUSES);

/** Trailer numbers are stored trimmed, uppercase, with single spaces: "abcu  123" is "ABCU 123". */
export function normalizeTrailerNumber(value: string): string {
  return value.trim().replace(/\s+/g, ' ').toUpperCase();
}

/**
 * A number as typed, in the form SQL's lower(number) gives the stored one (the trailer_number index):
 * normalised as stored (upper-cased, Ü included), then A-Z lowered as lower() does on both
 * databases. "über 7" thus finds "ÜBER 7", which toLowerCase ("über 7") never would.
 */
export function trailerNumberKey(value: string): string {
  return asciiLower(normalizeTrailerNumber(value));
}

export const TrailerOut = z
  .object({
    id: Id,
    carrierId: Id.nullable(),
    number: z.string(),
    plate: z.string().nullable(),
    plateRegion: z.string().nullable(),
    type: TrailerType,
    lengthFt: z.number().int().nullable(),
    loadStatus: LoadStatus,
    sealNumber: z.string().nullable(),
    yardId: Id.nullable().openapi({ description: 'The yard the trailer is in (set by gate movements)' }),
    locationId: Id.nullable(),
    inYard: z.boolean(),
    arrivedAt: IsoDateTime.nullable(),
    notes: z.string().nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Trailer');

const trailerFields = {
  carrierId: Id.nullable().optional(),
  number: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .transform(normalizeTrailerNumber)
    .openapi({ description: 'Unique per carrier', example: 'ABCU 123456 7' }),
  plate: Plate.nullable().optional(),
  plateRegion: PlateRegion.nullable().optional(),
  type: TrailerType.optional(),
  lengthFt: z.number().int().min(10).max(65).nullable().optional(),
  loadStatus: LoadStatus.optional(),
  sealNumber: z.string().trim().min(1).max(40).nullable().optional(),
  notes: z.string().trim().max(2000).nullable().optional(),
};

export const TrailerCreate = z
  .object(trailerFields)
  .strict()
  .openapi('TrailerCreate', {
    description: 'A trailer known before it arrives (a gate check-in also creates unknown ones).',
    example: { carrierId: EXAMPLE_ID.carrier, number: 'PRFU 482113', type: 'reefer', lengthFt: 53 },
  });

export const TrailerPatch = z
  .object({
    ...trailerFields,
    locationId: Id.nullable().openapi({
      description: 'Only while the trailer is in a yard, and only a location of that yard; null clears it',
    }),
  })
  .partial()
  .strict()
  .openapi('TrailerPatch', {
    description: 'Fields to change; locationId moves a trailer that is in a yard within that yard.',
    example: { loadStatus: 'loaded', sealNumber: 'SL-99812', locationId: EXAMPLE_ID.location },
  });

/** At most this many ids in one list request: 100 ids keep the URL far below the server's header limit. */
export const MAX_IDS = 100;

export const TrailerListQuery = PageQuery.extend({
  ids: queryList(Id)
    .refine((ids) => ids === undefined || ids.length <= MAX_IDS, `at most ${MAX_IDS} ids`)
    .openapi({
      description: `only these trailers (repeat or comma-separate, at most ${MAX_IDS}); ids you may not see are left out`,
    }),
  yardId: Id.optional(),
  carrierId: Id.optional(),
  inYard: QueryBool.optional(),
  loadStatus: LoadStatus.optional(),
  q: z.string().trim().min(1).max(40).optional().openapi({
    description: 'number (spaces and case ignored) or plate contains',
  }),
  number: z.string().trim().min(1).max(40).optional().openapi({
    description: 'exactly this number (spaces and case ignored), of any carrier',
  }),
});

export type TrailerOutT = z.infer<typeof TrailerOut>;
export type TrailerCreateT = z.infer<typeof TrailerCreate>;
export type TrailerPatchT = z.infer<typeof TrailerPatch>;
export type TrailerListQueryT = z.infer<typeof TrailerListQuery>;
