import { TASK_STATUSES, TASK_TYPES } from '../../enums.js';
import { Id, IsoDateTime, IsoDateTimeMs, PageQuery, page, queryList } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
import { z } from '../../http/zod.js';

export const TaskStatus = z.enum(TASK_STATUSES).openapi('TaskStatus');
export const TaskType = z.enum(TASK_TYPES).openapi('TaskType');
const Priority = z.number().int().min(0).max(3).openapi({ description: '0 low .. 3 urgent' });
const Notes = z.string().trim().max(2000);
const CancelReason = z.string().trim().min(1).max(500);

export const TaskOut = z
  .object({
    id: Id,
    yardId: Id,
    type: TaskType,
    trailerId: Id.nullable(),
    fromLocationId: Id.nullable(),
    toLocationId: Id.nullable(),
    priority: z.number().int(),
    status: TaskStatus,
    driverId: Id.nullable(),
    notes: z.string().nullable(),
    dueAt: IsoDateTime.nullable(),
    createdBy: z.string().nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    assignedAt: IsoDateTime.nullable(),
    startedAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
    cancelledAt: IsoDateTime.nullable(),
    cancelReason: z.string().nullable(),
    billedCarrierId: Id.nullable().openapi({ description: 'Carrier a completed move is billed to' }),
    version: z.number().int(),
  })
  .openapi('YardTask');

export const TaskCreate = z
  .object({
    id: Id.optional().openapi({ description: 'Client-chosen id (UUID) for idempotent retries' }),
    yardId: Id,
    type: TaskType,
    trailerId: Id.nullable().optional(),
    fromLocationId: Id.nullable().optional(),
    toLocationId: Id.nullable().optional(),
    priority: Priority.optional().openapi({ default: 1 }),
    driverId: Id.nullable().optional().openapi({ description: 'Assign at once to this yard driver' }),
    notes: Notes.nullable().optional(),
    dueAt: IsoDateTimeMs.nullable().optional(),
  })
  .strict()
  .openapi('YardTaskCreate');

export const TaskBatchCreate = z
  .object({ tasks: z.array(TaskCreate).min(1).max(200) })
  .strict()
  .superRefine((batch, ctx) => {
    const seen = new Set<string>();
    batch.tasks.forEach((task, i) => {
      if (task.id === undefined) return;
      if (seen.has(task.id)) {
        ctx.addIssue({ code: 'custom', path: ['tasks', i, 'id'], message: 'id repeats within the batch' });
      }
      seen.add(task.id);
    });
  })
  .openapi('YardTaskBatchCreate');

export const TaskCreateRequest = z.union([TaskBatchCreate, TaskCreate]).openapi({
  description: 'One task, or {tasks: [...]} to create up to 200 together (all or nothing).',
  example: {
    yardId: EXAMPLE_ID.yard,
    type: 'pull_to_door',
    trailerId: EXAMPLE_ID.trailer,
    fromLocationId: EXAMPLE_ID.location,
    toLocationId: EXAMPLE_ID.location2,
    priority: 2,
    notes: 'reefer: keep the unit running',
  },
});

/** The one of the two request shapes a body means: a batch when it has `tasks`. */
export function createShapeOf(body: unknown): typeof TaskBatchCreate | typeof TaskCreate {
  return body !== null && typeof body === 'object' && 'tasks' in body ? TaskBatchCreate : TaskCreate;
}
export const TaskBatchOut = z.object({ items: z.array(TaskOut) }).openapi('YardTaskBatch');
export const TaskCreateResponse = z.union([TaskBatchOut, TaskOut]);

const editable = {
  type: TaskType,
  trailerId: Id.nullable(),
  fromLocationId: Id.nullable(),
  toLocationId: Id.nullable(),
  priority: Priority,
  notes: Notes.nullable(),
  dueAt: IsoDateTimeMs.nullable(),
};

/** PUT: the whole editable record; omitted nullable fields become null. */
export const TaskPut = z
  .object({
    type: editable.type,
    priority: editable.priority,
    trailerId: editable.trailerId.optional(),
    fromLocationId: editable.fromLocationId.optional(),
    toLocationId: editable.toLocationId.optional(),
    notes: editable.notes.optional(),
    dueAt: editable.dueAt.optional(),
    driverId: Id.nullable()
      .optional()
      .openapi({ description: 'Assign (id), unassign (null) or leave as is (omitted)' }),
  })
  .strict()
  .openapi('YardTaskPut', {
    description: 'The whole editable task; omitted nullable fields become null.',
    example: {
      type: 'move',
      priority: 1,
      trailerId: EXAMPLE_ID.trailer,
      fromLocationId: EXAMPLE_ID.location,
      toLocationId: EXAMPLE_ID.location2,
      notes: null,
      dueAt: '2026-03-01T10:00:00Z',
    },
  });

