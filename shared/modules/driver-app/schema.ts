import { Id, IsoDateTime, IsoDateTimeMs } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { PushPlatform } from '../push/schema.js';
import { TaskOut } from '../tasks/schema.js';

/** Device clocks drift: a ping may lie this far outside the session's [startedAt, now]. */
export const CLOCK_TOLERANCE_MS = 30_000;
export const MAX_POINTS_PER_BATCH = 500;
export const MAX_TASKS_PER_BATCH = 50;

const Lat = z.number().min(-90).max(90);
const Lon = z.number().min(-180).max(180);

export const DriverSessionOut = z
  .object({
    id: Id,
    driverId: Id,
    yardId: Id,
    deviceId: z.string().nullable(),
    startedAt: IsoDateTime,
    endedAt: IsoDateTime.nullable(),
    endReason: z.string().nullable(),
    lastCheckAt: IsoDateTime.nullable(),
    lastLocation: z
      .object({ lat: z.number(), lon: z.number(), at: IsoDateTime })
      .nullable()
      .openapi({ description: 'The newest location the device reported' }),
    active: z.boolean(),
    version: z.number().int(),
  })
  .openapi('DriverSession');

export const SessionStartBody = z
  .object({
    yardId: Id,
    deviceId: z.string().trim().min(1).max(200).optional(),
  })
  .strict()
  .openapi('DriverSessionStart');

export const SessionEndBody = z
  .object({ reason: z.string().trim().min(1).max(200).optional() })
  .strict()
  .optional()
  .openapi('DriverSessionEnd');

const LocationPoint = z
  .object({
    at: IsoDateTimeMs,
    lat: Lat,
    lon: Lon,
    accuracyM: z.number().min(0).max(100_000).optional(),
    speed: z.number().min(0).max(200).optional().openapi({ description: 'metres per second' }),
    heading: z.number().min(0).max(360).optional().openapi({ description: 'degrees from north' }),
  })
  .strict();

export const LocationsBody = z
  .object({ points: z.array(LocationPoint).min(1).max(MAX_POINTS_PER_BATCH) })
  .strict()
  .openapi('DriverLocations', {
    description:
      `1 to ${MAX_POINTS_PER_BATCH} points. Each point's \`at\` must lie within the active session, ` +
      `from its start to now, give or take ${CLOCK_TOLERANCE_MS / 1000} s of device clock drift.`,
  });

export const LocationsOut = z
  .object({ accepted: z.number().int(), session: DriverSessionOut })
  .openapi('DriverLocationsAccepted');

export const LastCheckBody = z
  .object({
    at: IsoDateTime.optional().openapi({ description: 'device time, for clock-skew diagnostics' }),
    lat: Lat.optional(),
    lon: Lon.optional(),
    battery: z.number().min(0).max(100).optional().openapi({ description: 'percent' }),
  })
  .strict()
  .refine((b) => (b.lat === undefined) === (b.lon === undefined), {
    message: 'lat and lon come together',
    path: ['lon'],
  })
  .optional()
  .openapi('DriverLastCheck');

export const LastCheckOut = z
  .object({ serverTime: IsoDateTime, session: DriverSessionOut })
  .openapi('DriverLastCheckAck');

export const NotificationTokenBody = z
  .object({
    deviceId: z.string().trim().min(1).max(200),
    platform: PushPlatform,
    token: z
      .string()
      .min(1)
      .max(4096)
      .openapi({
        description:
          'web: the JSON of the browser PushSubscription, whose endpoint must be https on a public address ' +
          '(loopback, private, link-local and other special ranges are 400 on body.token); android/ios: the device token',
      }),
  })
  .strict()
  .openapi('PushTokenSave');

export const PushTokenOut = z
  .object({
    id: Id,
    driverId: Id,
    deviceId: z.string(),
    platform: PushPlatform,
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .openapi('PushToken');

const TaskIds = z
  .array(Id)
  .min(1)
  .max(MAX_TASKS_PER_BATCH)
  .superRefine((ids, ctx) => {
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (seen.has(id)) ctx.addIssue({ code: 'custom', message: 'task id repeats', path: [i] });
      seen.add(id);
    });
  });

export const TaskBatchBody = z
  .object({ taskIds: TaskIds, lat: Lat.optional(), lon: Lon.optional() })
  .strict()
  .openapi('DriverTaskBatch');

export const TaskCancelBatchBody = TaskBatchBody.extend({
  reason: z.string().trim().min(1).max(500),
})
  .strict()
  .openapi('DriverTaskCancelBatch');

export const TaskBatchResult = z
  .object({
    results: z.array(
      z.object({
        taskId: Id,
        ok: z.boolean(),
        task: TaskOut.optional(),
        error: z.object({ status: z.number().int(), code: z.string(), detail: z.string() }).optional(),
      }),
    ),
  })
  .openapi('DriverTaskBatchResult');

export const DriverTaskList = z
  .object({ items: z.array(TaskOut), nextCursor: z.null() })
  .openapi('DriverTaskList', { description: 'All open tasks of the driver at once (never paged)' });

export type DriverSessionOutT = z.infer<typeof DriverSessionOut>;
export type LocationsBodyT = z.output<typeof LocationsBody>;
export type LastCheckBodyT = z.output<typeof LastCheckBody>;
export type NotificationTokenBodyT = z.output<typeof NotificationTokenBody>;
