import { STAFF } from '../../auth/principal.js';
import { IdParams, PageQuery, page } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import {
  InspectionCreate,
  InspectionOut,
  TruckCreate,
  TruckIdParams,
  TruckListQuery,
  TruckOut,
  TruckPatch,
} from './schema.js';
import type { TruckService } from './service.js';
import { truckOut } from './service.js';

const TAG = 'Truck Controller';

export function registerTruckRoutes(r: RouteRegistrar, { trucks }: { trucks: TruckService }): void {
  r.add({
    method: 'get',
    path: '/api/truck',
    tag: TAG,
    summary: 'List trucks',
    access: STAFF,
    query: TruckListQuery,
    response: { schema: page(TruckOut) },
    handler: ({ query, principal }) => trucks.list(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/truck/{id}',
    tag: TAG,
    summary: 'One truck',
    access: STAFF,
    params: IdParams,
    response: { schema: TruckOut },
    errors: [404],
    handler: async ({ params, principal, res }) => {
      const truck = truckOut(await trucks.getFor(principal, params.id));
      res.setHeader('ETag', etagOf(truck.version));
      return truck;
    },
  });

  r.add({
    method: 'post',
    path: '/api/truck',
    tag: TAG,
    summary: 'Create a truck',
    access: ['admin', 'gate'],
    body: TruckCreate,
    response: { status: 201, schema: TruckOut },
    errors: [404, 409],
    handler: async ({ body, res }) => {
      const truck = await trucks.create(body);
      res.setHeader('ETag', etagOf(truck.version));
      res.setHeader('Location', `/api/truck/${truck.id}`);
      return truck;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/truck/{id}',
    tag: TAG,
    summary: 'Update a truck (send If-Match with the ETag you read); yardId is set by gate movements',
    access: ['admin', 'gate'],
    params: IdParams,
    body: TruckPatch,
    response: { schema: TruckOut },
    errors: [404, 409, 412],
    handler: async ({ params, body, principal, ifMatch, res }) => {
      const truck = await trucks.update(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(truck.version));
      return truck;
    },
  });

  r.add({
    method: 'get',
    path: '/api/truck/{truckId}/inspections',
    tag: TAG,
    summary: 'Inspections of a truck, newest first',
    access: STAFF,
    params: TruckIdParams,
    query: PageQuery,
    response: { schema: page(InspectionOut) },
    errors: [404],
    handler: ({ params, query, principal }) => trucks.inspections.list(principal, params.truckId, query),
  });

  r.add({
    method: 'get',
    path: '/api/truck/{truckId}/last-inspection',
    tag: TAG,
    summary: 'The latest inspection of a truck (404 if it has none)',
    access: STAFF,
    params: TruckIdParams,
    response: { schema: InspectionOut },
    errors: [404],
    handler: ({ params, principal }) => trucks.inspections.last(principal, params.truckId),
  });

  r.add({
    method: 'post',
    path: '/api/truck/{truckId}/inspections',
    tag: TAG,
    summary: 'Record an inspection (immutable once recorded; the caller is the inspector)',
    access: ['admin', 'gate'],
    params: TruckIdParams,
    body: InspectionCreate,
    response: { status: 201, schema: InspectionOut },
    errors: [404],
    handler: async ({ params, body, principal, res }) => {
      const inspection = await trucks.inspections.create(principal, params.truckId, body);
      res.setHeader('Location', `/api/truck/${params.truckId}/inspections`);
      return inspection;
    },
  });
}
