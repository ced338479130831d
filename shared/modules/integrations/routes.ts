import { PageQuery, page } from '../../http/common-schemas.js';
import { pageInMemory } from '../../http/cursor.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import {
  CameraProviderKindOut,
  IntegrationCreate,
  IntegrationIdParams,
  IntegrationListQuery,
  IntegrationOut,
  IntegrationPatch,
  ProviderCameraOut,
} from './schema.js';
import type { IntegrationService } from './service.js';

const TAG = 'Integration Controller';

export function registerIntegrationRoutes(
  r: RouteRegistrar,
  { integrations }: { integrations: IntegrationService },
): void {
  r.add({
    method: 'get',
    path: '/api/integration',
    tag: TAG,
    summary: 'Get Integrations (secrets masked)',
    access: ['admin'],
    query: IntegrationListQuery,
    response: { schema: page(IntegrationOut) },
    handler: ({ query }) => integrations.list(query),
  });

  r.add({
    method: 'post',
    path: '/api/integration',
    tag: TAG,
    summary: 'Add Integration',
    description: "The config is checked against the kind's schema (GET /api/integration/camera-provider).",
    access: ['admin'],
    body: IntegrationCreate,
    response: { status: 201, schema: IntegrationOut },
    errors: [409],
    handler: async ({ body, res }) => {
      const integration = await integrations.create(body);
      res.setHeader('ETag', etagOf(integration.version));
      res.setHeader('Location', `/api/integration/${integration.id}`);
      return integration;
    },
  });

  // Before /api/integration/{id}.
  r.add({
    method: 'get',
    path: '/api/integration/camera-provider',
    tag: TAG,
    summary: 'Get Camera Providers: the supported kinds with their config schemas',
    access: ['admin'],
    query: PageQuery,
    response: { schema: page(CameraProviderKindOut) },
    handler: ({ query }) => pageInMemory(integrations.kindsWithSchemas(), query, (_, i) => [i]), // the registry's order,
  });

  r.add({
    method: 'get',
    path: '/api/integration/{id}',
    tag: TAG,
    summary: 'Get Integration (secrets masked)',
    access: ['admin'],
    params: IntegrationIdParams,
    response: { schema: IntegrationOut },
    errors: [404],
    handler: async ({ params, res }) => {
      const integration = await integrations.get(params.id);
      res.setHeader('ETag', etagOf(integration.version));
      return integration;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/integration/{id}',
    tag: TAG,
    summary: 'Update Integration (secrets left out or sent masked keep their stored value)',
    access: ['admin'],
    params: IntegrationIdParams,
    body: IntegrationPatch,
    response: { schema: IntegrationOut },
    errors: [404, 409, 412],
    handler: async ({ params, body, ifMatch, res }) => {
      const integration = await integrations.update(params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(integration.version));
      return integration;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/integration/{id}',
    tag: TAG,
    summary: 'Delete Integration (409 in-use while yard cameras use it)',
    access: ['admin'],
    params: IntegrationIdParams,
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ params }) => {
      await integrations.delete(params.id);
    },
  });

  r.add({
    method: 'get',
    path: '/api/integration/{id}/cameras',
    tag: TAG,
    summary: 'Get Cameras from Provider',
    description:
      'Asks the provider now; 502/504 with a camera-* code when it fails or does not answer in time.',
    access: ['admin'],
    params: IntegrationIdParams,
    query: PageQuery,
    response: { schema: page(ProviderCameraOut) },
    errors: [404, 502, 504],
    handler: async ({ params, query }) =>
      pageInMemory(await integrations.providerCameras(params.id), query, (c) => [c.id]),
  });
}
