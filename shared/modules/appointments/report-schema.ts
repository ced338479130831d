/**
 * The detention report and the summary over HTTP (docs/api.md "Appointments"; the rules in
 * docs/domain.md "Wait and detention"). Figures are minutes with two decimals; times ISO 8601.
 */
import { DIRECTIONS } from '../../enums.js';
import { Id, IsoDateTime } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { AppointmentStatusSchema, ArrivalSchema } from './schema.js';

const ReportWindow = {
  yardId: Id.optional().openapi({ description: 'one yard; else every yard in your scope' }),
  from: IsoDateTime.optional().openapi({
    description: 'appointments starting at or after; default `to` - 30 days',
  }),
  to: IsoDateTime.optional().openapi({ description: 'appointments starting before; default now' }),
};

export const DetentionQuery = z.object({
  ...ReportWindow,
  carrierId: Id.optional().openapi({ description: 'one carrier' }),
});

export const SummaryQuery = z.object(ReportWindow);

const Minutes = z
  .number()
  .nullable()
  .openapi({ description: 'minutes, two decimals; null until it happened' });

export const DetentionMovement = z
  .object({
    id: Id,
    direction: z.enum(DIRECTIONS),
    at: IsoDateTime,
    gateName: z.string().nullable(),
    trailerNumber: z.string().nullable(),
    truckPlate: z.string().nullable(),
    attachmentIds: z.array(Id).openapi({ description: 'photos of the movement (GET /api/attachment/{id})' }),
  })
  .openapi('DetentionMovement');

export const DetentionItem = z
  .object({
    id: Id,
    code: z.string(),
    yardId: Id,
    yardCode: z.string(),
    timeZone: z.string(),
    doorId: Id,
    doorName: z.string(),
    loadTypeName: z.string(),
    carrierId: Id,
    carrierName: z.string(),
    refs: z.array(z.string()),
    trailerNumber: z.string().nullable(),
    truckPlate: z.string().nullable(),
    status: AppointmentStatusSchema,
    arrival: ArrivalSchema.nullable(),
    startAt: IsoDateTime,
    endAt: IsoDateTime,
    arrivedAt: IsoDateTime.nullable(),
    dockedAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
    departedAt: IsoDateTime.nullable(),
    noShowAt: IsoDateTime.nullable(),
    cancelledAt: IsoDateTime.nullable(),
    clockStartAt: IsoDateTime.nullable().openapi({
      description: 'startAt when arrived early or on time, arrivedAt when late',
    }),
    freeTimeMinutes: z.number().int(),
    waitMinutes: Minutes.openapi({ description: 'max(0, docked - clock start)' }),
    turnMinutes: Minutes.openapi({ description: 'departed - arrived' }),
    detentionMinutes: Minutes.openapi({ description: 'max(0, departed - clock start - free time)' }),
    movements: z.array(DetentionMovement).openapi({
      description: 'the gate movements of the arrival: check-in, and the check-outs of its truck and trailer',
    }),
  })
  .openapi('DetentionItem');

export const DetentionReport = z
  .object({ from: IsoDateTime, to: IsoDateTime, items: z.array(DetentionItem) })
  .openapi('DetentionReport');

const FiguresFields = {
  appointments: z.number().int().openapi({ description: 'counted: all but those cancelled before arriving' }),
  arrived: z.number().int(),
  early: z.number().int(),
  onTime: z.number().int(),
  late: z.number().int(),
  noShows: z.number().int(),
  onTimePercent: z
    .number()
    .nullable()
    .openapi({ description: 'onTime / (arrived + noShows) x 100, one decimal' }),
  waitP50Minutes: z.number().nullable(),
  waitP90Minutes: z.number().nullable(),
  turnP50Minutes: z.number().nullable(),
  turnP90Minutes: z.number().nullable(),
};

export const AppointmentFigures = z.object(FiguresFields).openapi('AppointmentFigures', {
  description: 'p50 / p90: nearest rank over the appointments that have the figure, in minutes',
});

export const AppointmentSummaryOut = z
  .object({
    from: IsoDateTime,
    to: IsoDateTime,
    all: AppointmentFigures,
    byCarrier: z.array(z.object({ carrierId: Id, carrierName: z.string(), ...FiguresFields })),
    byDoor: z.array(z.object({ doorId: Id, doorName: z.string(), ...FiguresFields })),
  })
  .openapi('AppointmentSummary');

export type DetentionQueryT = z.infer<typeof DetentionQuery>;
export type SummaryQueryT = z.infer<typeof SummaryQuery>;
export type DetentionItemT = z.infer<typeof DetentionItem>;
export type DetentionReportT = z.infer<typeof DetentionReport>;
export type AppointmentSummaryOutT = z.infer<typeof AppointmentSummaryOut>;
