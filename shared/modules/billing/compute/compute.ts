import { assertAmount, multiply, sum, taxOf } from './money.js';
import { daysTouched, distinctSpans, presence, sweepPeaks } from './peaks.js';
import { parsePeriod, periodDays, periodProblem, periodWindow, type Span } from './period.js';
import { RATE_NAMES } from './rates.js';
import type {
  AnnexVisit,
  BillingInput,
  BillingLines,
  BillingResult,
  Line,
  OverageDay,
  Visit,
} from './types.js';

/**
 * The billing of one carrier in one yard for one period (docs/domain.md "Billing"): pure, exact,
 * no I/O and no clock (`now` comes in). Bad input (a malformed period, an unknown zone, a negative
 * or fractional count or rate, an inverted visit) is a programming error here and throws: the
 * services validate what users send before calling this.
 */
export function computeBilling(input: BillingInput): BillingResult {
  checkInput(input);
  const { timeZone: zone, now, rates } = input;
  const period = parsePeriod(input.period);
  if (!period) throw new RangeError(periodProblem(input.period) ?? 'bad period');
  const window = periodWindow(period, zone, now);
  const days = periodDays(period, zone, now);
  const graceMs = input.graceMinutes * 60_000;

  const presences: Array<Span | null> = input.visits.map((v) => presence(v, window, now, graceMs));
  const trailerIds: string[] = [];
  const spans: Span[] = [];
  presences.forEach((span, k) => {
    if (!span) return;
    trailerIds.push((input.visits[k] as Visit).trailerId);
    spans.push(span);
  });
  const peaks = sweepPeaks(distinctSpans(trailerIds, spans), days);

  const table: OverageDay[] = days.map((d, k) => {
    const peak = peaks[k] as number;
    const overage = Math.max(0, peak - rates.bookedSpaces);
    return {
      date: d.date,
      peak,
      bookedSpaces: rates.bookedSpaces,
      overage,
      amount: multiply(overage, rates.overageDailyRate, `overage on ${d.date}`),
    };
  });

  const space = line(rates.bookedSpaces, rates.spaceMonthlyRate, 'SPACE');
  const overageUnits = table.reduce((n, d) => n + d.overage, 0);
  const overage: Line = {
    quantity: overageUnits,
    unitAmount: rates.overageDailyRate,
    amount: sum(
      table.map((d) => d.amount),
      'OVERAGE',
    ),
  };
  const moves = line(input.moves, rates.moveFee, 'MOVES');
  const gate = line(input.checkIns, rates.gateFee, 'GATE');
  const late = line(input.lateArrivals ?? 0, rates.lateFee, 'LATE');
  const noShow = line(input.noShows ?? 0, rates.noShowFee, 'NO_SHOW');
  // The minimum tops up the yard's use only: the appointment fees do not count towards it.
  const charges = sum([space.amount, overage.amount, moves.amount, gate.amount], 'charges');
  const topUp = Math.max(0, rates.minimumMonthly - charges);
  const minimum: Line = { quantity: 1, unitAmount: topUp, amount: topUp };
  const adjusted = sum(input.adjustments, 'ADJUSTMENTS');
  const adjustments: Line = {
    quantity: input.adjustments.length,
    unitAmount: adjusted,
    amount: adjusted,
  };
  const lines: BillingLines = { space, overage, moves, gate, late, noShow, minimum, adjustments };

  const subtotal = sum([charges, late.amount, noShow.amount, minimum.amount, adjustments.amount], 'subtotal');
  const tax = taxOf(subtotal, input.taxRateBp);
  const total = sum([subtotal, tax], 'total');

  return {
    period: period.text,
    timeZone: zone,
    rates: { ...rates },
    graceMinutes: input.graceMinutes,
    taxRateBp: input.taxRateBp,
    window,
    lines,
    days: table,
    annex: annexOf(input.visits, presences, days, window),
    subtotal,
    tax,
    total,
  };
}

function line(quantity: number, unitAmount: number, what: string): Line {
  return { quantity, unitAmount, amount: multiply(quantity, unitAmount, what) };
}

function annexOf(
  visits: readonly Visit[],
  presences: ReadonlyArray<Span | null>,
  days: readonly Span[],
  window: Span,
): AnnexVisit[] {
  const annex: AnnexVisit[] = [];
  visits.forEach((v, k) => {
    const p = presences[k];
    const daysPresent = p ? daysTouched(p, days) : 0;
    const checkedInHere = v.inAt >= window.start && v.inAt < window.end;
    if (daysPresent === 0 && !checkedInHere) return;
    annex.push({
      trailerId: v.trailerId,
      ...(v.trailerNumber !== undefined ? { trailerNumber: v.trailerNumber } : {}),
      inAt: v.inAt,
      outAt: v.outAt,
      daysPresent,
      inMovementId: v.inMovementId,
      outMovementId: v.outMovementId,
      attachmentIds: v.attachmentIds ?? [],
    });
  });
  // Visits read in arrival order (the usual query) are already in order: skip the sort then.
  for (let k = 1; k < annex.length; k++) {
    if (byArrival(annex[k - 1] as AnnexVisit, annex[k] as AnnexVisit) > 0) return annex.sort(byArrival);
  }
  return annex;
}

function byArrival(a: AnnexVisit, b: AnnexVisit): number {
  if (a.inAt !== b.inAt) return a.inAt - b.inAt;
  return a.inMovementId < b.inMovementId ? -1 : a.inMovementId > b.inMovementId ? 1 : 0;
}

function count(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a non-negative integer, got ${value}`);
  }
}

function checkInput(input: BillingInput): void {
  for (const name of RATE_NAMES) count(input.rates[name], `rate ${name}`);
  count(input.graceMinutes, 'graceMinutes');
  count(input.taxRateBp, 'taxRateBp');
  count(input.moves, 'moves');
  count(input.checkIns, 'checkIns');
  count(input.lateArrivals ?? 0, 'lateArrivals');
  count(input.noShows ?? 0, 'noShows');
  if (!Number.isFinite(input.now)) throw new RangeError(`now must be epoch ms, got ${input.now}`);
  for (const a of input.adjustments) assertAmount(a, 'adjustment');
  for (const v of input.visits) {
    if (!Number.isFinite(v.inAt) || (v.outAt !== null && !Number.isFinite(v.outAt))) {
      throw new RangeError(`visit ${v.inMovementId} has a time that is not epoch ms`);
    }
    // The gate refuses a check-out before its check-in, so this is corrupt data: refuse loudly.
    if (v.outAt !== null && v.outAt < v.inAt) {
      throw new RangeError(`visit ${v.inMovementId} ends before it begins`);
    }
  }
}
