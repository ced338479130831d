import type { RequestHandler } from 'express';
import { CARRIER } from '../../auth/principal.js';
import { page } from '../../http/common-schemas.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { BillingPart } from '../billing/index.js';
import { CarrierInvoiceListQuery, CarrierInvoiceOut, CarrierPortalContext } from './schema.js';
import type { CarrierPortalService } from './service.js';

const TAG = 'Carrier portal';
const AT_LINKED_EDGE = 'carrier users sign in at the cloud (nothing is read)';

/**
 * The carrier portal's own reads (docs/api.md "Carrier users, email, webhooks"); its bookings are
 * the appointment routes, which admit carrier users. The invoices are billing's: served through
 * billing's part, so a linked edge refuses them as it refuses every billing route.
 */
export function registerCarrierPortalRoutes(
  r: RouteRegistrar,
  s: { carrierPortal: CarrierPortalService; billing: BillingPart },
): void {
  // Refused right after the role check, before the input is read (as billing's and email's routes).
  const here: RequestHandler = (_req, _res, next) => {
    s.carrierPortal.assertHere();
    next();
  };
  r.add({
    method: 'get',
    path: '/api/carrier-portal/context',
    tag: TAG,
    summary: 'Who is signed in, its carrier, and the yards it can book (by name, with their time zones)',
    description:
      'The yards are those of the carrier user’s scope that take appointments and have at least one carrier-visible load type.',
    access: CARRIER,
    middleware: [here],
    response: { schema: CarrierPortalContext },
    cloudOwnedAtLinkedEdge: AT_LINKED_EDGE,
    handler: ({ principal }) => s.carrierPortal.context(principal),
  });

  s.billing.routes(r).add({
    method: 'get',
    path: '/api/carrier-portal/invoice',
    tag: TAG,
    summary: 'The carrier’s issued and void invoices, newest first (`yardId?`, `period?`); never a draft',
    description:
      'The PDF of each is GET /api/billing/invoice/{id}/pdf, which admits a carrier user for its own issued or void invoice. A yard outside the user’s scope gives an empty page.',
    access: CARRIER,
    query: CarrierInvoiceListQuery,
    response: { schema: page(CarrierInvoiceOut) },
    handler: ({ principal, query }, { exports }) => exports.ofCarrier(principal, query),
  });
}
