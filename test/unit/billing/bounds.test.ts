import { describe, expect, it } from 'vitest';
import {
  ACTIVITY,
  ADJUSTMENT_MAX,
  ADJUSTMENTS_PER_PERIOD_MAX,
  BOOKED_SPACES_MAX,
  MINIMUM_MONTHLY_MAX,
  RATE_MAX,
  TAX_RATE_BP_MAX,
  worstCaseTotal,
} from '../../../shared/modules/billing/bounds.js';
import { computeBilling, type Visit } from '../../../shared/modules/billing/compute/index.js';

/**
 * The bounds of billing's inputs (shared/modules/billing/bounds.ts) keep every amount a safe
 * integer: the proof written there, in exact integers, and the computation run at the worst case.
 */
describe('billing bounds', () => {
  it('are the ones the proof names', () => {
    expect({
      BOOKED_SPACES_MAX,
      RATE_MAX,
      MINIMUM_MONTHLY_MAX,
      ADJUSTMENT_MAX,
      ADJUSTMENTS_PER_PERIOD_MAX,
      TAX_RATE_BP_MAX,
      ACTIVITY,
    }).toEqual({
      BOOKED_SPACES_MAX: 100_000,
      RATE_MAX: 1_000_000_000,
      MINIMUM_MONTHLY_MAX: 1_000_000_000_000,
      ADJUSTMENT_MAX: 1_000_000_000_000,
      ADJUSTMENTS_PER_PERIOD_MAX: 100,
      TAX_RATE_BP_MAX: 10_000,
      ACTIVITY: { peakTrailers: 100_000, events: 500_000, days: 31, appointments: 50_000 },
    });
  });

  it('bound every total below 2^53 - 1: the proof in exact integers', () => {
    // charges 4.2e15 (SPACE 1e14 + OVERAGE 3.1e15 + MOVES 5e14 + GATE 5e14), LATE + NO_SHOW
    // 50,000 x 1e9 = 5e13, adjustments 1e14, subtotal 4.35e15, tax at 100 % as much again.
    expect(worstCaseTotal()).toBe(8_700_000_000_000_000n);
    expect(worstCaseTotal() <= BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  const month = { start: Date.parse('2026-05-01T00:00:00Z'), end: Date.parse('2026-06-01T00:00:00Z') };
  // Every one of the carrier's ACTIVITY.peakTrailers trailers in the yard for the whole of May.
  const everyTrailerAllMonth: Visit[] = Array.from({ length: ACTIVITY.peakTrailers }, (_, k) => ({
    trailerId: `t${k}`,
    inAt: month.start - 86_400_000,
    outAt: null,
    inMovementId: `in${k}`,
    outMovementId: null,
  }));
  const worst = (bookedSpaces: number, visits: Visit[]) =>
    computeBilling({
      period: '2026-05',
      timeZone: 'Etc/UTC',
      now: month.end + 1,
      graceMinutes: 0,
      taxRateBp: TAX_RATE_BP_MAX,
      rates: {
        bookedSpaces,
        spaceMonthlyRate: RATE_MAX,
        overageDailyRate: RATE_MAX,
        moveFee: RATE_MAX,
        gateFee: RATE_MAX,
        lateFee: RATE_MAX,
        noShowFee: RATE_MAX,
        minimumMonthly: MINIMUM_MONTHLY_MAX,
      },
      visits,
      moves: ACTIVITY.events,
      checkIns: ACTIVITY.events,
      // Half the appointments late, half no-show: each is one or the other, never both.
      lateArrivals: ACTIVITY.appointments / 2,
      noShows: ACTIVITY.appointments / 2,
      adjustments: Array.from({ length: ADJUSTMENTS_PER_PERIOD_MAX }, () => ADJUSTMENT_MAX),
    });

  it('computes the worst case exactly: no booked spaces, every trailer overage every day', () => {
    const r = worst(0, everyTrailerAllMonth);
    expect(r.lines.space.amount).toBe(0);
    expect(r.days).toHaveLength(31);
    expect(r.days[0]).toMatchObject({ peak: 100_000, overage: 100_000, amount: 100_000_000_000_000 });
    expect(r.lines.overage).toMatchObject({ quantity: 3_100_000, amount: 3_100_000_000_000_000 });
    expect(r.lines.moves.amount).toBe(500_000_000_000_000);
    expect(r.lines.gate.amount).toBe(500_000_000_000_000);
    expect(r.lines.late.amount).toBe(25_000_000_000_000);
    expect(r.lines.noShow.amount).toBe(25_000_000_000_000);
    expect(r.lines.minimum.amount).toBe(0);
    expect(r.lines.adjustments).toMatchObject({ quantity: 100, amount: 100_000_000_000_000 });
    // 4.1e15 of charges (OVERAGE 3.1e15 + MOVES 5e14 + GATE 5e14) + 5e13 of fees + 1e14 of adjustments
    expect(r.subtotal).toBe(4_250_000_000_000_000);
    expect(r.tax).toBe(4_250_000_000_000_000);
    expect(r.total).toBe(8_500_000_000_000_000);
    expect(Number.isSafeInteger(r.total)).toBe(true);
  });

  it('computes the worst case exactly with every space booked', () => {
    // Booked spaces take the place of overage: trailers up to bookedSpaces add nothing.
    const r = worst(BOOKED_SPACES_MAX, []);
    expect(r.lines.space).toMatchObject({
      quantity: 100_000,
      unitAmount: RATE_MAX,
      amount: 100_000_000_000_000,
    });
    expect(r.lines.overage.amount).toBe(0);
    // SPACE 1e14 + MOVES 5e14 + GATE 5e14 + fees 5e13 + adjustments 1e14
    expect(r.subtotal).toBe(1_250_000_000_000_000);
    expect(r.total).toBe(2_500_000_000_000_000);
  });

  it('a credit note at the bounds is exact too', () => {
    const r = computeBilling({
      period: '2026-05',
      timeZone: 'Etc/UTC',
      now: month.end + 1,
      graceMinutes: 0,
      taxRateBp: TAX_RATE_BP_MAX,
      rates: {
        bookedSpaces: 0,
        spaceMonthlyRate: 0,
        overageDailyRate: 0,
        moveFee: 0,
        gateFee: 0,
        lateFee: 0,
        noShowFee: 0,
        minimumMonthly: 0,
      },
      visits: [],
      moves: 0,
      checkIns: 0,
      adjustments: Array.from({ length: ADJUSTMENTS_PER_PERIOD_MAX }, () => -ADJUSTMENT_MAX),
    });
    expect([r.subtotal, r.tax, r.total]).toEqual([
      -100_000_000_000_000, -100_000_000_000_000, -200_000_000_000_000,
    ]);
  });
});
