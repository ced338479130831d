import type { Config } from '../../config.js';
import { PageQuery } from '../../http/common-schemas.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { PushService } from '../push/service.js';
import type { TaskService } from '../tasks/service.js';
import { driverIdOf } from './acting-driver.js';
import { driverRequestLimit } from './request-limit.js';
import {
  DriverSessionOut,
  DriverTaskList,
  LastCheckBody,
  LastCheckOut,
  LOCATION_TIME_RULE,
  LocationsBody,
  LocationsOut,
  NotificationTokenBody,
  PushTokenOut,
  SessionEndBody,
  SessionStartBody,
  TaskBatchBody,
  TaskBatchResult,
  TaskCancelBatchBody,
} from './schema.js';
import type { DriverAppService } from './service.js';
import { type TaskBatchDeps, transitionBatch } from './task-batch.js';

const TAG = 'Yard Tasking';
const DRIVER = ['driver'] as const;
const BASE = '/api/yard-task/driver';
const BATCH_NOTE =
  'Answers 200 with one result per task, in request order: `ok` with the task, or the error ' +
  '(status, code, detail) that task met; the other tasks still proceed. A driver acts only on ' +
  'tasks assigned to itself.';

/** What the drivers' routes use: their service, the task service and the push service (device tokens). */
export type DriverAppRouteDeps = TaskBatchDeps & {
  config: Pick<Config, 'auth'>;
  driverApp: DriverAppService;
  tasks: Pick<TaskService, 'transition' | 'tasksForDriver'>;
  push: Pick<PushService, 'saveDeviceToken'>;
};

export function registerDriverAppRoutes(r: RouteRegistrar, deps: DriverAppRouteDeps): void {
  const app = deps.driverApp;
  // One budget per driver across these routes (request-limit.ts).
  const limit = driverRequestLimit(deps.config);
  const limited = (errors: number[] = []) => ({ middleware: [limit], errors: [...errors, 429] });

  r.add({
    method: 'post',
    path: `${BASE}/session/start`,
    tag: TAG,
    idempotent: true,
    summary: 'Drivers start a session',
    description:
      'Starts a session in the yard; an open session of the driver ends with endReason `replaced`.',
    access: DRIVER,
    ...limited([404]),
    body: SessionStartBody,
    response: { status: 201, schema: DriverSessionOut },
    handler: ({ principal, body }) => app.startSession(principal, body),
  });

  r.add({
    method: 'post',
    path: `${BASE}/session/end`,
    tag: TAG,
    idempotent: true,
    summary: 'Drivers end a session',
    description: '409 `no-active-session` when the driver has no open session.',
    access: DRIVER,
    ...limited([409]),
    body: SessionEndBody,
    response: { schema: DriverSessionOut },
    handler: ({ principal, body }) => app.endSession(principal, body?.reason),
  });

  r.add({
    method: 'post',
    path: `${BASE}/session/locations`,
    tag: TAG,
    idempotent: true,
    summary: 'Drivers add session locations (batch)',
    description:
      `Up to 500 points in one batch, stored together. Each point's \`at\` ${LOCATION_TIME_RULE}. ` +
      'Points outside that are 400 `validation-failed` (errors name each bad point, code `outside-session`) and ' +
      'nothing of the batch is stored; no open session is 409 `no-active-session`. Counts as a heartbeat.',
    access: DRIVER,
    ...limited([409]),
    body: LocationsBody,
    response: { schema: LocationsOut },
    handler: ({ principal, body }) => app.addLocations(principal, body),
  });

  r.add({
    method: 'post',
    path: `${BASE}/notification-token`,
    tag: TAG,
    idempotent: true,
    summary: 'Save a push-notification token',
    description:
      'One token per driver and device (a later call replaces it). For `web` the token is the JSON ' +
      'of the browser PushSubscription `{endpoint, keys: {p256dh, auth}}`.',
    access: DRIVER,
    ...limited(),
    body: NotificationTokenBody,
    response: { schema: PushTokenOut },
    handler: ({ principal, body }) => deps.push.saveDeviceToken(driverIdOf(principal), body),
  });

  r.add({
    method: 'post',
    path: `${BASE}/last-check`,
    tag: TAG,
    summary: 'Driver device heartbeat',
    description: `Keeps the driver from counting as offline (setting tasks.driverTimeoutSec). 409 \`no-active-session\` without an open session.`,
    access: DRIVER,
    ...limited([409]),
    body: LastCheckBody,
    response: { schema: LastCheckOut },
    handler: ({ principal, body }) => app.lastCheck(principal, body),
  });

  r.add({
    method: 'get',
    path: `${BASE}/tasks`,
    tag: TAG,
    summary: 'Drivers retrieve a list of assigned tasks',
    description: 'The driver’s ASSIGNED and IN_PROGRESS tasks, most urgent first, then oldest.',
    access: DRIVER,
    ...limited(),
    query: PageQuery,
    response: { schema: DriverTaskList },
    handler: ({ principal, query }) => deps.tasks.tasksForDriver(driverIdOf(principal), query),
  });

  const batches = [
    {
      path: 'start',
      to: 'IN_PROGRESS',
      summary: 'Drivers mark tasks as started',
      extra: ' Starting needs an active session (`no-active-session`).',
    },
    { path: 'complete', to: 'COMPLETED', summary: 'Drivers mark tasks as completed', extra: '' },
  ] as const;
  for (const batch of batches) {
    r.add({
      method: 'post',
      path: `${BASE}/${batch.path}`,
      tag: TAG,
      idempotent: true,
      summary: batch.summary,
      description: BATCH_NOTE + batch.extra,
      access: DRIVER,
      ...limited(),
      body: TaskBatchBody,
      response: { schema: TaskBatchResult },
      handler: ({ principal, body }) => transitionBatch(deps, principal, batch.to, body),
    });
  }

  r.add({
    method: 'post',
    path: `${BASE}/cancel`,
    tag: TAG,
    idempotent: true,
    summary: 'Drivers cancel a task (with reason)',
    description: BATCH_NOTE,
    access: DRIVER,
    ...limited(),
    body: TaskCancelBatchBody,
    response: { schema: TaskBatchResult },
    handler: ({ principal, body }) => transitionBatch(deps, principal, 'CANCELLED', body),
  });
}
