import { STAFF } from '../../auth/principal.js';
import { IdParams, page } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import {
  MovementCreate,
  MovementCreated,
  MovementListQuery,
  MovementOut,
  VisitListQuery,
  VisitOut,
} from './schema.js';
import type { MovementService } from './service.js';

const TAG = 'Movement Controller';

export function registerMovementRoutes(
  r: RouteRegistrar,
  { movements }: { movements: MovementService },
): void {
  r.add({
    method: 'post',
    path: '/api/movement',
    tag: TAG,
    summary: 'Record a gate check-in or check-out',
    description:
      'Check-in puts the trailer (with location, load status, seal) and the truck in the yard and opens a visit; ' +
      'check-out takes them out and closes the visit. An unknown trailer number or truck plate creates the unit. ' +
      '409 `already-in-yard` / `not-in-yard` unless `force: true` (then recorded with a warning); a yard outside ' +
      "the caller's scope is never named, and a scoped caller cannot check out a unit that is in such a yard, " +
      'even with force. 400 on `at` (`visit-inverted`) for a movement dated before the check-in of the visit it ' +
      "closes, or a check-in dated before the unit's last check-out: visits are never inverted. " +
      '409 `driver-not-allowed` (with `reasons`) unless `override: {reason}`; 409 `gate-direction`. ' +
      'A trailer number new to this carrier that other trailers carry is 409 `same-number-unit` (with `matches`), ' +
      'a container number with a wrong ISO 6346 check digit 409 `check-digit-mismatch` (with `expectedCheckDigit`, ' +
      '`correctedNumber`), unless `trailer.confirmNew: true` (recorded with a warning). ' +
      '`actuate: true` pulses the gate relay after the movement is stored: the movement stands even if the gate ' +
      'is busy or faults, and `actuation` reports what happened. `snapshot: true` first takes a picture from each enabled camera of the gate (stored as attachments, listed in attachmentIds); a camera that fails is noted in warnings and never stops the gate.',
    access: ['admin', 'gate'],
    body: MovementCreate,
    response: { status: 201, schema: MovementCreated },
    errors: [404, 409],
    handler: async ({ body, principal, res }) => {
      const movement = await movements.create(body, principal);
      res.setHeader('ETag', etagOf(movement.version));
      res.setHeader('Location', `/api/movement/${movement.id}`);
      return movement;
    },
  });

  r.add({
    method: 'get',
    path: '/api/movement',
    tag: TAG,
    summary: 'List movements, newest first',
    access: STAFF,
    query: MovementListQuery,
    response: { schema: page(MovementOut) },
    handler: ({ query, principal }) => movements.list(query, principal),
  });

  r.add({
    method: 'get',
    path: '/api/movement/{id}',
    tag: TAG,
    summary: 'One movement',
    access: STAFF,
    params: IdParams,
    response: { schema: MovementOut },
    errors: [404],
    handler: async ({ params, principal, res }) => {
      const movement = await movements.get(params.id, principal);
      res.setHeader('ETag', etagOf(movement.version));
      return movement;
    },
  });

  r.add({
    method: 'get',
    path: '/api/visit',
    tag: TAG,
    summary: 'Unit visits (in -> out) with dwell, newest first',
    description: 'Dwell of an open visit (the unit is still in the yard) runs up to now.',
    access: STAFF,
    query: VisitListQuery,
    response: { schema: page(VisitOut) },
    handler: ({ query, principal }) => movements.listVisits(query, principal),
  });
}
