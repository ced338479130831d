import { ACTUATION_RESULTS, DIRECTIONS } from '../../enums.js';
import { Id, IsoDateTime, IsoDateTimeMs, PageQuery, QueryBool } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
import { z } from '../../http/zod.js';
import { LoadStatus, TrailerType } from '../trailers/schema.js';

export const Direction = z.enum(DIRECTIONS);

const TrailerRef = z
  .object({
    id: Id.optional().openapi({ description: 'a known trailer' }),
    number: z.string().trim().min(1).max(40).optional().openapi({
      description:
        'matched case-insensitively (with carrierId when given); an unknown number creates the trailer',
    }),
    carrierId: Id.optional(),
    type: TrailerType.optional(),
    plate: z.string().trim().min(1).max(20).optional(),
    confirmNew: z
      .boolean()
      .optional()
      .openapi({
        description:
          'the clerk confirmed that an unknown number is a new unit as typed: different from the known trailers ' +
          'with this number (409 same-number-unit) and kept despite a wrong container check digit ' +
          '(409 check-digit-mismatch); the movement records a warning',
      }),
  })
  .strict()
  .refine((t) => (t.id === undefined) !== (t.number === undefined), 'give either id or number')
  .refine(
    (t) => t.id === undefined || (t.carrierId ?? t.type ?? t.plate ?? t.confirmNew) === undefined,
    'carrierId, type, plate and confirmNew describe a new trailer: send them with number, not id',
  );

const TruckRef = z
  .object({
    id: Id.optional().openapi({ description: 'a known truck' }),
    plate: z.string().trim().min(1).max(20).optional().openapi({
      description: 'matched in upper case (with plateRegion when given); an unknown plate creates the truck',
    }),
    plateRegion: z.string().trim().min(1).max(20).optional(),
    carrierId: Id.optional(),
    unitNumber: z.string().trim().min(1).max(40).optional(),
  })
  .strict()
  .refine((t) => (t.id === undefined) !== (t.plate === undefined), 'give either id or plate')
  .refine(
    (t) => t.id === undefined || (t.carrierId ?? t.unitNumber ?? t.plateRegion) === undefined,
    'carrierId, plateRegion and unitNumber describe a new truck: send them with plate, not id',
  );

export const MovementCreate = z
  .object({
    yardId: Id,
    gateId: Id.optional(),
    direction: Direction,
    at: IsoDateTimeMs.optional().openapi({ description: 'when the unit passed the gate; default now' }),
    trailer: TrailerRef.optional(),
    truck: TruckRef.optional(),
    driverId: Id.optional(),
    carrierId: Id.optional().openapi({ description: "default: the trailer's, truck's or driver's carrier" }),
    locationId: Id.optional().openapi({ description: 'check-in: where the trailer is parked' }),
    loadStatus: LoadStatus.optional(),
    sealNumber: z.string().trim().min(1).max(40).optional(),
    plateRead: z
      .string()
      .trim()
      .min(1)
      .max(20)
      .optional()
      .openapi({ description: 'plate as read by a camera' }),
    attachmentIds: z.array(Id).max(20).optional(),
    notes: z.string().max(1000).optional(),
    force: z.boolean().optional().openapi({
      description:
        'record a check-in of a unit already in a yard / a check-out of one not in this yard, with a warning',
    }),
    override: z
      .object({ reason: z.string().trim().min(1).max(500) })
      .strict()
      .optional()
      .openapi({ description: 'admit a driver the driver check refuses; the reason is recorded' }),
    actuate: z.boolean().optional().openapi({
      description:
        'pulse the gate relay after recording (needs gateId); answered once the relay is energised (gate.released follows)',
    }),
    snapshot: z.boolean().optional(),
    correctsId: Id.optional().openapi({ description: 'the movement this one corrects' }),
    appointmentId: Id.optional().openapi({
      description:
        'check-in: the appointment this arrival matches (of this yard, not cancelled, completed or arrived ' +
        'already: 404 / 409 invalid-transition); without it the arrival is a walk-in',
    }),
  })
  .strict()
  .refine((m) => m.trailer !== undefined || m.truck !== undefined, {
    message: 'a movement needs a trailer or a truck',
    path: ['trailer'],
  })
  .refine((m) => !m.actuate || m.gateId !== undefined, {
    message: 'actuate needs a gateId',
    path: ['gateId'],
  })
  .refine((m) => m.appointmentId === undefined || m.direction === 'in', {
    message: 'an appointment is matched on a check-in only',
    path: ['appointmentId'],
  })
  .openapi('MovementCreate', {
    description:
      'One unit passing a gate: a check-in puts it in the yard, a check-out takes it out. ' +
      'at defaults to now; it may not precede the check-in of the visit it closes.',
    example: {
      yardId: EXAMPLE_ID.yard,
      gateId: EXAMPLE_ID.gate,
      direction: 'in',
      trailer: { number: 'PRFU 482113', carrierId: EXAMPLE_ID.carrier, type: 'reefer' },
      truck: { plate: 'IL 4821 PX', plateRegion: 'US-IL' },
      driverId: EXAMPLE_ID.driver,
      locationId: EXAMPLE_ID.location,
      loadStatus: 'loaded',
      sealNumber: 'SL-99812',
      actuate: true,
      snapshot: true,
    },
  });

