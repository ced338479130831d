import { describe, expect, it } from 'vitest';
import {
  BILLED_TASK_TYPES,
  BillingOverflowError,
  inWindow,
  multiply,
  resolveRates,
  sum,
  taxOf,
} from '../../../shared/modules/billing/compute/index.js';

const YARD = {
  bookedSpaces: 5,
  spaceMonthlyRate: 1000,
  overageDailyRate: 300,
  moveFee: 50,
  gateFee: 20,
  lateFee: 2500,
  noShowFee: 7500,
  minimumMonthly: 10000,
};

describe('resolveRates: carrier config, else the yard, else 0', () => {
  it('no carrier config: the yard tariff per use, but no booked spaces and no minimum', () => {
    // The yard's bookedSpaces (5) and minimumMonthly (10000) apply only with a carrier config.
    expect(resolveRates(YARD, null)).toEqual({
      bookedSpaces: 0,
      spaceMonthlyRate: 1000,
      overageDailyRate: 300,
      moveFee: 50,
      gateFee: 20,
      lateFee: 2500,
      noShowFee: 7500,
      minimumMonthly: 0,
    });
  });

  it('a carrier config of nulls inherits everything, bookedSpaces and minimum included', () => {
    const nulls = {
      bookedSpaces: null,
      spaceMonthlyRate: null,
      overageDailyRate: null,
      moveFee: null,
      gateFee: null,
      lateFee: null,
      noShowFee: null,
      minimumMonthly: null,
    };
    expect(resolveRates(YARD, nulls)).toEqual(YARD);
  });

  it('0 overrides, null inherits', () => {
    // moveFee 0 is a free move (not the yard's 50); minimumMonthly null is the yard's 10000.
    // lateFee 0 waives the yard's late fee for this carrier; noShowFee null is the yard's 7500.
    expect(
      resolveRates(YARD, {
        bookedSpaces: 2,
        moveFee: 0,
        minimumMonthly: null,
        gateFee: 35,
        lateFee: 0,
        noShowFee: null,
      }),
    ).toEqual({
      bookedSpaces: 2,
      spaceMonthlyRate: 1000,
      overageDailyRate: 300,
      moveFee: 0,
      gateFee: 35,
      lateFee: 0,
      noShowFee: 7500,
      minimumMonthly: 10000,
    });
  });

  it('unset at both levels is 0', () => {
    expect(resolveRates(null, { gateFee: 7 })).toEqual({
      bookedSpaces: 0,
      spaceMonthlyRate: 0,
      overageDailyRate: 0,
      moveFee: 0,
      gateFee: 7,
      lateFee: 0,
      noShowFee: 0,
      minimumMonthly: 0,
    });
    expect(resolveRates({ moveFee: null }, null)).toEqual({
      bookedSpaces: 0,
      spaceMonthlyRate: 0,
      overageDailyRate: 0,
      moveFee: 0,
      gateFee: 0,
      lateFee: 0,
      noShowFee: 0,
      minimumMonthly: 0,
    });
  });

  it('refuses a negative or fractional rate', () => {
    expect(() => resolveRates({ ...YARD, gateFee: -1 }, null)).toThrow(/gateFee/);
    expect(() => resolveRates(YARD, { moveFee: 1.5 })).toThrow(/moveFee/);
    expect(() => resolveRates(YARD, { noShowFee: -5 })).toThrow(/noShowFee/);
  });
});

describe('tax: round half up on the absolute value, sign of the subtotal, exact', () => {
  it('half up on the magnitude', () => {
    // 1005 x 1000 / 10000 = 100.5 -> 101; 1004 -> 100.4 -> 100; 1015 -> 101.5 -> 102 (not to even).
    expect(taxOf(1005, 1000)).toBe(101);
    expect(taxOf(1004, 1000)).toBe(100);
    expect(taxOf(1015, 1000)).toBe(102);
    // A credit mirrors the charge: -1005 -> -(100.5 -> 101) = -101 (not -100, as rounding toward +inf would give).
    expect(taxOf(-1005, 1000)).toBe(-101);
    expect(taxOf(-1004, 1000)).toBe(-100);
    expect(taxOf(0, 2000)).toBe(0);
    // 1 minor unit at 0.01%: 0.0001 -> 0; 5000 units at 1 bp: 0.5 -> 1.
    expect(taxOf(1, 1)).toBe(0);
    expect(taxOf(5000, 1)).toBe(1);
  });

  it('exact where |subtotal| x bp exceeds 2^53 (a float would round the wrong way)', () => {
    // S = 3 000 000 000 007 857, bp = 7. S x 7 = 21 000 000 000 054 999 (> 2^54 = 18 014 398 509 481 984).
    // Chosen so that S x 7 = ...4999 mod 10000: 7^-1 mod 10000 = 7143 (7 x 7143 = 50001), and
    // 4999 x 7143 mod 10000 = 7857. Exactly: 2 100 000 000 005.4999 -> 2 100 000 000 005.
    // In doubles above 2^54 the spacing is 4, so S x 7 becomes ...55000 and the naive formula
    // gives 2 100 000 000 005.5 -> 2 100 000 000 006: one unit off.
    const S = 3_000_000_000_007_857;
    expect(Math.round((S * 7) / 10000)).toBe(2_100_000_000_006); // the trap is real
    expect(taxOf(S, 7)).toBe(2_100_000_000_005);
    expect(taxOf(-S, 7)).toBe(-2_100_000_000_005);
  });

  it('refuses an amount beyond 2^53 rather than rounding it', () => {
    // 2^52 x 4 = 2^54: not a safe integer.
    expect(() => multiply(2 ** 52, 4, 'SPACE')).toThrow(BillingOverflowError);
    expect(() => multiply(2 ** 52, 4, 'SPACE')).toThrow(/SPACE/);
    expect(multiply(2 ** 26, 2 ** 26, 'x')).toBe(2 ** 52);
    expect(() => sum([Number.MAX_SAFE_INTEGER, 1], 'subtotal')).toThrow(/subtotal/);
    expect(sum([Number.MAX_SAFE_INTEGER, -1, 1], 'subtotal')).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => taxOf(0.5, 1000)).toThrow(BillingOverflowError);
  });
});

describe('what is counted in the window', () => {
  it('inWindow is half-open: the window end belongs to the next period', () => {
    const w = { start: 1000, end: 2000 };
    expect([999, 1000, 1999, 2000].map((t) => inWindow(t, w))).toEqual([false, true, true, false]);
  });

  it('billed moves are the task types that relocate a trailer', () => {
    expect([...BILLED_TASK_TYPES].sort()).toEqual(['move', 'pull_to_door', 'return_to_spot', 'shunt']);
  });
});