export const TaskPatch = z
  .object({
    type: editable.type.optional(),
    priority: editable.priority.optional(),
    trailerId: editable.trailerId.optional(),
    fromLocationId: editable.fromLocationId.optional(),
    toLocationId: editable.toLocationId.optional(),
    notes: editable.notes.optional(),
    dueAt: editable.dueAt.optional(),
    driverId: Id.nullable().optional().openapi({ description: 'Assign (id) or unassign (null)' }),
    status: z.literal('CANCELLED').optional().openapi({ description: 'Cancel (needs cancelReason)' }),
    cancelReason: CancelReason.optional(),
  })
  .strict()
  .superRefine((patch, ctx) => {
    if (patch.status === 'CANCELLED' && patch.cancelReason === undefined) {
      ctx.addIssue({ code: 'custom', path: ['cancelReason'], message: 'a cancellation needs a reason' });
    }
    if (patch.cancelReason !== undefined && patch.status !== 'CANCELLED') {
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'cancelReason goes with status CANCELLED' });
    }
  })
  .openapi('YardTaskPatch', {
    description: 'Fields to change: assign {driverId}, unassign {driverId: null}, reprioritise, cancel.',
    example: { driverId: EXAMPLE_ID.driver, priority: 3 },
  });

const YardFilter = z.object({ yardId: Id.optional() });

export const TaskListQuery = PageQuery.extend({
  yardId: Id.optional(),
  status: queryList(TaskStatus).openapi({ description: 'one or several, comma-separated' }),
  driverId: Id.optional(),
});
export const TaskByStatusQuery = PageQuery.extend({
  yardId: Id.optional(),
  status: queryList(TaskStatus)
    .unwrap()
    .openapi({ description: 'one or several, comma-separated (QUEUED,ASSIGNED)' }),
});
export const TaskStatusParams = z.object({ status: TaskStatus });
export const TaskStatusQuery = PageQuery.extend(YardFilter.shape);
export const YardIdParams = z.object({ yardId: Id });

export const TaskEventOut = z
  .object({
    id: Id,
    taskId: Id,
    at: IsoDateTime,
    actorId: z.string().nullable(),
    actorKind: z.enum(['user', 'driver', 'api-key', 'system']).nullable(),
    from: TaskStatus.nullable(),
    to: TaskStatus,
    driverId: Id.nullable(),
    reason: z.string().nullable(),
    lat: z.number().nullable(),
    lon: z.number().nullable(),
    tappedAt: IsoDateTime.nullable().openapi({
      description:
        'when the driver tapped the action on the phone, as kept (bounded by the task’s previous step and now); at is when it arrived',
    }),
  })
  .openapi('YardTaskEvent');

export const Availability = z.enum(['available', 'busy', 'offline']).openapi('DriverAvailability');

export const DriverSessionBrief = z
  .object({
    id: Id,
    yardId: Id,
    deviceId: z.string().nullable(),
    startedAt: IsoDateTime,
    lastCheckAt: IsoDateTime.nullable(),
    lastLocation: z.object({ lat: z.number(), lon: z.number(), at: IsoDateTime.nullable() }).nullable(),
  })
  .openapi('DriverSessionBrief');

export const DriverAvailabilityOut = z
  .object({
    driverId: Id,
    name: z.string(),
    driverCode: z.string().nullable(),
    availability: Availability,
    session: DriverSessionBrief.nullable(),
    openTasks: z.number().int(),
  })
  .openapi('YardDriverAvailability');
export const DriverListOut = page(DriverAvailabilityOut).openapi('YardDriverList');
export const DriversQuery = PageQuery.extend({ yardId: Id.optional() });

const Stat = z
  .object({
    count: z.number().int(),
    meanSec: z.number().nullable(),
    p90Sec: z.number().nullable(),
  })
  .openapi('TaskTimeStat');

export const TaskSummaryOut = z
  .object({
    yardId: Id,
    yardCode: z.string(),
    timeZone: z.string(),
    at: IsoDateTime,
    counts: z
      .object({ QUEUED: z.number().int(), ASSIGNED: z.number().int(), IN_PROGRESS: z.number().int() })
      .openapi({ description: 'Open tasks now, by status' }),
    completedToday: z.number().int().openapi({ description: 'Completed since yard-local midnight' }),
    wait: Stat.openapi({ description: 'created -> started, tasks started in the last 24 h' }),
    duration: Stat.openapi({ description: 'started -> completed, tasks completed in the last 24 h' }),
    drivers: z.object({
      available: z.number().int(),
      busy: z.number().int(),
      offline: z.number().int(),
    }),
  })
  .openapi('YardTaskSummary');
export const TaskSummaryListOut = z.object({ items: z.array(TaskSummaryOut) }).openapi('YardTaskSummaries');

export type TaskOutT = z.infer<typeof TaskOut>;
export type TaskCreateT = z.output<typeof TaskCreate>;
export type TaskPutT = z.output<typeof TaskPut>;
export type TaskPatchT = z.output<typeof TaskPatch>;
export type TaskStatusT = z.infer<typeof TaskStatus>;
export type TaskEventOutT = z.infer<typeof TaskEventOut>;
export type DriverAvailabilityT = z.infer<typeof DriverAvailabilityOut>;
export type DriversQueryT = z.output<typeof DriversQuery>;
export type TaskSummaryT = z.infer<typeof TaskSummaryOut>;
