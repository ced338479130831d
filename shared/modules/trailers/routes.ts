import { STAFF } from '../../auth/principal.js';
import { IdParams, page } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { InYardOut, InYardQuery } from './in-yard.js';
import { TrailerCreate, TrailerListQuery, TrailerOut, TrailerPatch } from './schema.js';
import type { TrailerService } from './service.js';
import { trailerOut } from './service.js';

const TAG = 'Trailer Controller';

export function registerTrailerRoutes(r: RouteRegistrar, { trailers }: { trailers: TrailerService }): void {
  r.add({
    method: 'get',
    path: '/api/trailer',
    tag: TAG,
    summary: 'List trailers',
    access: STAFF,
    query: TrailerListQuery,
    response: { schema: page(TrailerOut) },
    description:
      'The answer has an ETag; send it as If-None-Match to get 304 Not Modified while no trailer changed.',
    handler: async ({ query, principal, req, res }) => {
      const page = await trailers.list(principal, query);
      res.setHeader('ETag', page.etag);
      if (req.get('if-none-match') === page.etag) {
        res.status(304).end();
        return;
      }
      return page.body;
    },
  });

  // Before /api/trailer/{id}: "in-yard" is not an id.
  r.add({
    method: 'get',
    path: '/api/trailer/in-yard',
    tag: TAG,
    summary: 'Trailers in one yard: how many on each place, and the ones there longest',
    description:
      'One request for what a yard overview shows, whatever the yard holds: per place (locationId ' +
      'null: on no place) the trailers on it, and the `longest` (default 20) earliest arrivals.',
    access: STAFF,
    query: InYardQuery,
    response: { schema: InYardOut },
    errors: [403, 404],
    handler: ({ query, principal }) =>
      trailers.inYard(principal, query.yardId, query.longest, query.byLocation),
  });

  r.add({
    method: 'get',
    path: '/api/trailer/{id}',
    tag: TAG,
    summary: 'One trailer',
    access: STAFF,
    params: IdParams,
    response: { schema: TrailerOut },
    errors: [404],
    handler: async ({ params, principal, res }) => {
      const trailer = trailerOut(await trailers.getFor(principal, params.id));
      res.setHeader('ETag', etagOf(trailer.version));
      return trailer;
    },
  });

  r.add({
    method: 'post',
    path: '/api/trailer',
    tag: TAG,
    summary: 'Create a trailer (outside any yard; gate movements bring it in)',
    access: ['admin', 'gate'],
    body: TrailerCreate,
    response: { status: 201, schema: TrailerOut },
    errors: [404, 409],
    handler: async ({ body, res }) => {
      const trailer = await trailers.create(body);
      res.setHeader('ETag', etagOf(trailer.version));
      res.setHeader('Location', `/api/trailer/${trailer.id}`);
      return trailer;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/trailer/{id}',
    tag: TAG,
    summary: 'Update a trailer (send If-Match with the ETag you read)',
    description:
      'yardId is set by gate movements only. locationId may change while the trailer is in a yard, ' +
      'to a location of that yard (409 not-in-yard otherwise).',
    access: ['admin', 'dispatcher', 'gate'],
    params: IdParams,
    body: TrailerPatch,
    response: { schema: TrailerOut },
    errors: [404, 409, 412],
    handler: async ({ params, body, principal, ifMatch, res }) => {
      const trailer = await trailers.update(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(trailer.version));
      return trailer;
    },
  });
}
