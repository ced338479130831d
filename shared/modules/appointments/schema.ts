/**
 * Dock appointments over HTTP (docs/domain.md "Appointments", docs/api.md "Appointments"): the
 * records' shapes and the request bodies. One file for the module's contract; the services in this
 * folder map rows to these shapes in out.ts.
 */
import { Id, IsoDate, IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { APPOINTMENT_STATUSES } from './status.js';

/** The longest a load type (and so an appointment) may last: one day (repo.ts bounds its reads by it). */
export const LONGEST_DURATION_MINUTES = 1440;

export const AppointmentStatusSchema = z.enum(APPOINTMENT_STATUSES);
export const ArrivalSchema = z.enum(['early', 'on_time', 'late']);

const WallClock = z
  .string()
  .regex(/^([01]\d|2[0-4]):[0-5]\d$/, 'must be a time of day, HH:MM')
  .openapi({ example: '06:00' });

/** One opening span of a weekday, yard-local; `to` may be 24:00 (midnight at the end of the day). */
export const OpenSpan = z.object({ from: WallClock, to: WallClock }).strict();

/** ISO weekday ("1" = Monday ... "7" = Sunday) -> its opening spans; a missing day is closed. */
export const OpenHours = z
  .partialRecord(z.enum(['1', '2', '3', '4', '5', '6', '7']), z.array(OpenSpan).max(8))
  .openapi({ example: { '1': [{ from: '06:00', to: '18:00' }] } });

export const SchedulingConfigOut = z
  .object({
    yardId: Id,
    enabled: z.boolean(),
    openHours: OpenHours,
    closedDates: z.array(IsoDate),
    slotMinutes: z.number().int(),
    leadTimeMinMinutes: z.number().int(),
    leadTimeMaxDays: z.number().int(),
    changeCutoffMinutes: z.number().int(),
    lateGraceMinutes: z.number().int(),
    noShowAfterMinutes: z.number().int(),
    freeTimeMinutes: z.number().int(),
    /** 0 when the yard has no config yet (the defaults are shown). */
    version: z.number().int(),
  })
  .openapi('SchedulingConfig');

export const SchedulingConfigPut = z
  .object({
    enabled: z.boolean(),
    openHours: OpenHours,
    closedDates: z.array(IsoDate).max(366).default([]),
    slotMinutes: z.number().int().min(5).max(60).default(15),
    leadTimeMinMinutes: z.number().int().min(0).max(43_200).default(120),
    leadTimeMaxDays: z.number().int().min(0).max(366).default(30),
    changeCutoffMinutes: z.number().int().min(0).max(43_200).default(240),
    lateGraceMinutes: z.number().int().min(0).max(1440).default(15),
    noShowAfterMinutes: z.number().int().min(0).max(1440).default(60),
    freeTimeMinutes: z.number().int().min(0).max(2880).default(120),
  })
  .strict()
  .openapi('SchedulingConfigPut', {
    description: "A yard's scheduling config; noShowAfterMinutes >= lateGraceMinutes.",
  });

export const LoadDirection = z.enum(['inbound', 'outbound', 'both']);

export const LoadTypeOut = z
  .object({
    id: Id,
    yardId: Id,
    name: z.string(),
    direction: LoadDirection,
    durationMinutes: z.number().int(),
    /** Allowed doors; empty = every door of the yard. */
    doorIds: z.array(Id),
    carrierVisible: z.boolean(),
    version: z.number().int(),
  })
  .openapi('LoadType');

export const LoadTypeCreate = z
  .object({
    yardId: Id,
    name: z.string().trim().min(1).max(80),
    direction: LoadDirection.default('both'),
    durationMinutes: z.number().int().min(5).max(LONGEST_DURATION_MINUTES),
    doorIds: z.array(Id).max(200).default([]),
    carrierVisible: z.boolean().default(true),
  })
  .strict()
  .openapi('LoadTypeCreate', { example: { yardId: 'yard-1', name: 'Live unload', durationMinutes: 60 } });

export const LoadTypePatch = LoadTypeCreate.omit({ yardId: true })
  .partial()
  .strict()
  .openapi('LoadTypePatch');

const Ref = z.string().trim().min(1).max(40);
const Text = (max: number) => z.string().trim().max(max);

/** Office staff may book outside the rules with a reason, recorded in the history. */
export const Override = z.object({ reason: z.string().trim().min(3).max(500) }).strict();

export const AppointmentOut = z
  .object({
    id: Id,
    yardId: Id,
    doorId: Id,
    doorName: z.string(),
    loadTypeId: Id,
    loadTypeName: z.string(),
    startAt: IsoDateTime,
    endAt: IsoDateTime,
    carrierId: Id,
    carrierName: z.string(),
    refs: z.array(z.string()),
    trailerNumber: z.string().nullable(),
    truckPlate: z.string().nullable(),
    driverName: z.string().nullable(),
    driverPhone: z.string().nullable(),
    notes: z.string().nullable(),
    code: z.string(),
    status: AppointmentStatusSchema,
    arrival: ArrivalSchema.nullable(),
    /**
     * At the cloud: a scheduled appointment past its no-show time while its site is offline (the
     * site decides the no-show; the office sees "overdue, site offline").
     */
    overdue: z.boolean(),
    movementId: Id.nullable(),
    overrideReason: z.string().nullable(),
    createdBy: z.string().nullable(),
    cancelledAt: IsoDateTime.nullable(),
    cancelReason: z.string().nullable(),
    arrivedAt: IsoDateTime.nullable(),
    dockedAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
    departedAt: IsoDateTime.nullable(),
    noShowAt: IsoDateTime.nullable(),
    changeUntil: IsoDateTime.nullable().openapi({
      description:
        "until when a carrier user may change or cancel it (startAt - the yard's changeCutoffMinutes, with the yard's offset); null once it is not scheduled any more (arrived, or over)",
      example: '2026-03-03T04:00:00-06:00',
    }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Appointment');

export const AppointmentEventOut = z
  .object({
    id: Id,
    at: IsoDateTime,
    kind: z.string(),
    fromStatus: z.string().nullable(),
    toStatus: z.string().nullable(),
    actorId: z.string().nullable(),
    actorKind: z.string().nullable(),
    reason: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).nullable(),
  })
  .openapi('AppointmentEvent');

export const AppointmentWithHistory = AppointmentOut.extend({
  history: z.array(AppointmentEventOut),
}).openapi('AppointmentWithHistory');

export const AppointmentCreate = z
  .object({
    yardId: Id,
    loadTypeId: Id,
    startAt: IsoDateTime.openapi({ description: 'a free start time from the availability, with its offset' }),
    doorId: Id.optional().openapi({
      description: 'a door; else the first free allowed door (staff only: a carrier user gets 400)',
    }),
    carrierId: Id.optional().openapi({
      description: 'required from staff; a carrier user books for its own carrier (left out, or its own id)',
    }),
    refs: z.array(Ref).max(10).default([]),
    trailerNumber: Text(20).nullable().optional(),
    truckPlate: Text(20).nullable().optional(),
    driverName: Text(120).nullable().optional(),
    driverPhone: Text(40).nullable().optional(),
    notes: Text(1000).nullable().optional(),
    override: Override.optional(),
  })
  .strict()
  .openapi('AppointmentCreate');

/** Reschedule (start, door, load type) or edit the rest; If-Match with the version. */
export const AppointmentPatch = AppointmentCreate.omit({ yardId: true })
  .partial()
  // No default here: a reschedule that leaves out the refs keeps them.
  .extend({ refs: z.array(Ref).max(10).optional() })
  .strict()
  .openapi('AppointmentPatch');

export const AppointmentCancel = z
  .object({ reason: z.string().trim().min(1).max(500) })
  .strict()
  .openapi('AppointmentCancel');

/** By hand at the gate or office: docked, completed, or `scheduled` to undo a no-show. */
export const AppointmentStatusChange = z
  .object({ to: z.enum(['docked', 'completed', 'scheduled']), reason: z.string().trim().max(500).optional() })
  .strict()
  .openapi('AppointmentStatusChange', {
    description:
      'docked or completed by hand (the time is now), or scheduled to undo a no-show; the reason is kept in the history',
    example: { to: 'docked', reason: 'docked at door 4, told by radio' },
  });

export const AppointmentListQuery = PageQuery.extend({
  yardId: Id.optional(),
  carrierId: Id.optional(),
  status: z
    .string()
    .transform((s) => s.split(','))
    .pipe(z.array(AppointmentStatusSchema))
    .optional()
    .openapi({ description: 'comma-separated statuses' }),
  from: IsoDateTime.optional().openapi({ description: 'start at or after' }),
  to: IsoDateTime.optional().openapi({ description: 'start before' }),
  q: z.string().trim().min(1).max(40).optional().openapi({ description: 'code, ref or trailer number' }),
});

export const AvailabilityQuery = z.object({
  yardId: Id,
  loadTypeId: Id,
  date: IsoDate.optional(),
  from: IsoDate.optional(),
  to: IsoDate.optional(),
});

export const FreeSlot = z
  .object({
    startAt: IsoDateTime.openapi({ description: 'with the yard’s offset (a fall-back day repeats an hour)' }),
    endAt: IsoDateTime,
    /** Staff only: the doors free for the whole slot, in door order. */
    doors: z.array(z.object({ id: Id, name: z.string() })).optional(),
  })
  .openapi('FreeSlot');

export const Availability = z
  .object({ yardId: Id, loadTypeId: Id, timeZone: z.string(), slots: z.array(FreeSlot) })
  .openapi('Availability');

export type SchedulingConfigOutT = z.infer<typeof SchedulingConfigOut>;
export type SchedulingConfigPutT = z.infer<typeof SchedulingConfigPut>;
export type LoadTypeOutT = z.infer<typeof LoadTypeOut>;
export type LoadTypeCreateT = z.infer<typeof LoadTypeCreate>;
export type LoadTypePatchT = z.infer<typeof LoadTypePatch>;
export type AppointmentOutT = z.infer<typeof AppointmentOut>;
export type AppointmentCreateT = z.infer<typeof AppointmentCreate>;
export type AppointmentPatchT = z.infer<typeof AppointmentPatch>;
export type AppointmentListQueryT = z.infer<typeof AppointmentListQuery>;
