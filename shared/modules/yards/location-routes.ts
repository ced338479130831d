import { STAFF } from '../../auth/principal.js';
import { IdParams, page } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import {
  LocationCreate,
  LocationListQuery,
  LocationOut,
  LocationParams,
  LocationPatch,
} from './location-schema.js';
import type { LocationService } from './location-service.js';
import { YARD_TAG } from './schema.js';

export function registerLocationRoutes(r: RouteRegistrar, locations: LocationService): void {
  r.add({
    method: 'get',
    path: '/api/yard/{id}/location',
    tag: YARD_TAG,
    summary: 'Spots, doors, zones and staging areas of a yard, by name',
    access: [...STAFF, 'driver'],
    params: IdParams,
    yardParam: 'id',
    query: LocationListQuery,
    response: { schema: page(LocationOut) },
    errors: [404],
    handler: ({ principal, params, query }) => locations.list(principal, params.id, query),
  });

  r.add({
    method: 'post',
    path: '/api/yard/{id}/location',
    tag: YARD_TAG,
    summary: 'Add a location to a yard (name unique in the yard, case-insensitive; 409 duplicate)',
    access: ['admin', 'dispatcher'],
    params: IdParams,
    yardParam: 'id',
    body: LocationCreate,
    response: { status: 201, schema: LocationOut },
    errors: [404, 409],
    handler: async ({ principal, params, body, res }) => {
      const location = await locations.create(principal, params.id, body);
      res.setHeader('ETag', etagOf(location.version));
      res.setHeader('Location', `/api/yard/${location.yardId}/location/${location.id}`);
      return location;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/yard/{id}/location/{locationId}',
    tag: YARD_TAG,
    summary: 'Update a location (send If-Match with the ETag you read to avoid overwriting a newer change)',
    access: ['admin', 'dispatcher'],
    params: LocationParams,
    yardParam: 'id',
    body: LocationPatch,
    response: { schema: LocationOut },
    errors: [404, 409, 412],
    handler: async ({ principal, params, body, ifMatch, res }) => {
      const location = await locations.update(principal, params.id, params.locationId, body, ifMatch);
      res.setHeader('ETag', etagOf(location.version));
      return location;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/yard/{id}/location/{locationId}',
    tag: YARD_TAG,
    summary: 'Remove a location nothing refers to (otherwise 409 in-use: set it inactive instead)',
    access: ['admin', 'dispatcher'],
    params: LocationParams,
    yardParam: 'id',
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }) => {
      await locations.delete(principal, params.id, params.locationId);
    },
  });
}
