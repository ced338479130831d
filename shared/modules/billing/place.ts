import type { RequestHandler } from 'express';
import { ConflictError } from '../../http/errors.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { ChangeCapture } from '../../sync/change-capture.js';

/**
 * Billing lives where every site's movements meet and the master data is written: the cloud, or a
 * standalone edge (docs/domain.md "Billing"). A linked edge writes no yard (yards are the cloud's),
 * and that is how it is recognised; it answers billing routes with 409 `cloud-owned`.
 */
export function assertBillingHere(changes: Pick<ChangeCapture, 'mayWrite'>): void {
  if (changes.mayWrite('yard')) return;
  throw new ConflictError(
    'cloud-owned',
    'Billing is done at the cloud for a site linked to it. Use the cloud’s billing routes or its dashboard.',
  );
}

/** What registering a billing route needs of the registrar. */
export type BillingRoutes = Pick<RouteRegistrar, 'add'>;

/**
 * The registrar every billing route goes through: at a linked edge the route answers 409
 * `cloud-owned` right after the role check, before its input is read (so every billing route,
 * reads included, refuses alike), and its OpenAPI 409 says so.
 */
export function billingRoutes(r: BillingRoutes, changes: Pick<ChangeCapture, 'mayWrite'>): BillingRoutes {
  const here: RequestHandler = (_req, _res, next) => {
    assertBillingHere(changes);
    next();
  };
  return {
    add: (spec) =>
      r.add({
        ...spec,
        middleware: [here, ...(spec.middleware ?? [])],
        cloudOwnedAtLinkedEdge: 'billing is done at the cloud (nothing is changed)',
      }),
  };
}
