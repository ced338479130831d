import { Id, IsoDateTime } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { AppointmentStatusSchema } from '../appointments/schema.js';

/**
 * What the search across kinds finds. A new kind is one more value here and one more source in
 * service.ts; its hits have the same shape.
 */
export const SEARCH_KINDS = ['trailer', 'truck', 'driver', 'carrier', 'appointment'] as const;
export const SearchKind = z.enum(SEARCH_KINDS);
export type SearchKindT = z.infer<typeof SearchKind>;

export const SearchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .openapi({
      description:
        'a trailer number (spaces ignored), a plate, a unit number, a name, a phone, a licence, a SCAC, ' +
        'an appointment code or an appointment’s ref (PO / BOL number)',
      example: '4821',
    }),
  limit: z.coerce.number().int().min(1).max(50).default(20).openapi({
    type: 'integer',
    minimum: 1,
    maximum: 50,
    default: 20,
    description: 'how many best matches, over every kind',
  }),
});

const Named = z.object({ id: Id, name: z.string() });

export const Whereabouts = z
  .object({
    state: z.enum(['in-yard', 'left', 'not-arrived']).openapi({
      description:
        'in-yard: in `yard` (on `location` when it has a spot) since `since`, its check-in; ' +
        'left: checked out of `yard` at `since` through `gate` (both null when not known: a truck that ' +
        'left without the trailer it brought); not-arrived: never checked in',
    }),
    yard: Named.nullable(),
    location: Named.nullable().openapi({ description: 'the spot, door or zone it stands on' }),
    since: IsoDateTime.nullable().openapi({
      description: 'in-yard: when it checked in (the open visit); left: when it checked out',
    }),
    gate: Named.nullable().openapi({ description: 'left: the gate it went out through' }),
  })
  .openapi('Whereabouts', {
    description:
      'Where a unit is. For a unit that left a yard outside the caller’s yard scope, yard and gate are null.',
  });

export const AppointmentPlace = z
  .object({
    yard: Named,
    startAt: IsoDateTime,
    door: Named,
    status: AppointmentStatusSchema,
    refs: z.array(z.string()),
  })
  .openapi('SearchAppointment', {
    description: 'Where and when an appointment is booked, to open it on the yard’s dock schedule of its day',
  });

export const SearchHit = z
  .object({
    kind: SearchKind,
    id: Id,
    label: z.string().openapi({
      description: 'the trailer number, the plate (or unit number), the name, the appointment code',
    }),
    secondary: z
      .string()
      .nullable()
      .openapi({ description: 'the carrier and its SCAC; a carrier’s SCAC; “Yard driver”' }),
    match: z.enum(['exact', 'prefix', 'contains']).openapi({
      description: 'how the text matched: is it, starts it, is inside it',
    }),
    where: Whereabouts.nullable().openapi({ description: 'trailers and trucks; null for other kinds' }),
    appointment: AppointmentPlace.nullable().openapi({ description: 'appointments; null for other kinds' }),
  })
  .openapi('SearchHit');

export const SearchOut = z
  .object({
    items: z.array(SearchHit),
    nextCursor: z.string().nullable().openapi({
      description:
        'always null: a search answers one ranked page, the best `limit` matches; narrow q for others',
    }),
  })
  .openapi('SearchResult');

export type SearchHitT = z.infer<typeof SearchHit>;
export type WhereaboutsT = z.infer<typeof Whereabouts>;
export type AppointmentPlaceT = z.infer<typeof AppointmentPlace>;
