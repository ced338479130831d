import { STAFF } from '../../auth/principal.js';
import { IdParams, page } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { GateCreate, GateListQuery, GateOut, GateParams, GatePatch } from './gate-schema.js';
import type { GateService } from './gate-service.js';
import { YARD_TAG } from './schema.js';

export function registerGateRoutes(r: RouteRegistrar, gates: GateService): void {
  r.add({
    method: 'get',
    path: '/api/yard/{id}/gate',
    tag: YARD_TAG,
    summary: 'Gates of a yard, with their relay bindings',
    access: STAFF,
    params: IdParams,
    yardParam: 'id',
    query: GateListQuery,
    response: { schema: page(GateOut) },
    errors: [404],
    handler: ({ principal, params, query }) => gates.list(principal, params.id, query),
  });

  r.add({
    method: 'post',
    path: '/api/yard/{id}/gate',
    tag: YARD_TAG,
    summary: 'Add a gate to a yard (name unique in the yard; 409 duplicate)',
    access: ['admin'],
    params: IdParams,
    yardParam: 'id',
    body: GateCreate,
    response: { status: 201, schema: GateOut },
    errors: [404, 409],
    handler: async ({ principal, params, body, res }) => {
      const gate = await gates.create(principal, params.id, body);
      res.setHeader('ETag', etagOf(gate.version));
      res.setHeader('Location', `/api/yard/${gate.yardId}/gate/${gate.id}`);
      return gate;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/yard/{id}/gate/{gateId}',
    tag: YARD_TAG,
    summary: 'Update a gate; a relay binding is replaced whole (send If-Match to avoid lost updates)',
    access: ['admin'],
    params: GateParams,
    yardParam: 'id',
    body: GatePatch,
    response: { schema: GateOut },
    errors: [404, 409, 412],
    handler: async ({ principal, params, body, ifMatch, res }) => {
      const gate = await gates.update(principal, params.id, params.gateId, body, ifMatch);
      res.setHeader('ETag', etagOf(gate.version));
      return gate;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/yard/{id}/gate/{gateId}',
    tag: YARD_TAG,
    summary: 'Remove a gate with no movements or actuations (otherwise 409 in-use)',
    access: ['admin'],
    params: GateParams,
    yardParam: 'id',
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }) => {
      await gates.delete(principal, params.id, params.gateId);
    },
  });
}
