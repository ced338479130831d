import { type Principal, STAFF } from '../../auth/principal.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { SharedAnswers } from '../../http/shared-answers.js';
import { YardOverviewOut } from './overview.js';
import {
  ErrorFiguresOut,
  ErrorWindowQuery,
  MovementFiguresOut,
  MovementFiguresQuery,
  TrailerFiguresOut,
  TruckFiguresOut,
  YardFilterQuery,
  YardMovementOut,
  YardMovementQuery,
} from './schema.js';
import type { DashboardService } from './service.js';

const TAG = 'Dashboard Controller';

export function registerDashboardRoutes(
  r: RouteRegistrar,
  { dashboard, answers }: { dashboard: DashboardService; answers: SharedAnswers },
): void {
  // The figures every open dashboard asks for are built once for all of them (http/shared-answers.ts).
  const shared = (route: string, query: object, principal: Principal, build: () => Promise<unknown>) =>
    answers.answer(`${route}|${principal.yardIds?.join(',') ?? '*'}|${JSON.stringify(query)}`, build);

  r.add({
    method: 'get',
    path: '/api/dashboard/movement',
    tag: TAG,
    summary: 'Gate movements in/out over time',
    description:
      "With `yardId`, hour and day buckets follow the yard's time zone (DST days have 23 or 25 hours); " +
      'without it they are UTC and cover every yard in your scope. `from`/`to` widen to whole buckets. ' +
      'At most 31 days with hour buckets, 366 with day buckets.',
    access: STAFF,
    query: MovementFiguresQuery,
    response: { schema: MovementFiguresOut },
    errors: [404],
    handler: ({ query, principal }) =>
      shared('movement', query, principal, () => dashboard.movements(query, principal)),
  });

  for (const kind of ['4xx', '5xx'] as const) {
    r.add({
      method: 'get',
      path: `/api/dashboard/yard/error${kind}`,
      tag: TAG,
      summary: `Per yard: ${kind === '4xx' ? 'client-error (4xx)' : 'server-error (5xx)'} responses over a window`,
      description:
        'Counts per yard and status. The window defaults to the last `dashboard.errorWindowMinutes` (setting) ' +
        'minutes; counts are per minute. Responses not attributable to a yard show under yardId null ' +
        '(only to principals without a yard scope).',
      access: STAFF,
      query: ErrorWindowQuery,
      response: { schema: ErrorFiguresOut },
      errors: [404],
      handler: ({ query, principal }) => dashboard.errors(kind, query, principal),
    });
  }

  r.add({
    method: 'get',
    path: '/api/dashboard/yard/trailer',
    tag: TAG,
    summary: 'Per yard: trailers now in the yard, by load status and carrier, average dwell',
    access: STAFF,
    query: YardFilterQuery,
    response: { schema: TrailerFiguresOut },
    errors: [404],
    handler: ({ query, principal }) =>
      shared('trailer', query, principal, () => dashboard.trailers(query.yardId, principal)),
  });

  r.add({
    method: 'get',
    path: '/api/dashboard/yard/overview',
    tag: TAG,
    summary: 'Per yard: trailers in the yard, movements of its local day, open tasks',
    description:
      "Every yard in your scope, only the numbers of the Yard screen's all-yards overview, in one request " +
      "(each yard's day in its own time zone; open tasks: queued, assigned or in progress).",
    access: STAFF,
    response: { schema: YardOverviewOut },
    // Not a shared answer: the open tasks have no rollup to signal their change.
    handler: ({ principal }) => dashboard.overview(principal),
  });

  r.add({
    method: 'get',
    path: '/api/dashboard/yard/movement',
    tag: TAG,
    summary: "Per yard: check-ins and check-outs during the yard's local day",
    description:
      "Every yard in your scope (or `yardId`), each with its own local day (in the yard's time zone) " +
      'that holds `at` (default now): the all-yards overview in one request.',
    access: STAFF,
    query: YardMovementQuery,
    response: { schema: YardMovementOut },
    errors: [404],
    handler: ({ query, principal }) =>
      shared('yard-movement', query, principal, () => dashboard.yardMovements(query, principal)),
  });

  r.add({
    method: 'get',
    path: '/api/dashboard/yard/truck',
    tag: TAG,
    summary: 'Per yard: trucks now in the yard, average dwell',
    access: STAFF,
    query: YardFilterQuery,
    response: { schema: TruckFiguresOut },
    errors: [404],
    handler: ({ query, principal }) =>
      shared('truck', query, principal, () => dashboard.trucks(query.yardId, principal)),
  });
}
