import { Id, IsoDateTime, PageQuery } from '../../../http/common-schemas.js';
import { z } from '../../../http/zod.js';
import { ComputationFields, Money, OverageDayOut, Period } from '../summary/schema.js';
import { WAIT_REASONS } from './waiting.js';

export const InvoiceStatus = z.enum(['draft', 'issued', 'void']);

export const InvoiceKeyParams = z.object({ yardId: Id, carrierId: Id, period: Period });

const Force = z.boolean().optional().openapi({
  description:
    'At the cloud: invoice even though the yard’s site has not synced past the period’s end (otherwise 409 `site-not-synced`)',
});

export const InvoiceCreateIn = z
  .object({ yardId: Id, carrierId: Id, period: Period, force: Force })
  .strict()
  .openapi('InvoiceGenerate', {
    description: 'The yard, carrier and past period to invoice (a draft).',
    example: {
      yardId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
      carrierId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e60',
      period: '2026-09',
    },
  });

export const InvoiceReplaceIn = z.object({ force: Force }).strict().optional().openapi('InvoiceReplace', {
  description: 'Optional: force past a site that has not synced (at the cloud).',
  example: {},
});

export const InvoiceGenerateAllIn = z
  .object({
    force: z.boolean().optional().openapi({
      description:
        'At the cloud: also invoice the yards whose site has not synced past the period’s end (“generate anyway”), from the activity the cloud has now',
    }),
  })
  .strict()
  .optional()
  .openapi('InvoiceGenerateAll', { description: 'Optional: force past waiting sites.', example: {} });

export const InvoiceVoidIn = z
  .object({ reason: z.string().trim().min(1, 'a reason is required').max(500) })
  .strict()
  .openapi('InvoiceVoid', {
    description: 'Why the issued invoice is voided (kept with it).',
    example: { reason: 'Wrong booked spaces; re-invoiced' },
  });

export const AnnexVisitOut = z
  .object({
    trailerId: z.string(),
    trailerNumber: z.string().nullable(),
    inAt: IsoDateTime,
    outAt: IsoDateTime.nullable(),
    daysPresent: z.number().int(),
    inMovementId: z.string(),
    outMovementId: z.string().nullable(),
    attachmentIds: z.array(z.string()),
  })
  .openapi('InvoiceAnnexVisit');

const Party = {
  name: z.string().nullable(),
  address: z.string().nullable(),
  taxId: z.string().nullable(),
};

const Lifecycle = {
  id: Id,
  number: z.string().openapi({
    example: 'DAL1-202609-PRFL',
    description:
      '{yardCode}-{YYYYMM}-{SCAC, or the last 8 letters and digits of the carrier id}, then -2, -3 after voids',
  }),
  exportNumber: z.string().max(21).openapi({
    example: 'DAL1-202609-PRFL',
    description:
      'The number accounting imports get (QuickBooks Online takes at most 21 characters): the full number where it fits, else a short form `{yard}-{YYMM}-{10 characters}` unique across the organisation, printed on the PDF beside the full one',
  }),
  sequence: z.number().int(),
  status: InvoiceStatus,
  issuedAt: IsoDateTime.nullable(),
  voidedAt: IsoDateTime.nullable(),
  voidReason: z.string().nullable(),
};

export const InvoiceOut = z
  .object({
    ...Lifecycle,
    ...ComputationFields,
    annex: z.array(AnnexVisitOut),
    issuer: z.object(Party),
    billTo: z.object({ ...Party, carrierId: Id, scac: z.string().nullable(), email: z.string().nullable() }),
    paymentTermsDays: z.number().int(),
    createdBy: z.string().nullable(),
  })
  .openapi('Invoice', {
    description:
      'The billing computation frozen: lines, per-day overage table, per-visit annex, the rates, time zone and bill-to used. draft -> issued -> void.',
  });

export const InvoiceSummaryOut = z
  .object({
    ...Lifecycle,
    yardId: Id,
    carrierId: Id,
    period: z.string(),
    currency: z.string(),
    subtotal: Money,
    tax: Money,
    total: Money,
    generatedAt: IsoDateTime,
  })
  .openapi('InvoiceSummary');

export const InvoiceListQuery = PageQuery.extend({
  yardId: Id.optional(),
  carrierId: Id.optional(),
  period: Period.optional(),
  status: InvoiceStatus.optional(),
});

export const OverageQuery = z.object({ yardId: Id, carrierId: Id, period: Period });

export const OverageOut = z
  .object({
    yardId: Id,
    carrierId: Id,
    period: z.string(),
    currency: z.string(),
    source: z.enum(['invoice', 'computed']).openapi({
      description:
        'invoice: the table frozen in the period’s invoice; computed: computed now (no invoice yet)',
    }),
    invoiceId: Id.nullable(),
    overageDailyRate: Money,
    days: z.array(OverageDayOut),
    total: Money,
  })
  .openapi('OverageInfo');

export const GenerateAllOut = z
  .object({
    created: z.array(InvoiceSummaryOut),
    skipped: z.array(
      z.object({
        yardId: Id,
        carrierId: Id,
        period: z.string(),
        reason: z.enum(['exists', 'no-charges']),
      }),
    ),
    waiting: z.array(
      z
        .object({
          yardId: Id,
          yardCode: z.string(),
          siteId: z.string(),
          period: z.string(),
          reason: z.enum(WAIT_REASONS),
          message: z.string().openapi({ description: 'Why, in words for the billing clerk' }),
        })
        .openapi('InvoiceWaitingYard', {
          description:
            'A yard whose site has not synced past the period’s end: not invoiced yet. Generate all again with `force: true` to invoice it from what the cloud has now.',
        }),
    ),
  })
  .openapi('InvoiceGenerateAllResult');

export type InvoiceOutT = z.infer<typeof InvoiceOut>;
export type InvoiceSummaryOutT = z.infer<typeof InvoiceSummaryOut>;
