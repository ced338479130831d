/**
 * The pure billing computation (docs/domain.md "Billing"): what the summary and invoice services
 * call. No I/O, no clock (`now` comes in). Where the domain text is silent, the choices are:
 * - rates.ts: without a carrier config a carrier pays the yard's per-use rates but has no booked
 *   spaces and no minimum; in a carrier config null inherits the yard's value and 0 is an explicit 0.
 * - period.ts: `YYYY-MM` with a year from 2000; a day has begun when its start is before `now`;
 *   a period is past once its end is not after `now`.
 * - peaks.ts: grace applies to the whole stay (an open one: so far), and a stay of exactly the
 *   grace is present; a trailer's overlapping visits count it once (distinct trailers).
 * - rules.ts: a check-in is billed even when its visit is shorter than the grace.
 * - compute.ts: SPACE is the whole period's even while it is ongoing (it is reserved, not used);
 *   the annex lists the visits present in P or checked in within W.
 */
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
export { BILLED_TASK_TYPES, inWindow } from './rules.js';
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
