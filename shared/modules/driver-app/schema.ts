import { Id, IsoDateTime, IsoDateTimeMs, page } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
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
  .openapi('DriverSessionStart', {
    description: 'The yard the driver works in now, and the device it uses.',
    example: { yardId: EXAMPLE_ID.yard, deviceId: 'tablet-07' },
  });

export const SessionEndBody = z
  .object({ reason: z.string().trim().min(1).max(200).optional() })
  .strict()
  .optional()
  .openapi('DriverSessionEnd', {
    description: 'Optional: why the session ends.',
    example: { reason: 'end of shift' },
  });

/**
 * The window is the session's [startedAt, now] widened by CLOCK_TOLERANCE_MS on each side, on purpose:
 * `at` is the device's clock and a batch is all or nothing, so an exact rule would refuse a whole
 * batch of real fixes for a phone clock a second behind the server's.
 */
export const LOCATION_TIME_RULE =
  `must lie within the active session, from its start to the server's now, ` +
  `give or take ${CLOCK_TOLERANCE_MS / 1000} s of device clock drift (a point up to ` +
  `${CLOCK_TOLERANCE_MS / 1000} s before the start or after now is accepted and stored as sent)`;

const LocationPoint = z
  .object({
    at: IsoDateTimeMs.openapi({ description: `device time of the fix; ${LOCATION_TIME_RULE}` }),
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
    description: `1 to ${MAX_POINTS_PER_BATCH} points. Each point's \`at\` ${LOCATION_TIME_RULE}.`,
    example: {
      points: [
        { at: '2026-03-01T08:00:05Z', lat: 41.8119, lon: -87.7243, accuracyM: 6, speed: 2.5, heading: 270 },
        { at: '2026-03-01T08:00:15Z', lat: 41.8121, lon: -87.7249, accuracyM: 5 },
      ],
    },
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
  .openapi('DriverLastCheck', {
    description: 'A heartbeat; optionally where the device is and its battery level.',
    example: { at: '2026-03-01T08:00:00Z', lat: 41.8119, lon: -87.7243, battery: 76 },
  });

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
  .openapi('PushTokenSave', {
    description: 'Where to send push notifications for this device.',
    example: {
      deviceId: 'tablet-07',
      platform: 'android',
      token: 'fcm:dGVzdC1kZXZpY2UtdG9rZW4tZm9yLXRoZS1leGFtcGxl',
    },
  });

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
  .object({
    taskIds: TaskIds,
    lat: Lat.optional(),
    lon: Lon.optional(),
    tappedAt: IsoDateTimeMs.optional().openapi({
      description:
        'when the driver tapped the action (phone clock), for actions queued offline: the task’s times use it, ' +
        'kept between the task’s previous step and now; more than 30 s in the future is 400',
    }),
  })
  .strict()
  .openapi('DriverTaskBatch', {
    description: 'The tasks to change, and where the driver is.',
    example: { taskIds: [EXAMPLE_ID.task], lat: 41.8119, lon: -87.7243 },
  });

export const TaskCancelBatchBody = TaskBatchBody.extend({
  reason: z.string().trim().min(1).max(500),
})
  .strict()
  .openapi('DriverTaskCancelBatch', {
    description: 'The tasks to cancel, and why.',
    example: { taskIds: [EXAMPLE_ID.task], reason: 'trailer not at the spot' },
  });

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

/** A task as its driver sees it: with the trailer's number and carrier, which drivers may not read otherwise. */
export const DriverTaskOut = TaskOut.extend({
  trailer: z
    .object({
      number: z.string(),
      carrierName: z.string().nullable(),
      locationId: Id.nullable().openapi({
        description: 'the spot the trailer stands on now (where to find it when the task names no from)',
      }),
    })
    .nullable()
    .openapi({ description: 'The trailer to move: its number, carrier and spot (null without a trailer)' }),
}).openapi('DriverTask');

export const DriverTaskList = page(DriverTaskOut).openapi('DriverTaskList', {
  description: 'The open tasks of the driver, most urgent first, then oldest',
});

export type DriverSessionOutT = z.infer<typeof DriverSessionOut>;
export type LocationsBodyT = z.output<typeof LocationsBody>;
export type LastCheckBodyT = z.output<typeof LastCheckBody>;
export type NotificationTokenBodyT = z.output<typeof NotificationTokenBody>;
