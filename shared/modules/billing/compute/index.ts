/** The pure billing computation (docs/domain.md "Billing"): what the summary and invoice services call. */
export { computeBilling } from './compute.js';
export { assertAmount, BillingOverflowError, multiply, sum, taxOf } from './money.js';
export {
  dailyPeaks,
  daysTouched,
  distinctPresence,
  distinctSpans,
  presence,
  type SpanArrays,
  type Stay,
  sweepPeaks,
} from './peaks.js';
export {
  currentPeriod,
  isFuture,
  isPast,
  type Period,
  type PeriodDay,
  parsePeriod,
  periodBounds,
  periodDays,
  periodProblem,
  periodWindow,
  previousPeriod,
  type Span,
} from './period.js';
export { RATE_NAMES, type RateLevel, type RateName, resolveRates } from './rates.js';
export type {
  AnnexVisit,
  BillingInput,
  BillingLines,
  BillingResult,
  Line,
  OverageDay,
  Rates,
  Visit,
} from './types.js';
