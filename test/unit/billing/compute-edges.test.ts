import { describe, expect, it } from 'vitest';
import {
  assertAmount,
  type BillingInput,
  BillingOverflowError,
  computeBilling,
  inWindow,
  multiply,
  type Rates,
  sum,
  taxOf,
  type Visit,
} from '../../../shared/modules/billing/compute/index.js';

/**
 * The edges of the billing computation's arithmetic and input checks (docs/domain.md "Billing"):
 * the limits of exact amounts, the tax's rounding and sign, the lines' quantities, and the refusal
 * of input that is not epoch ms or counts.
 */
const MAX = Number.MAX_SAFE_INTEGER;
const ZERO: Rates = {
  bookedSpaces: 0,
  spaceMonthlyRate: 0,
  overageDailyRate: 0,
  moveFee: 0,
  gateFee: 0,
  lateFee: 0,
  noShowFee: 0,
  minimumMonthly: 0,
};
const at = (iso: string) => Date.parse(iso);
const v = (trailerId: string, inIso: string, outIso: string | null, id: string): Visit => ({
  trailerId,
  inAt: at(inIso),
  outAt: outIso === null ? null : at(outIso),
  inMovementId: id,
  outMovementId: outIso === null ? null : `out-${id}`,
});
function bill(over: Partial<Omit<BillingInput, 'rates'>> & { rates?: Partial<Rates> } = {}) {
  return computeBilling({
    period: '2026-05',
    timeZone: 'Etc/UTC',
    now: at('2027-01-01T00:00:00Z'),
    graceMinutes: 0,
    taxRateBp: 0,
    visits: [],
    moves: 0,
    checkIns: 0,
    adjustments: [],
    ...over,
    rates: { ...ZERO, ...over.rates },
  });
}

describe('exact amounts', () => {
  it('take every safe integer and refuse the first beyond, either sign, as number or BigInt', () => {
    expect(assertAmount(MAX, 'x')).toBe(MAX);
    expect(assertAmount(-MAX, 'x')).toBe(-MAX);
    expect(assertAmount(BigInt(MAX), 'x')).toBe(MAX);
    expect(assertAmount(-BigInt(MAX), 'x')).toBe(-MAX);
    expect(() => assertAmount(BigInt(MAX) + 1n, 'SPACE')).toThrow(
      new BillingOverflowError('SPACE (9007199254740992) exceeds the largest exact amount (2^53 - 1)'),
    );
    expect(() => assertAmount(-BigInt(MAX) - 1n, 'x')).toThrow(BillingOverflowError);
    expect(() => assertAmount(MAX + 1, 'GATE')).toThrow(
      new BillingOverflowError('GATE (9007199254740992) is not an exact integer amount (|x| < 2^53)'),
    );
    expect(() => assertAmount(Number.NaN, 'x')).toThrow(BillingOverflowError);
    expect(() => assertAmount(1.5, 'x')).toThrow(BillingOverflowError);
  });

  it('multiply and sum exactly, negatives included', () => {
    expect(multiply(3, 4, 'x')).toBe(12);
    expect(multiply(-3, 4, 'x')).toBe(-12);
    expect(multiply(94_906_265, 94_906_265, 'x')).toBe(9_007_199_136_250_225);
    expect(() => multiply(1.5, 2, 'moves')).toThrow(/moves/);
    expect(sum([], 'x')).toBe(0);
    expect(sum([5, -7, 3], 'x')).toBe(1);
    expect(sum([MAX, -MAX, MAX], 'x')).toBe(MAX);
    expect(() => sum([MAX, 1], 'subtotal')).toThrow(
      new BillingOverflowError('subtotal (9007199254740992) exceeds the largest exact amount (2^53 - 1)'),
    );
  });

  it('round the tax half up on the magnitude and give it the subtotal’s sign', () => {
    expect(taxOf(5, 1000)).toBe(1); // 0.5 -> 1
    expect(taxOf(4, 1000)).toBe(0); // 0.4 -> 0
    expect(taxOf(14, 1000)).toBe(1); // 1.4 -> 1
    expect(taxOf(15, 1000)).toBe(2); // 1.5 -> 2
    expect(taxOf(-5, 1000)).toBe(-1);
    expect(taxOf(-4, 1000)).toBe(0);
    expect(taxOf(0, 10_000)).toBe(0);
    expect(taxOf(1234, 0)).toBe(0);
    expect(taxOf(1234, 10_000)).toBe(1234);
    expect(taxOf(-MAX, 10_000)).toBe(-MAX);
    expect(() => taxOf(1, -1)).toThrow(new RangeError('taxRateBp must be a non-negative integer, got -1'));
    expect(() => taxOf(1, 2.5)).toThrow(RangeError);
    expect(() => taxOf(MAX + 1, 1)).toThrow(/subtotal/);
  });

  it('a window holds its start and not its end', () => {
    const w = { start: 10, end: 20 };
    expect([9, 10, 19, 20].map((t) => inWindow(t, w))).toEqual([false, true, true, false]);
  });
});

