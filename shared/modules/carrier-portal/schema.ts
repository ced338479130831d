/**
 * What the carrier portal reads besides appointments (docs/api.md "Carrier users, email,
 * webhooks"): who is signed in and where it may book, and its carrier's invoices.
 */
import { Id, IsoDate, IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { Money, Period } from '../billing/summary/schema.js';

export const CarrierPortalContext = z
  .object({
    carrier: z.object({ id: Id, name: z.string(), scac: z.string().nullable() }),
    user: z.object({ id: Id, username: z.string(), displayName: z.string().nullable() }),
    /** Yards in the user's scope that take appointments and have a carrier-visible load type. */
    yards: z.array(z.object({ id: Id, name: z.string(), timeZone: z.string() })),
  })
  .openapi('CarrierPortalContext', {
    description:
      'The signed-in carrier user, its carrier, and the yards it can book (scheduling on, at least one carrier-visible load type, in its scope), by name',
  });

export const CarrierInvoiceOut = z
  .object({
    id: Id,
    number: z.string(),
    yardId: Id,
    yardName: z.string(),
    period: z.string().openapi({ example: '2026-09' }),
    currency: z.string(),
    subtotal: Money,
    tax: Money,
    total: Money,
    status: z.enum(['issued', 'void']),
    issuedAt: IsoDateTime,
    dueAt: IsoDate.nullable().openapi({
      description: 'the yard-local due date (issue date + payment terms); null for a credit note',
    }),
    voidedAt: IsoDateTime.nullable(),
  })
  .openapi('CarrierInvoice', {
    description: 'An issued or void invoice of the carrier, as its carrier users see it (never a draft)',
  });

export const CarrierInvoiceListQuery = PageQuery.extend({
  yardId: Id.optional(),
  period: Period.optional(),
});

export type CarrierPortalContextT = z.infer<typeof CarrierPortalContext>;
export type CarrierInvoiceOutT = z.infer<typeof CarrierInvoiceOut>;
export type CarrierInvoiceListQueryT = z.infer<typeof CarrierInvoiceListQuery>;
