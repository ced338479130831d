import { Id, IsoDateTime, PageQuery } from '../../../http/common-schemas.js';
import { exportName } from '../../../http/export-text.js';
import { z } from '../../../http/zod.js';
import { ADJUSTMENT_MAX, ADJUSTMENTS_PER_PERIOD_MAX } from '../bounds.js';
import { Money, Period } from '../summary/schema.js';

const Amount = z
  .number({ error: 'must be a number' })
  .int('must be an integer of minor units (e.g. cents), not a decimal')
  .min(-ADJUSTMENT_MAX, `at least -${ADJUSTMENT_MAX.toLocaleString('en-US')} minor units`)
  .max(ADJUSTMENT_MAX, `at most ${ADJUSTMENT_MAX.toLocaleString('en-US')} minor units`)
  .refine((n) => n !== 0, 'must be a non-zero integer of minor units')
  .openapi({
    description: `Signed minor units of the yard’s currency: negative is a credit; at most ${ADJUSTMENT_MAX} either way, and ${ADJUSTMENTS_PER_PERIOD_MAX} adjustments per yard, carrier and period`,
    example: -2500,
  });

/** Written as the line's description in the accounting exports: the export-name rule applies. */
const Description = exportName(500);

export const AdjustmentOut = z
  .object({
    id: Id,
    yardId: Id,
    carrierId: Id,
    period: z.string(),
    amount: Money,
    description: z.string(),
    createdBy: z.string().nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .openapi('InvoiceAdjustment');

export const AdjustmentCreate = z
  .object({ yardId: Id, carrierId: Id, period: Period, amount: Amount, description: Description })
  .strict()
  .openapi('InvoiceAdjustmentCreate', {
    description:
      'A signed amount added to the period’s subtotal (after the minimum, before tax). 409 `period-invoiced` when the period has an issued invoice.',
    example: {
      yardId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
      carrierId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e60',
      period: '2026-09',
      amount: -2500,
      description: 'Goodwill credit: gate closed 2 hours on 14 Sep',
    },
  });

export const AdjustmentPatch = z
  .object({ amount: Amount.optional(), description: Description.optional() })
  .strict()
  .refine((p) => p.amount !== undefined || p.description !== undefined, 'give amount or description')
  .openapi('InvoiceAdjustmentPatch', {
    description: 'The amount or description to change (409 period-invoiced once the period is issued).',
    example: { amount: -3000 },
  });

export const AdjustmentListQuery = PageQuery.extend({
  yardId: Id.optional(),
  carrierId: Id.optional(),
  period: Period.optional(),
});

export type AdjustmentOutT = z.infer<typeof AdjustmentOut>;
