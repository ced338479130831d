import { STAFF } from '../../auth/principal.js';
import { IdParams, page } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { CarrierCreate, CarrierListQuery, CarrierOut, CarrierPatch } from './schema.js';
import type { CarrierService } from './service.js';

const TAG = 'Carrier Controller';

export function registerCarrierRoutes(r: RouteRegistrar, { carriers }: { carriers: CarrierService }): void {
  r.add({
    method: 'get',
    path: '/api/carrier',
    tag: TAG,
    summary: 'List carriers',
    access: STAFF,
    query: CarrierListQuery,
    response: { schema: page(CarrierOut) },
    handler: ({ query }) => carriers.list(query),
  });

  r.add({
    method: 'post',
    path: '/api/carrier',
    tag: TAG,
    summary: 'Create a carrier',
    access: ['admin'],
    body: CarrierCreate,
    response: { status: 201, schema: CarrierOut },
    errors: [409],
    handler: async ({ body, res }) => {
      const carrier = await carriers.create(body);
      res.setHeader('ETag', etagOf(carrier.version));
      res.setHeader('Location', `/api/carrier/${carrier.id}`);
      return carrier;
    },
  });

  r.add({
    method: 'get',
    path: '/api/carrier/{id}',
    tag: TAG,
    summary: 'One carrier',
    access: STAFF,
    params: IdParams,
    response: { schema: CarrierOut },
    errors: [404],
    handler: async ({ params, res }) => {
      const carrier = await carriers.get(params.id);
      res.setHeader('ETag', etagOf(carrier.version));
      return carrier;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/carrier/{id}',
    tag: TAG,
    summary: 'Update a carrier (send If-Match with the ETag you read to avoid overwriting a newer change)',
    access: ['admin'],
    params: IdParams,
    body: CarrierPatch,
    response: { schema: CarrierOut },
    errors: [404, 409, 412],
    handler: async ({ params, body, ifMatch, res }) => {
      const carrier = await carriers.update(params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(carrier.version));
      return carrier;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/carrier/{id}',
    tag: TAG,
    summary: 'Delete a carrier that nothing refers to (otherwise 409 in-use: block it instead)',
    access: ['admin'],
    params: IdParams,
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ params }) => {
      await carriers.delete(params.id);
    },
  });
}
