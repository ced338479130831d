import type { Role } from '../../../auth/principal.js';
import { IdParams, page } from '../../../http/common-schemas.js';
import type { BillingRoutes } from '../place.js';
import {
  BILLING_TAG,
  CarrierConfigCreate,
  CarrierConfigOut,
  CarrierConfigPatch,
  CarrierConfigPut,
  ConfigListQuery,
  YardBillingStatusOut,
  YardCarrierParams,
  YardConfigCreate,
  YardConfigOut,
  YardConfigPut,
  YardConfigWithCarrierIdsOut,
  YardConfigWithCarriersOut,
  YardParams,
} from './schema.js';
import type { BillingConfigService } from './service.js';

/** API.md "Billing": B A read, A B write. */
const BILLING: readonly Role[] = ['admin', 'billing'];

/** A route's own conflicts (the 409 `cloud-owned` of a linked edge is added by place.ts). */
const conflict = (own: string) => ({ 409: `Conflict with the current state: ${own}` });

const EXISTS = '`billing-config-exists` when there is one already';
const YARD_FIRST = '`yard-config-missing` when the yard has no billing config yet';
const SCOPE =
  'A yard outside the caller’s yard scope is 403. Money is integer minor units of the yard’s `currency`.';
const PUT_STATUS = 'Answers 201 Created (with Location) when there was none, 200 OK when it replaced one.';

export function registerBillingConfigRoutes(r: BillingRoutes, config: BillingConfigService): void {
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
    handler: ({ principal, query }) => config.list(principal, query),
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
    handler: ({ principal, query }) => config.listWithCarriers(principal, query),
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
    handler: ({ principal, query }) => config.listWithCarrierIds(principal, query),
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
    handler: async ({ principal, body, res }) => {
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
    handler: ({ principal, params }) => config.get(principal, params.yardId),
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
    handler: ({ principal, params }) => config.getWithCarriers(principal, params.yardId),
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
    handler: async ({ principal, params, body, res }) => {
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
    handler: async ({ principal, params }) => {
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
    handler: ({ principal, params }) => config.yardStatus(principal, params.yardId),
  });

  r.add({
    method: 'post',
    path: '/api/billing/config/{yardId}/carrier',
    tag: BILLING_TAG,
    summary: 'Create new carrier config within a yard (409 if it exists)',
    description: `The yard’s own config must exist first. ${SCOPE}`,
    access: BILLING,
    params: YardParams,
    yardParam: 'yardId',
    body: CarrierConfigCreate,
    response: { status: 201, schema: CarrierConfigOut },
    errors: [404, 409],
    errorText: conflict(`${EXISTS}; ${YARD_FIRST}`),
    handler: async ({ principal, params, body, res }) => {
      const created = await config.createCarrier(principal, params.yardId, body);
      res.setHeader('Location', `/api/billing/carrier-config/${created.id}`);
      return created;
    },
  });

  r.add({
    method: 'get',
    path: '/api/billing/config/{yardId}/carrier/{carrierId}',
    tag: BILLING_TAG,
    summary: 'Get requested carrier within yard',
    description: `The carrier’s own values (null = the yard’s) and the \`effective\` rates. ${SCOPE}`,
    access: BILLING,
    params: YardCarrierParams,
    yardParam: 'yardId',
    response: { schema: CarrierConfigOut },
    errors: [404, 409],
    handler: ({ principal, params }) => config.getCarrier(principal, params.yardId, params.carrierId),
  });

  r.add({
    method: 'put',
    path: '/api/billing/config/{yardId}/carrier/{carrierId}',
    tag: BILLING_TAG,
    summary: 'Create or update a carrier config within a yard',
    description: `Sets the whole carrier config: a rate left out is null (inherits the yard’s). ${PUT_STATUS} The yard’s own config must exist first. ${SCOPE}`,
    access: BILLING,
    params: YardCarrierParams,
    yardParam: 'yardId',
    body: CarrierConfigPut,
    response: { schema: CarrierConfigOut, description: 'Replaced (201 Created when the carrier had none)' },
    errors: [404, 409],
    errorText: conflict(YARD_FIRST),
    handler: async ({ principal, params, body, res }) => {
      const { config: out, created } = await config.putCarrier(
        principal,
        params.yardId,
        params.carrierId,
        body,
      );
      if (!created) return out;
      res.setHeader('Location', `/api/billing/carrier-config/${out.id}`);
      res.status(201).json(out);
      return undefined;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/billing/config/{yardId}/carrier/{carrierId}',
    tag: BILLING_TAG,
    summary: 'Update an existing billing carrier config within a yard',
    description: `A field left out is kept; null makes a rate inherit the yard’s. ${SCOPE}`,
    access: BILLING,
    params: YardCarrierParams,
    yardParam: 'yardId',
    body: CarrierConfigPatch,
    response: { schema: CarrierConfigOut },
    errors: [404, 409],
    handler: ({ principal, params, body }) =>
      config.patchCarrier(principal, params.yardId, params.carrierId, body),
  });

  r.add({
    method: 'delete',
    path: '/api/billing/config/{yardId}/carrier/{carrierId}',
    tag: BILLING_TAG,
    summary: 'Delete a carrier config within a yard',
    description: `The carrier then pays the yard’s rates without booked spaces or minimum. ${SCOPE}`,
    access: BILLING,
    params: YardCarrierParams,
    yardParam: 'yardId',
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }) => {
      await config.deleteCarrier(principal, params.yardId, params.carrierId);
    },
  });

  r.add({
    method: 'get',
    path: '/api/billing/carrier-config/{id}',
    tag: BILLING_TAG,
    summary: 'Get requested carrier within yard by unique id',
    description: 'A carrier config in a yard outside the caller’s scope is 404.',
    access: BILLING,
    params: IdParams,
    response: { schema: CarrierConfigOut },
    errors: [404, 409],
    handler: ({ principal, params }) => config.getCarrierById(principal, params.id),
  });

  r.add({
    method: 'patch',
    path: '/api/billing/carrier-config/{id}',
    tag: BILLING_TAG,
    summary: 'Update an existing carrier config within a yard by its unique id',
    description: 'A field left out is kept; null makes a rate inherit the yard’s.',
    access: BILLING,
    params: IdParams,
    body: CarrierConfigPatch,
    response: { schema: CarrierConfigOut },
    errors: [404, 409],
    handler: ({ principal, params, body }) => config.patchCarrierById(principal, params.id, body),
  });

  r.add({
    method: 'delete',
    path: '/api/billing/carrier-config/{id}',
    tag: BILLING_TAG,
    summary: 'Delete a carrier within a yard by its unique id',
    access: BILLING,
    params: IdParams,
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }) => {
      await config.deleteCarrierById(principal, params.id);
    },
  });
}
