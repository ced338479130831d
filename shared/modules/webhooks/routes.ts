import type { RequestHandler } from 'express';
import type { Role } from '../../auth/principal.js';
import { PageQuery, page } from '../../http/common-schemas.js';
import { ConflictError } from '../../http/errors.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import type { WebhookDeliveries } from './deliveries.js';
import type { WebhookEndpoints } from './endpoints.js';
import {
  WebhookDeliveryListQuery,
  WebhookDeliveryOut,
  WebhookDeliveryParams,
  WebhookEndpointCreate,
  WebhookEndpointOut,
  WebhookEndpointParams,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
} from './schema.js';

const TAG = 'Webhook Controller';

/**
 * Who manages webhook endpoints (docs/api.md "Carrier users, email, webhooks"): admins, within
 * their yard scope. A carrier's own TMS endpoint (filtered to its carrier) would add 'carrier' here
 * once WebhookEndpoints forces carrierIds to the caller's carrier.
 */
const MANAGERS: readonly Role[] = ['admin'];

/** Why a linked edge answers 409: the outbox and its delivery run at the cloud (role-profile.ts integrators). */
const AT_LINKED_EDGE = 'webhooks are registered and delivered at the cloud (nothing is changed)';

export interface WebhookServices {
  endpoints: WebhookEndpoints;
  deliveries: WebhookDeliveries;
}

/**
 * The webhook routes. `s` is null where the integrators' side is the cloud's (a linked edge): every
 * route then answers 409 `cloud-owned` after the role check, so the OpenAPI document is the same on
 * every node.
 */
export function registerWebhookRoutes(r: Pick<RouteRegistrar, 'add'>, s: WebhookServices | null): void {
  const here = (): WebhookServices => {
    if (!s) throw atCloud();
    return s;
  };
  const middleware: RequestHandler[] = s
    ? []
    : [
        () => {
          throw atCloud();
        },
      ];
  const common = { tag: TAG, access: MANAGERS, middleware, cloudOwnedAtLinkedEdge: AT_LINKED_EDGE };

  r.add({
    ...common,
    method: 'get',
    path: '/api/webhook',
    summary: 'List webhook endpoints, with their delivery health',
    query: PageQuery,
    response: { schema: page(WebhookEndpointOut) },
    handler: ({ principal, query }) => here().endpoints.list(principal, query),
  });

  r.add({
    ...common,
    method: 'post',
    path: '/api/webhook',
    summary: 'Register a webhook endpoint (the signing secret is in this answer only)',
    description:
      'https on a public address only (400 address-refused otherwise). The answer holds `secret`, used to verify the webhook-signature header (docs/webhooks.md); it is never shown again.',
    body: WebhookEndpointCreate,
    response: { status: 201, schema: WebhookEndpointWithSecret },
    handler: async ({ principal, body, res }) => {
      const created = await here().endpoints.create(principal, body);
      res.setHeader('ETag', etagOf(created.version));
      res.setHeader('Location', `/api/webhook/${created.id}`);
      return created;
    },
  });

  r.add({
    ...common,
    method: 'get',
    path: '/api/webhook/{id}',
    summary: 'Get a webhook endpoint (never its secret)',
    params: WebhookEndpointParams,
    response: { schema: WebhookEndpointOut },
    errors: [404],
    handler: async ({ principal, params, res }) => {
      const endpoint = await here().endpoints.get(principal, params.id);
      res.setHeader('ETag', etagOf(endpoint.version));
      return endpoint;
    },
  });

  r.add({
    ...common,
    method: 'patch',
    path: '/api/webhook/{id}',
    summary: 'Change a webhook endpoint, or rotate its secret (the new one is in this answer only)',
    params: WebhookEndpointParams,
    body: WebhookEndpointPatch,
    response: { schema: WebhookEndpointWithSecret },
    errors: [404, 412],
    handler: async ({ principal, params, body, ifMatch, res }) => {
      const endpoint = await here().endpoints.update(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(endpoint.version));
      return endpoint;
    },
  });

  r.add({
    ...common,
    method: 'delete',
    path: '/api/webhook/{id}',
    summary: 'Remove a webhook endpoint (its pending deliveries are given up)',
    params: WebhookEndpointParams,
    response: { status: 204 },
    errors: [404],
    handler: async ({ principal, params }) => {
      await here().endpoints.remove(principal, params.id);
    },
  });

  r.add({
    ...common,
    method: 'get',
    path: '/api/webhook/{id}/delivery',
    summary: 'List deliveries to an endpoint, newest first, with every attempt and its answer',
    params: WebhookEndpointParams,
    query: WebhookDeliveryListQuery,
    response: { schema: page(WebhookDeliveryOut) },
    errors: [404],
    handler: ({ principal, params, query }) => here().deliveries.list(principal, params.id, query),
  });

  r.add({
    ...common,
    method: 'post',
    path: '/api/webhook/{id}/delivery/{deliveryId}/replay',
    summary: 'Send a delivery again (same webhook-id), outside the order of its resource',
    description:
      'The delivery goes back to pending and is attempted at once, whatever its status; the attempt is logged as a replay. Receivers dedupe by webhook-id.',
    params: WebhookDeliveryParams,
    response: { status: 202, schema: WebhookDeliveryOut },
    errors: [404],
    handler: ({ principal, params }) => here().deliveries.replay(principal, params.id, params.deliveryId),
  });
}

function atCloud(): ConflictError {
  return new ConflictError(
    'cloud-owned',
    'Webhooks are registered and delivered at the cloud for a site linked to it. Use the cloud’s webhook routes.',
  );
}
