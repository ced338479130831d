import type { Role } from '../../../auth/principal.js';
import { page } from '../../../http/common-schemas.js';
import type { BillingRoutes } from '../place.js';
import {
  BILLING_TAG,
  ConfigListQuery,
  YardBillingStatusOut,
  YardConfigCreate,
  YardConfigOut,
  YardConfigPut,
  YardConfigWithCarrierIdsOut,
  YardConfigWithCarriersOut,
  YardParams,
} from './schema.js';

/** API.md "Billing": B A read, A B write. */
export const BILLING: readonly Role[] = ['admin', 'billing'];

/** A route's own conflicts (the 409 `cloud-owned` of a linked edge is added by place.ts). */
export const conflict = (own: string) => ({ 409: `Conflict with the current state: ${own}` });

export const EXISTS = '`billing-config-exists` when there is one already';
export const SCOPE =
  'A yard outside the caller’s yard scope is 403. Money is integer minor units of the yard’s `currency`.';
export const PUT_STATUS =
  'Answers 201 Created (with Location) when there was none, 200 OK when it replaced one.';

/** The yards' billing configs (service.ts); the carriers' follow in carrier-routes.ts. */
export function registerBillingConfigRoutes(r: BillingRoutes): void {
  r.add({
    method: 'get',
    path: '/api/billing/config',
    tag: BILLING_TAG,
    summary: 'Get all yards configs',
    description: 'The billing configs of the yards in the caller’s scope, by yard id.',
    access: BILLING,
    query: ConfigListQuery,
    response: { schema: page(YardConfigOut) },
    errors: [409],
    handler: ({ principal, query }, { config }) => config.list(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/billing/config/with-carriers',
    tag: BILLING_TAG,
    summary: 'Get all yards configs including carrier configs',
    description: 'Each carrier config has its own values (null = the yard’s) and the `effective` rates.',
    access: BILLING,
    query: ConfigListQuery,
    response: { schema: page(YardConfigWithCarriersOut) },
    errors: [409],
    handler: ({ principal, query }, { config }) => config.listWithCarriers(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/billing/config/with-carrier-ids',
    tag: BILLING_TAG,
    summary: 'Get all yards configs including carrierIds',
    access: BILLING,
    query: ConfigListQuery,
    response: { schema: page(YardConfigWithCarrierIdsOut) },
    errors: [409],
    handler: ({ principal, query }, { config }) => config.listWithCarrierIds(principal, query),
  });

  r.add({
    method: 'post',
    path: '/api/billing/config',
    tag: BILLING_TAG,
    summary: 'Create new yard config (409 if it exists)',
    description: SCOPE,
    access: BILLING,
    body: YardConfigCreate,
    response: { status: 201, schema: YardConfigOut },
    errors: [404, 409],
    errorText: conflict(EXISTS),
    handler: async ({ principal, body, res }, { config }) => {
      const created = await config.create(principal, body);
      res.setHeader('Location', `/api/billing/config/${created.yardId}`);
      return created;
    },
  });

  r.add({
    method: 'get',
    path: '/api/billing/config/{yardId}',
    tag: BILLING_TAG,
    summary: 'Get the config for the requested yard',
    description: SCOPE,
    access: BILLING,
    params: YardParams,
    yardParam: 'yardId',
    response: { schema: YardConfigOut },
    errors: [404, 409],
    handler: ({ principal, params }, { config }) => config.get(principal, params.yardId),
  });

  r.add({
    method: 'get',
    path: '/api/billing/config/{yardId}/with-carriers',
    tag: BILLING_TAG,
    summary: 'Get the config for the requested yard including carrier configs',
    description: SCOPE,
    access: BILLING,
    params: YardParams,
    yardParam: 'yardId',
    response: { schema: YardConfigWithCarriersOut },
    errors: [404, 409],
    handler: ({ principal, params }, { config }) => config.getWithCarriers(principal, params.yardId),
  });

  r.add({
    method: 'put',
    path: '/api/billing/config/{yardId}',
    tag: BILLING_TAG,
    summary: 'Create or update yard config',
    description: `Sets the whole config: a field left out takes its default. ${PUT_STATUS} ${SCOPE}`,
    access: BILLING,
    params: YardParams,
    yardParam: 'yardId',
    body: YardConfigPut,
    response: { schema: YardConfigOut, description: 'Replaced (201 Created when the yard had none)' },
    errors: [404, 409],
    handler: async ({ principal, params, body, res }, { config }) => {
      const { config: out, created } = await config.put(principal, params.yardId, body);
      if (!created) return out;
      res.setHeader('Location', `/api/billing/config/${out.yardId}`);
      res.status(201).json(out);
      return undefined;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/billing/config/{yardId}',
    tag: BILLING_TAG,
    summary: 'Delete a yard config (and its carrier configs)',
    description: `Invoices and summaries already made are kept. ${SCOPE}`,
    access: BILLING,
    params: YardParams,
    yardParam: 'yardId',
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }, { config }) => {
      await config.delete(principal, params.yardId);
    },
  });

  r.add({
    method: 'get',
    path: '/api/billing/config/{yardId}/yard',
    tag: BILLING_TAG,
    summary: 'Get requested yard (the yard with its billing status)',
    description: `The yard, whether it has a billing config (and the config), and how many carrier configs. ${SCOPE}`,
    access: BILLING,
    params: YardParams,
    yardParam: 'yardId',
    response: { schema: YardBillingStatusOut },
    errors: [404, 409],
    handler: ({ principal, params }, { config }) => config.yardStatus(principal, params.yardId),
  });
}
