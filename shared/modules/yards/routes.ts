import { STAFF } from '../../auth/principal.js';
import { IdParams, page } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { registerGateRoutes } from './gate-routes.js';
import { registerLocationRoutes } from './location-routes.js';
import { OccupancyOut } from './occupancy.js';
import { YARD_TAG, YardCreate, YardListQuery, YardOut, YardPatch } from './schema.js';
import type { YardService } from './service.js';

/** The yard routes, and through yards.gates and yards.locations those of its gates and locations. */
export function registerYardRoutes(r: RouteRegistrar, { yards }: { yards: YardService }): void {
  r.add({
    method: 'get',
    path: '/api/yard',
    tag: YARD_TAG,
    summary: 'List the yards in your scope',
    access: [...STAFF, 'driver'],
    query: YardListQuery,
    response: { schema: page(YardOut) },
    handler: ({ principal, query }) => yards.list(principal, query),
  });

  r.add({
    method: 'post',
    path: '/api/yard',
    tag: YARD_TAG,
    summary: 'Create a yard (code unique, case-insensitive; 409 duplicate)',
    access: ['admin'],
    body: YardCreate,
    response: { status: 201, schema: YardOut },
    errors: [409],
    handler: async ({ principal, body, res }) => {
      const yard = await yards.create(principal, body);
      res.setHeader('ETag', etagOf(yard.version));
      res.setHeader('Location', `/api/yard/${yard.id}`);
      return yard;
    },
  });

  r.add({
    method: 'get',
    path: '/api/yard/{id}',
    tag: YARD_TAG,
    summary: 'One yard',
    access: STAFF,
    params: IdParams,
    yardParam: 'id',
    response: { schema: YardOut },
    errors: [404],
    handler: async ({ principal, params, res }) => {
      const yard = await yards.get(principal, params.id);
      res.setHeader('ETag', etagOf(yard.version));
      return yard;
    },
  });

  r.add({
    method: 'get',
    path: '/api/yard/{id}/occupancy',
    tag: YARD_TAG,
    summary: "A yard's occupancy: trailers against capacity, places in use, trailers on no place",
    description:
      "One request whatever the yard holds (the Yard screen's occupancy panel): the places are active " +
      'spots, doors and staging lanes; a zone is an area, not a place.',
    access: STAFF,
    params: IdParams,
    yardParam: 'id',
    response: { schema: OccupancyOut },
    errors: [404],
    handler: ({ principal, params }) => yards.occupancy(principal, params.id),
  });

  r.add({
    method: 'patch',
    path: '/api/yard/{id}',
    tag: YARD_TAG,
    summary: 'Update a yard (send If-Match with the ETag you read to avoid overwriting a newer change)',
    access: ['admin'],
    params: IdParams,
    yardParam: 'id',
    body: YardPatch,
    response: { schema: YardOut },
    errors: [404, 409, 412],
    handler: async ({ principal, params, body, ifMatch, res }) => {
      const yard = await yards.update(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(yard.version));
      return yard;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/yard/{id}',
    tag: YARD_TAG,
    summary: 'Delete a yard that nothing refers to (otherwise 409 in-use: set it inactive instead)',
    access: ['admin'],
    params: IdParams,
    yardParam: 'id',
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }) => {
      await yards.delete(principal, params.id);
    },
  });

  registerGateRoutes(r, yards.gates);
  registerLocationRoutes(r, yards.locations);
}
