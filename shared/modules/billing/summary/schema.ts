import { Id, IsoDateTime, PageQuery, page, queryList } from '../../../http/common-schemas.js';
import { z } from '../../../http/zod.js';
import { periodProblem } from '../compute/index.js';

/** `YYYY-MM`, a calendar month in the yard's time zone. */
export const Period = z
  .string()
  .superRefine((value, ctx) => {
    const problem = periodProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .openapi({ description: 'A calendar month in the yard’s time zone, YYYY-MM', example: '2026-10' });

export const Money = z.number().int().openapi({ description: 'Integer minor units of `currency`' });

export const LineOut = z.object({ quantity: z.number().int(), unitAmount: Money, amount: Money });

export const LinesOut = z
  .object({
    space: LineOut.openapi({ description: 'bookedSpaces x spaceMonthlyRate' }),
    overage: LineOut.openapi({ description: 'unit-days above bookedSpaces x overageDailyRate' }),
    moves: LineOut.openapi({ description: 'completed relocating tasks x moveFee' }),
    gate: LineOut.openapi({ description: 'trailer check-ins x gateFee' }),
    late: LineOut.openapi({ description: 'appointments that arrived late x lateFee' }),
    noShow: LineOut.openapi({ description: 'appointments marked no-show x noShowFee' }),
    minimum: LineOut.openapi({
      description:
        'top-up to minimumMonthly (0 when the charges reach it; the appointment fees do not count)',
    }),
    adjustments: LineOut.openapi({ description: 'quantity: how many; amount: their signed sum' }),
  })
  .openapi('BillingLines');

export const OverageDayOut = z
  .object({
    date: z.string().openapi({ example: '2026-10-14' }),
    peak: z.number().int(),
    bookedSpaces: z.number().int(),
    overage: z.number().int(),
    amount: Money,
  })
  .openapi('OverageDay');

export const RatesOut = z
  .object({
    bookedSpaces: z.number().int(),
    spaceMonthlyRate: Money,
    overageDailyRate: Money,
    moveFee: Money,
    gateFee: Money,
    lateFee: Money,
    noShowFee: Money,
    minimumMonthly: Money,
  })
  .openapi('BillingRates');

export const CountsOut = z
  .object({
    visits: z.number().int(),
    moves: z.number().int(),
    checkIns: z.number().int(),
    lateArrivals: z.number().int(),
    noShows: z.number().int(),
    adjustments: z.number().int(),
  })
  .openapi('BillingCounts', { description: 'How many of each input the computation used' });

export const WindowOut = z.object({ start: IsoDateTime, end: IsoDateTime });

/** What a summary and an invoice share: the computation and what it was made with. */
export const ComputationFields = {
  yardId: Id,
  carrierId: Id,
  period: z.string(),
  currency: z.string(),
  timeZone: z.string(),
  window: WindowOut,
  rates: RatesOut,
  graceMinutes: z.number().int(),
  taxRateBp: z.number().int(),
  counts: CountsOut,
  lines: LinesOut,
  days: z.array(OverageDayOut),
  subtotal: Money,
  tax: Money,
  total: Money.openapi({ description: 'subtotal + tax; negative: a credit' }),
  generatedAt: IsoDateTime,
};

export const SummaryOut = z.object({ id: Id, ...ComputationFields }).openapi('BillingSummary', {
  description: 'The billing computation for a yard, carrier and period, stored; regenerating replaces it.',
});

export const SummaryGenerateIn = z
  .object({
    yardId: Id,
    carrierId: Id.optional().openapi({
      description: 'Only this carrier; every carrier of the yard when left out',
    }),
  })
  .strict()
  .openapi('BillingSummaryGenerate', {
    description: 'Which yard (and carrier) to summarise for its ongoing period.',
    example: { yardId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f' },
  });

export const SummaryGeneratePastIn = z
  .object({
    period: Period,
    yardId: Id.optional().openapi({
      description: 'Only this yard; every yard with a billing config when left out',
    }),
    carrierId: Id.optional().openapi({ description: 'Only this carrier (needs yardId)' }),
  })
  .strict()
  .openapi('BillingSummaryGeneratePast', {
    description: 'Which past period (and yard, carrier) to summarise.',
    example: { period: '2026-09' },
  });

export const SummaryListOut = z.object({ items: z.array(SummaryOut) }).openapi('BillingSummaryList');

export const SummaryAggregateQuery = PageQuery.extend({
  period: Period,
  yardIds: queryList(Id),
  carrierIds: queryList(Id),
});

export const CurrencyTotal = z
  .object({ currency: z.string(), subtotal: Money, tax: Money, total: Money, count: z.number().int() })
  .openapi('BillingCurrencyTotal');

export const SummaryAggregateOut = z
  .object({
    period: z.string(),
    items: z.array(SummaryOut),
    nextCursor: z.string().nullable(),
    totals: z
      .array(CurrencyTotal)
      .openapi({ description: 'Sums per currency of every summary that matches (all pages)' }),
  })
  .openapi('BillingSummaryAggregate');

export const ToBeCompletedQuery = PageQuery.extend({
  yardId: Id.optional(),
  months: z.coerce.number({ error: 'must be a number' }).int().min(1).max(24).default(3).openapi({
    type: 'integer',
    minimum: 1,
    maximum: 24,
    default: 3,
    description: 'How many past periods to look at',
  }),
});

export const ToBeCompletedItem = z
  .object({
    yardId: Id,
    carrierId: Id,
    period: z.string(),
    currency: z.string(),
    total: Money.openapi({ description: 'What an invoice generated now would total' }),
  })
  .openapi('BillingToBeCompleted');

export const ToBeCompletedOut = page(ToBeCompletedItem).openapi('BillingToBeCompletedList');

export type SummaryOutT = z.infer<typeof SummaryOut>;
