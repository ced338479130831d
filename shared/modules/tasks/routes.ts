import { STAFF } from '../../auth/principal.js';
import { IdParams, PageQuery, page } from '../../http/common-schemas.js';
import { ValidationError } from '../../http/errors.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { zodIssuesToFieldErrors } from '../../http/validation.js';
import {
  createShapeOf,
  DriverListOut,
  DriversQuery,
  TaskByStatusQuery,
  TaskCreateRequest,
  TaskCreateResponse,
  TaskEventOut,
  TaskListQuery,
  TaskOut,
  TaskPatch,
  TaskPut,
  TaskStatusParams,
  TaskStatusQuery,
  TaskSummaryListOut,
  TaskSummaryOut,
  YardIdParams,
} from './schema.js';
import type { TaskService } from './service.js';

const TAG = 'Yard Tasking';
const DISPATCH = ['admin', 'dispatcher'] as const;

/** Static paths first: /summary, /by-status, /status/{status}, /drivers must win over /{id}. */
export function registerTaskRoutes(r: RouteRegistrar, { tasks }: { tasks: TaskService }): void {
  r.add({
    method: 'post',
    path: '/api/yard-task',
    tag: TAG,
    summary: 'Create tasks: one task, or {tasks: [...]} (up to 200, all or nothing)',
    description:
      'A task that relocates a trailer (move, pull_to_door, return_to_spot, shunt) needs `trailerId` and ' +
      '`toLocationId` (400 with a field error on each missing one). Without `fromLocationId`, a task with a ' +
      "trailer records the trailer's spot as where it is picked up.",
    access: ['admin', 'dispatcher', 'gate'],
    body: TaskCreateRequest,
    // A failed union names no field; checking against the shape the body means first does.
    middleware: [
      (req, _res, next) => {
        const check = createShapeOf(req.body).safeParse(req.body);
        if (!check.success) throw new ValidationError(zodIssuesToFieldErrors(check.error.issues, 'body'));
        next();
      },
    ],
    response: { status: 201, schema: TaskCreateResponse },
    errors: [404, 409],
    handler: async ({ body, principal, res }) => {
      const created = await tasks.create(principal, body);
      if (!('items' in created)) {
        res.setHeader('ETag', etagOf(created.version));
        res.setHeader('Location', `/api/yard-task/${created.id}`);
      }
      return created;
    },
  });

  r.add({
    method: 'get',
    path: '/api/yard-task',
    tag: TAG,
    summary: 'Yard tasks, all yards in scope or one (yardId), by status and driver',
    access: STAFF,
    query: TaskListQuery,
    response: { schema: page(TaskOut) },
    handler: ({ query, principal }) => tasks.list(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/yard-task/summary',
    tag: TAG,
    summary: 'Task summary of every yard in scope',
    access: STAFF,
    response: { schema: TaskSummaryListOut },
    handler: ({ principal }) => tasks.summaries(principal),
  });

  r.add({
    method: 'get',
    path: '/api/yard-task/summary/{yardId}',
    tag: TAG,
    summary: 'Yard task summary: open counts, completed today, wait and duration, drivers',
    access: STAFF,
    params: YardIdParams,
    response: { schema: TaskSummaryOut },
    errors: [404],
    handler: ({ params, principal }) => tasks.summary(principal, params.yardId),
  });

  r.add({
    method: 'get',
    path: '/api/yard-task/by-status',
    tag: TAG,
    summary: 'Tasks with any of the given statuses (status=QUEUED,ASSIGNED); optional yardId',
    access: STAFF,
    query: TaskByStatusQuery,
    response: { schema: page(TaskOut) },
    handler: ({ query, principal }) => tasks.list(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/yard-task/status/{status}',
    tag: TAG,
    summary: 'Tasks with one status; optional yardId',
    access: STAFF,
    params: TaskStatusParams,
    query: TaskStatusQuery,
    response: { schema: page(TaskOut) },
    handler: ({ params, query, principal }) => tasks.list(principal, { ...query, status: [params.status] }),
  });

  r.add({
    method: 'get',
    path: '/api/yard-task/drivers',
    tag: TAG,
    summary: 'The organisation’s yard drivers with session status and availability (optional yardId)',
    access: STAFF,
    query: DriversQuery,
    response: { schema: DriverListOut },
    handler: ({ query, principal }) => tasks.drivers(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/yard-task/{id}',
    tag: TAG,
    summary: 'One task (a driver: only its own)',
    access: [...STAFF, 'driver'],
    params: IdParams,
    response: { schema: TaskOut },
    errors: [404],
    handler: async ({ params, principal, res }) => {
      const task = await tasks.get(principal, params.id);
      res.setHeader('ETag', etagOf(task.version));
      return task;
    },
  });

  r.add({
    method: 'get',
    path: '/api/yard-task/{id}/history',
    tag: TAG,
    summary: 'The task’s transitions, oldest first',
    access: STAFF,
    params: IdParams,
    query: PageQuery,
    response: { schema: page(TaskEventOut) },
    errors: [404],
    handler: ({ params, query, principal }) => tasks.history(principal, params.id, query),
  });

  r.add({
    method: 'put',
    path: '/api/yard-task/{id}',
    tag: TAG,
    summary: 'Replace a task’s editable fields (If-Match with the ETag you read)',
    access: DISPATCH,
    params: IdParams,
    body: TaskPut,
    response: { schema: TaskOut },
    errors: [404, 409, 412],
    handler: async ({ params, body, principal, ifMatch, res }) => {
      const task = await tasks.replace(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(task.version));
      return task;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/yard-task/{id}',
    tag: TAG,
    summary: 'Update a task partly: assign {driverId}, unassign {driverId: null}, reprioritise, cancel',
    access: DISPATCH,
    params: IdParams,
    body: TaskPatch,
    response: { schema: TaskOut },
    errors: [404, 409, 412],
    handler: async ({ params, body, principal, ifMatch, res }) => {
      const task = await tasks.patch(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(task.version));
      return task;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/yard-task/{id}',
    tag: TAG,
    summary: 'Delete a task while it is QUEUED (otherwise 409 invalid-transition: cancel it)',
    access: DISPATCH,
    params: IdParams,
    response: { status: 204 },
    errors: [404, 409, 412],
    handler: async ({ params, principal, ifMatch }) => {
      await tasks.delete(principal, params.id, ifMatch);
    },
  });
}
