import { STAFF } from '../../auth/principal.js';
import { IdParams, page } from '../../http/common-schemas.js';
import { ValidationError } from '../../http/errors.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import {
  DriverBlockQuery,
  DriverCheckOut,
  DriverCheckQuery,
  DriverCreate,
  DriverListQuery,
  DriverOut,
  DriverPatch,
  DriverSearchOut,
  DriverSearchQuery,
} from './schema.js';
import type { DriverService } from './service.js';

const TAG = 'Driver Controller';

export function registerDriverRoutes(r: RouteRegistrar, { drivers }: { drivers: DriverService }): void {
  r.add({
    method: 'get',
    path: '/api/driver',
    tag: TAG,
    summary: 'List drivers',
    access: STAFF,
    query: DriverListQuery,
    response: { schema: page(DriverOut) },
    handler: ({ query }) => drivers.list(query),
  });

  r.add({
    method: 'get',
    path: '/api/driver/check',
    tag: TAG,
    summary: 'May this driver enter? By driverId, by licenseNumber + licenseRegion, or by phone',
    description:
      'Refusal reasons: driver-blocked, license-expired (expiry date before today, UTC), carrier-blocked; ' +
      'an unknown driver is {known: false, allowed: false, reasons: [not-registered]}. ' +
      'With both forms the licence is tried first, then the phone; several matches: the newest record. ' +
      'driverId checks that very driver (as a gate movement naming it will); an unknown id is not-registered.',
    access: STAFF,
    query: DriverCheckQuery,
    response: { schema: DriverCheckOut },
    handler: ({ query }) => {
      if (query.driverId !== undefined) return drivers.check({ driverId: query.driverId });
      const byLicense = query.licenseNumber !== undefined || query.licenseRegion !== undefined;
      if (byLicense && (query.licenseNumber === undefined || query.licenseRegion === undefined)) {
        const missing = query.licenseNumber === undefined ? 'licenseNumber' : 'licenseRegion';
        throw new ValidationError([
          { path: `query.${missing}`, message: 'Give the licence number and the licence region together.' },
        ]);
      }
      if (!byLicense && query.phone === undefined) {
        throw new ValidationError([
          { path: 'query', message: 'Give the licence number and region, or the phone number.' },
        ]);
      }
      return drivers.check(query);
    },
  });

  r.add({
    method: 'get',
    path: '/api/driver/search',
    tag: TAG,
    summary: 'Search drivers by name, phone or licence, best match first',
    description:
      'Ranked, not paged: answers `{items, nextCursor}` with the best `limit` matches and nextCursor always ' +
      'null; narrow q to find others.',
    access: STAFF,
    query: DriverSearchQuery,
    response: { schema: DriverSearchOut },
    handler: ({ query }) => drivers.search(query.q, query.limit),
  });

  r.add({
    method: 'get',
    path: '/api/driver/{id}',
    tag: TAG,
    summary: 'One driver (a driver may read only itself)',
    access: [...STAFF, 'driver'],
    params: IdParams,
    response: { schema: DriverOut },
    errors: [404],
    handler: async ({ params, principal, res }) => {
      const driver = await drivers.getFor(principal, params.id);
      res.setHeader('ETag', etagOf(driver.version));
      return driver;
    },
  });

  r.add({
    method: 'post',
    path: '/api/driver',
    tag: TAG,
    summary: 'Register a driver (gate staff register walk-ins)',
    access: ['admin', 'gate'],
    body: DriverCreate,
    response: { status: 201, schema: DriverOut },
    errors: [404, 409],
    handler: async ({ body, res }) => {
      const driver = await drivers.create(body);
      res.setHeader('ETag', etagOf(driver.version));
      res.setHeader('Location', `/api/driver/${driver.id}`);
      return driver;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/driver/{id}',
    tag: TAG,
    summary: 'Update a driver, reset its PIN (send If-Match with the ETag you read)',
    description: 'Blocking, a new PIN or a new driver code signs the driver out everywhere.',
    access: ['admin'],
    params: IdParams,
    body: DriverPatch,
    response: { schema: DriverOut },
    errors: [404, 409, 412],
    handler: async ({ params, body, ifMatch, res }) => {
      const driver = await drivers.update(params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(driver.version));
      return driver;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/driver/{id}',
    tag: TAG,
    summary: 'Block a driver (the record is kept) and sign it out everywhere',
    access: ['admin'],
    params: IdParams,
    query: DriverBlockQuery,
    response: { schema: DriverOut },
    errors: [404, 412],
    handler: async ({ params, query, ifMatch, res }) => {
      const driver = await drivers.block(params.id, query.reason, ifMatch);
      res.setHeader('ETag', etagOf(driver.version));
      return driver;
    },
  });
}
