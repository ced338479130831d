import { IdParams } from '../../../http/common-schemas.js';
import type { BillingRoutes } from '../place.js';
import { BILLING, conflict, EXISTS, PUT_STATUS, SCOPE } from './routes.js';
import {
  BILLING_TAG,
  CarrierConfigCreate,
  CarrierConfigOut,
  CarrierConfigPatch,
  CarrierConfigPut,
  YardCarrierParams,
  YardParams,
} from './schema.js';

const YARD_FIRST = '`yard-config-missing` when the yard has no billing config yet';

/** The carriers' billing configs within a yard (carrier-service.ts), after the yards' (routes.ts). */
export function registerCarrierConfigRoutes(r: BillingRoutes): void {
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
    handler: async ({ principal, params, body, res }, { carrierConfigs }) => {
      const created = await carrierConfigs.create(principal, params.yardId, body);
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
    handler: ({ principal, params }, { carrierConfigs }) =>
      carrierConfigs.get(principal, params.yardId, params.carrierId),
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
    handler: async ({ principal, params, body, res }, { carrierConfigs }) => {
      const { config: out, created } = await carrierConfigs.put(
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
    handler: ({ principal, params, body }, { carrierConfigs }) =>
      carrierConfigs.patch(principal, params.yardId, params.carrierId, body),
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
    handler: async ({ principal, params }, { carrierConfigs }) => {
      await carrierConfigs.delete(principal, params.yardId, params.carrierId);
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
    handler: ({ principal, params }, { carrierConfigs }) => carrierConfigs.getById(principal, params.id),
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
    handler: ({ principal, params, body }, { carrierConfigs }) =>
      carrierConfigs.patchById(principal, params.id, body),
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
    handler: async ({ principal, params }, { carrierConfigs }) => {
      await carrierConfigs.deleteById(principal, params.id);
    },
  });
}