describe('the lines', () => {
  it('name their quantities and unit amounts', () => {
    const r = bill({
      rates: {
        bookedSpaces: 2,
        spaceMonthlyRate: 100,
        moveFee: 7,
        gateFee: 3,
        lateFee: 11,
        noShowFee: 13,
        minimumMonthly: 1_000,
        overageDailyRate: 5,
      },
      moves: 4,
      checkIns: 6,
      lateArrivals: 2,
      noShows: 1,
      adjustments: [50, -20, 1],
      visits: [
        v('A', '2026-05-01T00:00:00Z', '2026-05-03T00:00:00Z', 'a'),
        v('B', '2026-05-01T00:00:00Z', '2026-05-02T00:00:00Z', 'b'),
        v('C', '2026-05-01T00:00:00Z', '2026-05-01T12:00:00Z', 'c'),
      ],
    });
    expect(r.lines).toEqual({
      space: { quantity: 2, unitAmount: 100, amount: 200 },
      // 1 May: peak 3, 1 over the 2 booked; 2 May: peak 1 (B left at its start).
      overage: { quantity: 1, unitAmount: 5, amount: 5 },
      moves: { quantity: 4, unitAmount: 7, amount: 28 },
      gate: { quantity: 6, unitAmount: 3, amount: 18 },
      late: { quantity: 2, unitAmount: 11, amount: 22 },
      noShow: { quantity: 1, unitAmount: 13, amount: 13 },
      // 1000 - (200 + 5 + 28 + 18): the appointment fees (35) do not count towards the minimum.
      minimum: { quantity: 1, unitAmount: 749, amount: 749 },
      adjustments: { quantity: 3, unitAmount: 31, amount: 31 },
    });
    // 200 + 5 + 28 + 18 + 22 + 13 + 749 + 31
    expect([r.subtotal, r.tax, r.total]).toEqual([1_066, 0, 1_066]);
    expect(r.days[0]).toEqual({ date: '2026-05-01', peak: 3, bookedSpaces: 2, overage: 1, amount: 5 });
    expect(r.days[1]).toMatchObject({ date: '2026-05-02', peak: 1, overage: 0, amount: 0 });
    expect(r).toMatchObject({ period: '2026-05', timeZone: 'Etc/UTC', graceMinutes: 0, taxRateBp: 0 });
    expect(r.rates).toEqual({
      ...ZERO,
      bookedSpaces: 2,
      spaceMonthlyRate: 100,
      moveFee: 7,
      gateFee: 3,
      lateFee: 11,
      noShowFee: 13,
      minimumMonthly: 1_000,
      overageDailyRate: 5,
    });
  });

  it('no minimum top-up when the charges reach it, and none below zero', () => {
    expect(bill({ rates: { minimumMonthly: 100, gateFee: 100 }, checkIns: 1 }).lines.minimum.amount).toBe(0);
    expect(bill({ rates: { minimumMonthly: 100, gateFee: 100 }, checkIns: 2 }).lines.minimum.amount).toBe(0);
    expect(bill({ rates: { minimumMonthly: 100, gateFee: 100 } }).lines.minimum.amount).toBe(100);
  });

  it('lists the annex in arrival order, then by check-in movement, whatever order the visits came in', () => {
    const r = bill({
      visits: [
        v('B', '2026-05-02T00:00:00Z', null, 'm2'),
        v('A', '2026-05-01T00:00:00Z', null, 'm9'),
        v('C', '2026-05-02T00:00:00Z', null, 'm1'),
        v('D', '2026-05-01T00:00:00Z', null, 'm3'),
      ],
    });
    expect(r.annex.map((a) => a.trailerId)).toEqual(['D', 'A', 'C', 'B']);
    expect(r.annex[0]).toEqual({
      trailerId: 'D',
      inAt: at('2026-05-01T00:00:00Z'),
      outAt: null,
      daysPresent: 31,
      inMovementId: 'm3',
      outMovementId: null,
      attachmentIds: [],
    });
  });
});

describe('input the computation refuses', () => {
  it.each([
    [{ now: Number.NaN }, /now must be epoch ms/],
    [{ graceMinutes: -1 }, /graceMinutes must be a non-negative integer, got -1/],
    [{ checkIns: -1 }, /checkIns/],
    [{ moves: Number.NaN }, /moves/],
    [{ rates: { bookedSpaces: -1 } }, /rate bookedSpaces/],
    [{ rates: { minimumMonthly: 0.5 } }, /rate minimumMonthly/],
    [{ adjustments: [0.5] }, /adjustment/],
    [
      { visits: [{ ...v('X', '2026-05-01T00:00:00Z', null, 'x'), inAt: Number.NaN }] },
      /visit x has a time that is not epoch ms/,
    ],
    [
      { visits: [{ ...v('X', '2026-05-01T00:00:00Z', null, 'x'), outAt: Number.POSITIVE_INFINITY }] },
      /not epoch ms/,
    ],
    [
      { visits: [v('X', '2026-05-02T00:00:00Z', '2026-05-01T00:00:00Z', 'x')] },
      /visit x ends before it begins/,
    ],
  ] as const)('%o', (over, message) => {
    expect(() => bill(over as never)).toThrow(message);
  });

  it('takes a visit that ends as it begins', () => {
    expect(
      bill({ visits: [v('X', '2026-05-02T00:00:00Z', '2026-05-02T00:00:00Z', 'x')] }).annex,
    ).toHaveLength(1);
  });
});