export const MovementOut = z
  .object({
    id: Id,
    yardId: Id,
    gateId: Id.nullable(),
    direction: Direction,
    at: IsoDateTime,
    truckId: Id.nullable(),
    trailerId: Id.nullable(),
    driverId: Id.nullable(),
    carrierId: Id.nullable(),
    locationId: Id.nullable(),
    loadStatus: LoadStatus.nullable(),
    sealNumber: z.string().nullable(),
    plateRead: z.string().nullable(),
    attachmentIds: z.array(Id),
    actuationId: Id.nullable().openapi({ description: 'the gate actuation this movement asked for' }),
    operatorId: z.string().nullable(),
    notes: z.string().nullable(),
    warnings: z.array(z.string()).openapi({ description: 'code: detail, e.g. forced moves, overrides' }),
    overrideReason: z.string().nullable(),
    correctsId: Id.nullable(),
    appointmentId: Id.nullable().openapi({
      description: 'the appointment this check-in matched; null for a walk-in',
    }),
    createdAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Movement');

export const MovementCreated = MovementOut.extend({
  actuation: z
    .object({
      id: Id.nullable(),
      result: z.enum(ACTUATION_RESULTS),
      code: z.string().nullable().openapi({ description: 'problem code when not ok, e.g. gate-busy' }),
      error: z.string().nullable(),
    })
    .nullable()
    .openapi({ description: 'null unless actuate was asked; the movement stands whatever the gate did' }),
  createdUnits: z.object({ trailerId: Id.nullable(), truckId: Id.nullable() }).openapi({
    description: 'units created by this movement (unknown number / plate)',
  }),
  snapshots: z
    .array(
      z.object({
        cameraId: Id,
        cameraName: z.string(),
        attachmentId: Id.nullable().openapi({ description: 'the picture, also listed in attachmentIds' }),
        error: z
          .string()
          .nullable()
          .openapi({ description: 'why this camera gave no picture (also in warnings)' }),
      }),
    )
    .openapi({
      description: 'one entry per enabled camera of the gate when snapshot was asked; empty otherwise',
    }),
}).openapi('MovementCreated');

export const MovementListQuery = PageQuery.extend({
  yardId: Id.optional(),
  direction: Direction.optional(),
  from: IsoDateTimeMs.optional().openapi({ description: 'at >= from' }),
  to: IsoDateTimeMs.optional().openapi({ description: 'at < to' }),
  carrierId: Id.optional(),
  trailerId: Id.optional(),
  truckId: Id.optional(),
  driverId: Id.optional(),
});

export const VisitOut = z
  .object({
    id: Id,
    yardId: Id,
    unitKind: z.enum(['trailer', 'truck']),
    trailerId: Id.nullable(),
    truckId: Id.nullable(),
    carrierId: Id.nullable(),
    inMovementId: Id,
    outMovementId: Id.nullable(),
    inAt: IsoDateTime,
    outAt: IsoDateTime.nullable(),
    open: z.boolean(),
    dwellMs: z.number().int().openapi({ description: 'in -> out, or in -> now for an open visit' }),
    dwell: z.string().openapi({ description: 'dwellMs as an ISO 8601 duration', example: 'PT26H5M' }),
  })
  .openapi('Visit');

export const VisitListQuery = PageQuery.extend({
  yardId: Id.optional(),
  open: QueryBool.optional().openapi({ description: 'true: units still in the yard; false: closed visits' }),
  trailerId: Id.optional(),
  truckId: Id.optional(),
  carrierId: Id.optional(),
  from: IsoDateTimeMs.optional().openapi({ description: 'inAt >= from' }),
  to: IsoDateTimeMs.optional().openapi({ description: 'inAt < to' }),
});

export type MovementCreateT = z.infer<typeof MovementCreate>;
export type MovementOutT = z.infer<typeof MovementOut>;
export type MovementCreatedT = z.infer<typeof MovementCreated>;
export type MovementListQueryT = z.infer<typeof MovementListQuery>;
export type VisitOutT = z.infer<typeof VisitOut>;
export type VisitListQueryT = z.infer<typeof VisitListQuery>;
