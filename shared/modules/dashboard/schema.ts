import { Id, IsoDateTime, IsoDateTimeMs } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';

export const Bucket = z.enum(['hour', 'day']);

export const MovementFiguresQuery = z.object({
  yardId: Id.optional().openapi({
    description: "one yard (buckets in the yard's time zone); default every yard in scope (UTC)",
  }),
  from: IsoDateTimeMs.optional().openapi({ description: 'default: to minus 24 h (hour) or 30 days (day)' }),
  to: IsoDateTimeMs.optional().openapi({ description: 'default: now' }),
  bucket: Bucket.default('hour'),
});

export const MovementFiguresOut = z
  .object({
    yardId: Id.nullable(),
    timeZone: z.string().openapi({ description: "the yard's IANA zone with yardId, else UTC" }),
    bucket: Bucket,
    from: IsoDateTime.openapi({ description: 'start of the first bucket' }),
    to: IsoDateTime.openapi({ description: 'end of the last bucket' }),
    totals: z.object({ in: z.number().int(), out: z.number().int() }),
    buckets: z.array(
      z.object({
        start: IsoDateTime,
        label: z
          .string()
          .openapi({ description: 'local date (day) or local date and hour (hour)', example: '2026-03-08' }),
        in: z.number().int(),
        out: z.number().int(),
      }),
    ),
  })
  .openapi('DashboardMovementFigures');

export const YardFilterQuery = z.object({ yardId: Id.optional() });

export const ErrorWindowQuery = YardFilterQuery.extend({
  from: IsoDateTimeMs.optional().openapi({
    description: 'default: to minus setting dashboard.errorWindowMinutes',
  }),
  to: IsoDateTimeMs.optional().openapi({ description: 'default: now' }),
});

const YardLabel = {
  yardId: Id.nullable().openapi({ description: 'null: responses not attributable to a yard' }),
  yardCode: z.string().nullable(),
  yardName: z.string().nullable(),
};

export const ErrorFiguresOut = z
  .object({
    from: IsoDateTime,
    to: IsoDateTime,
    items: z.array(
      z.object({
        ...YardLabel,
        total: z.number().int(),
        byStatus: z.array(z.object({ status: z.number().int(), count: z.number().int() })),
      }),
    ),
  })
  .openapi('DashboardErrorFigures');

export const TrailerFiguresOut = z
  .object({
    items: z.array(
      z.object({
        ...YardLabel,
        yardId: Id,
        trailersInYard: z.number().int(),
        byLoadStatus: z.object({
          empty: z.number().int(),
          loaded: z.number().int(),
          unknown: z.number().int(),
        }),
        byCarrier: z.array(
          z.object({ carrierId: Id.nullable(), carrierName: z.string().nullable(), count: z.number().int() }),
        ),
        openVisits: z.number().int(),
        averageDwellMs: z
          .number()
          .int()
          .nullable()
          .openapi({ description: 'over open trailer visits, up to now' }),
      }),
    ),
  })
  .openapi('DashboardTrailerFigures');

export const TruckFiguresOut = z
  .object({
    items: z.array(
      z.object({
        ...YardLabel,
        yardId: Id,
        trucksInYard: z.number().int(),
        averageDwellMs: z
          .number()
          .int()
          .nullable()
          .openapi({ description: "since each truck's latest check-in into the yard, up to now" }),
      }),
    ),
  })
  .openapi('DashboardTruckFigures');

/** Per yard, the movements of one local day each: the all-yards overview in one request. */
export const YardMovementQuery = YardFilterQuery.extend({
  at: IsoDateTimeMs.optional().openapi({
    description: "the moment whose day is counted, in each yard's own time zone; default now",
  }),
});

export const YardMovementOut = z
  .object({
    items: z.array(
      z.object({
        ...YardLabel,
        yardId: Id,
        timeZone: z.string().openapi({ description: "the yard's IANA zone" }),
        from: IsoDateTime.openapi({ description: "start of the yard's local day" }),
        to: IsoDateTime.openapi({ description: 'end of that day (23 or 25 hours after from on DST days)' }),
        in: z.number().int(),
        out: z.number().int(),
      }),
    ),
  })
  .openapi('DashboardYardMovementFigures');

export type MovementFiguresQueryT = z.infer<typeof MovementFiguresQuery>;
export type MovementFiguresOutT = z.infer<typeof MovementFiguresOut>;
export type ErrorFiguresOutT = z.infer<typeof ErrorFiguresOut>;
export type TrailerFiguresOutT = z.infer<typeof TrailerFiguresOut>;
export type YardMovementQueryT = z.infer<typeof YardMovementQuery>;
export type YardMovementOutT = z.infer<typeof YardMovementOut>;
export type TruckFiguresOutT = z.infer<typeof TruckFiguresOut>;
