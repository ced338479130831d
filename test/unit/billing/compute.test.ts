import { describe, expect, it } from 'vitest';
import {
  type BillingInput,
  BillingOverflowError,
  type BillingResult,
  computeBilling,
  type Rates,
  resolveRates,
  type Visit,
} from '../../../shared/modules/billing/compute/index.js';

/**
 * Vectors of the billing computation (docs/domain.md "Billing"), each worked out by hand before the
 * code ran; the reasoning is in the comments. Offsets used (2026):
 * - America/Chicago CST UTC-6 / CDT UTC-5; forward 8 March 08:00Z (8 March has 23 h), back
 *   1 November 07:00Z (1 November has 25 h: 05:00Z to 2 Nov 06:00Z).
 * - Europe/Berlin CET UTC+1 / CEST UTC+2; forward 29 March 01:00Z (29 March: 28th 23:00Z to 29th
 *   22:00Z, 23 h), back 25 October 01:00Z (25 October: 24th 22:00Z to 25th 23:00Z, 25 h).
 * - Pacific/Auckland NZDT UTC+13 until 5 April 2026, then NZST UTC+12.
 */
const z = (iso: string) => Date.parse(iso);

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

let seq = 0;
function visit(trailerId: string, inIso: string, outIso: string | null): Visit {
  seq++;
  return {
    trailerId,
    inAt: z(inIso),
    outAt: outIso === null ? null : z(outIso),
    inMovementId: `in-${seq}`,
    outMovementId: outIso === null ? null : `out-${seq}`,
  };
}

function bill(over: Partial<Omit<BillingInput, 'rates'>> & { rates?: Partial<Rates> }): BillingResult {
  return computeBilling({
    period: '2026-05',
    timeZone: 'Etc/UTC',
    now: z('2027-01-01T00:00:00Z'),
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

/** The days with a non-zero peak, as `date:peak`. */
const peaks = (r: BillingResult) => r.days.filter((d) => d.peak > 0).map((d) => `${d.date}:${d.peak}`);
const annexDays = (r: BillingResult) => r.annex.map((a) => `${a.trailerId}:${a.daysPresent}`);

describe('DST days', () => {
  it('1. Chicago spring-forward: a 22 h stay inside the 23 h day of 8 March is one day', () => {
    // In 8 Mar 06:30Z (00:30 CST), out 9 Mar 04:30Z (23:30 CDT): 22 h, all within 8 March
    // (06:00Z..9 Mar 05:00Z). In UTC days it would touch 8 and 9 March. One unit-day at 1000.
    const r = bill({
      period: '2026-03',
      timeZone: 'America/Chicago',
      rates: { overageDailyRate: 1000 },
      visits: [visit('T1', '2026-03-08T06:30:00Z', '2026-03-09T04:30:00Z')],
    });
    expect(r.days).toHaveLength(31);
    expect(peaks(r)).toEqual(['2026-03-08:1']);
    expect(r.lines.overage).toEqual({ quantity: 1, unitAmount: 1000, amount: 1000 });
    expect(annexDays(r)).toEqual(['T1:1']);
    expect(r.total).toBe(1000);
  });

  it('2. Chicago fall-back: 1 November lasts 25 h; two trailers overlap in its last half hour', () => {
    // T1 in 1 Nov 05:10Z (00:10 CDT), out 2 Nov 05:50Z (1 Nov 23:50 CST): 24 h 40 min, all in the
    // 25 h day of 1 November (05:00Z..2 Nov 06:00Z). T2 in 2 Nov 05:30Z (1 Nov 23:30 CST), out
    // 2 Nov 06:30Z (2 Nov 00:30 CST): both present 05:30Z..05:50Z -> peak 1 Nov = 2; T2 alone on
    // 2 Nov -> 1. booked 1: overage 1 Nov = 1, 2 Nov = 0. OVERAGE 1 x 500 = 500; SPACE 1 x 9000.
    const r = bill({
      period: '2026-11',
      timeZone: 'America/Chicago',
      rates: { bookedSpaces: 1, spaceMonthlyRate: 9000, overageDailyRate: 500 },
      visits: [
        visit('T1', '2026-11-01T05:10:00Z', '2026-11-02T05:50:00Z'),
        visit('T2', '2026-11-02T05:30:00Z', '2026-11-02T06:30:00Z'),
      ],
    });
    expect(peaks(r)).toEqual(['2026-11-01:2', '2026-11-02:1']);
    expect(r.days[0]).toEqual({ date: '2026-11-01', peak: 2, bookedSpaces: 1, overage: 1, amount: 500 });
    expect(r.days[1]).toEqual({ date: '2026-11-02', peak: 1, bookedSpaces: 1, overage: 0, amount: 0 });
    expect(r.lines.overage).toEqual({ quantity: 1, unitAmount: 500, amount: 500 });
    expect(r.lines.space).toEqual({ quantity: 1, unitAmount: 9000, amount: 9000 });
    expect(annexDays(r)).toEqual(['T1:1', 'T2:2']);
    expect(r.subtotal).toBe(9500);
  });

  it('3. Berlin 29 March (23 h): a departure and an arrival at the same instant do not overlap', () => {
    // A: 28 Mar 22:30Z (23:30 CET on the 28th) to 29 Mar 21:30Z (23:30 CEST on the 29th): 28, 29.
    // B: 29 Mar 21:30Z (the instant A leaves) to 29 Mar 23:00Z (01:00 CEST on the 30th): 29, 30.
    // A ends at 21:30Z as B starts: never both present -> peak 1 on 28, 29 and 30. 3 x 100 = 300.
    const r = bill({
      period: '2026-03',
      timeZone: 'Europe/Berlin',
      rates: { overageDailyRate: 100 },
      visits: [
        visit('A', '2026-03-28T22:30:00Z', '2026-03-29T21:30:00Z'),
        visit('B', '2026-03-29T21:30:00Z', '2026-03-29T23:00:00Z'),
      ],
    });
    expect(peaks(r)).toEqual(['2026-03-28:1', '2026-03-29:1', '2026-03-30:1']);
    expect(r.lines.overage.amount).toBe(300);
    expect(annexDays(r)).toEqual(['A:2', 'B:2']);
  });

  it('4. Berlin 25 October (25 h): local midnight to local midnight is one day, the end excluded', () => {
    // In 24 Oct 22:00Z (00:00 CEST on the 25th), out 25 Oct 23:00Z (00:00 CET on the 26th): 25 h,
    // present over [start of 25th, start of 26th) -> the 25th only.
    const r = bill({
      period: '2026-10',
      timeZone: 'Europe/Berlin',
      rates: { overageDailyRate: 100 },
      visits: [visit('T', '2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z')],
    });
    expect(peaks(r)).toEqual(['2026-10-25:1']);
    expect(annexDays(r)).toEqual(['T:1']);
    expect(r.total).toBe(100);
  });
});

describe('the yard month, not the UTC month', () => {
  it('5. Auckland: arrivals at 2026-03-31T12:00Z are April; a stay crossing the period start counts', () => {
    // April in Auckland = [31 Mar 11:00Z, 30 Apr 12:00Z). now = 15 Apr 00:00Z (12:00 NZST on the
    // 15th): days 1..15 have begun. V1 in 31 Mar 12:00Z (1 Apr 01:00 NZDT), out 1 Apr 11:00Z
    // (2 Apr 00:00 NZDT, exactly local midnight): 1 April only. V2 in 31 Mar 10:00Z (23:00 on 31 March, NZ), out 31 Mar
    // 11:30Z (1 Apr 00:30): present in April 11:00Z..11:30Z, i.e. on 1 April; it leaves before V1
    // arrives -> peak 1 April = 1. OVERAGE 1 x 250; GATE 1 x 40 (the service counts V1's check-in);
    // subtotal 290; GST 15%: 43.5 -> 44; total 334.
    const r = bill({
      period: '2026-04',
      timeZone: 'Pacific/Auckland',
      now: z('2026-04-15T00:00:00Z'),
      rates: { overageDailyRate: 250, gateFee: 40 },
      taxRateBp: 1500,
      checkIns: 1,
      visits: [
        visit('V1', '2026-03-31T12:00:00Z', '2026-04-01T11:00:00Z'),
        visit('V2', '2026-03-31T10:00:00Z', '2026-03-31T11:30:00Z'),
      ],
    });
    expect(r.window).toEqual({ start: z('2026-03-31T11:00:00Z'), end: z('2026-04-15T00:00:00Z') });
    expect(r.days).toHaveLength(15);
    expect(peaks(r)).toEqual(['2026-04-01:1']);
    // Annex by arrival: V2 (present in April, checked in in March), then V1.
    expect(annexDays(r)).toEqual(['V2:1', 'V1:1']);
    expect([r.subtotal, r.tax, r.total]).toEqual([290, 44, 334]);
  });

  it('6. visits crossing both bounds of the period (Berlin January, CET all month)', () => {
    // January = [31 Dec 23:00Z, 31 Jan 23:00Z). D: 1 Dec to 1 Mar: all 31 days. A: 20 Dec to 3 Jan
    // 10:00Z (11:00 CET): 1, 2, 3 Jan. B: 30 Jan 10:00Z to 5 Feb: 30, 31 Jan. C: gone 31 Dec
    // 22:59Z (23:59 CET on 31 Dec): never in January, not in the annex.
    // Peaks: 1-3 Jan A+D = 2; 4-29 Jan D = 1; 30-31 Jan B+D = 2. booked 1 -> 5 unit-days x 700 =
    // 3500. SPACE 1 x 20000. subtotal 23500; tax 19%: 4465 exactly; total 27965.
    const r = bill({
      period: '2026-01',
      timeZone: 'Europe/Berlin',
      rates: { bookedSpaces: 1, spaceMonthlyRate: 20000, overageDailyRate: 700 },
      taxRateBp: 1900,
      checkIns: 1,
      visits: [
        visit('A', '2025-12-20T10:00:00Z', '2026-01-03T10:00:00Z'),
        visit('B', '2026-01-30T10:00:00Z', '2026-02-05T00:00:00Z'),
        visit('C', '2025-11-01T10:00:00Z', '2025-12-31T22:59:00Z'),
        visit('D', '2025-12-01T10:00:00Z', '2026-03-01T10:00:00Z'),
      ],
    });
    expect(r.days.map((d) => d.peak)).toEqual([2, 2, 2, ...new Array(26).fill(1), 2, 2]);
    expect(r.lines.overage).toEqual({ quantity: 5, unitAmount: 700, amount: 3500 });
    expect(annexDays(r)).toEqual(['D:31', 'A:3', 'B:2']);
    expect([r.subtotal, r.tax, r.total]).toEqual([23500, 4465, 27965]);
  });
});

describe('peaks within a day', () => {
  it('7. two visits the same day that never overlap: peak 1', () => {
    // Berlin 10 June (CEST): 08:00-10:00 and 14:00-16:00 local, different trailers. Peak 1 -> 100.
    const r = bill({
      period: '2026-06',
      timeZone: 'Europe/Berlin',
      rates: { overageDailyRate: 100 },
      visits: [
        visit('A', '2026-06-10T06:00:00Z', '2026-06-10T08:00:00Z'),
        visit('B', '2026-06-10T12:00:00Z', '2026-06-10T14:00:00Z'),
      ],
    });
    expect(peaks(r)).toEqual(['2026-06-10:1']);
    expect(r.total).toBe(100);
    expect(annexDays(r)).toEqual(['A:1', 'B:1']);
  });

  it('8. a chain A [8,12) C [11,13) B [12,16): never three at once, peak 2', () => {
    // 11-12: A and C; at 12 A leaves as B arrives: B and C until 13. Peak 2.
    const r = bill({
      visits: [
        visit('A', '2026-05-04T08:00:00Z', '2026-05-04T12:00:00Z'),
        visit('B', '2026-05-04T12:00:00Z', '2026-05-04T16:00:00Z'),
        visit('C', '2026-05-04T11:00:00Z', '2026-05-04T13:00:00Z'),
      ],
    });
    expect(peaks(r)).toEqual(['2026-05-04:2']);
  });

  it('9. one trailer leaving and coming back at the same instant is one trailer', () => {
    const r = bill({
      visits: [
        visit('T', '2026-05-04T08:00:00Z', '2026-05-04T12:00:00Z'),
        visit('T', '2026-05-04T12:00:00Z', '2026-05-04T16:00:00Z'),
      ],
    });
    expect(peaks(r)).toEqual(['2026-05-04:1']);
  });

  it('10. overlapping visits of the same trailer count it once (distinct trailers)', () => {
    // T [8,12) and T [10,14) (a data slip), U [11,13): distinct trailers at 11-12 are T and U = 2.
    const r = bill({
      visits: [
        visit('T', '2026-05-04T08:00:00Z', '2026-05-04T12:00:00Z'),
        visit('T', '2026-05-04T10:00:00Z', '2026-05-04T14:00:00Z'),
        visit('U', '2026-05-04T11:00:00Z', '2026-05-04T13:00:00Z'),
      ],
    });
    expect(peaks(r)).toEqual(['2026-05-04:2']);
  });

  it('11. a stay leaving exactly at midnight is not present on the next day', () => {
    // [4 May 20:00, 5 May 00:00) -> 4 May only; [5 May 00:00, 5 May 01:00) -> 5 May only.
    const r = bill({
      visits: [
        visit('A', '2026-05-04T20:00:00Z', '2026-05-05T00:00:00Z'),
        visit('B', '2026-05-05T00:00:00Z', '2026-05-05T01:00:00Z'),
      ],
    });
    expect(peaks(r)).toEqual(['2026-05-04:1', '2026-05-05:1']);
    expect(annexDays(r)).toEqual(['A:1', 'B:1']);
  });
});

describe('the ongoing period', () => {
  it('12. open visits with now mid-day: present up to now; today is its peak so far; SPACE not prorated', () => {
    // Chicago, now 10 Mar 18:00Z (13:00 CDT): 10 days begun. A in 9 Mar 20:00Z, still in: 9, 10.
    // D 10 Mar 15:00Z-16:00Z. B in 10 Mar 17:00Z, still in. C would arrive 10 Mar 19:00Z (after
    // now: not yet present; not in the window). 10 March: A+D at 15-16Z, A+B at 17-18Z -> 2;
    // 9 March: 1. booked 1 -> overage 1 on the 10th x 1000. SPACE 1 x 30000 (the whole period).
    // MOVES 4 x 250 = 1000. subtotal 32000; tax 8.25% = 2640; total 34640.
    const r = bill({
      period: '2026-03',
      timeZone: 'America/Chicago',
      now: z('2026-03-10T18:00:00Z'),
      rates: { bookedSpaces: 1, spaceMonthlyRate: 30000, overageDailyRate: 1000, moveFee: 250 },
      taxRateBp: 825,
      moves: 4,
      visits: [
        visit('A', '2026-03-09T20:00:00Z', null),
        visit('B', '2026-03-10T17:00:00Z', null),
        visit('C', '2026-03-10T19:00:00Z', null),
        visit('D', '2026-03-10T15:00:00Z', '2026-03-10T16:00:00Z'),
      ],
    });
    expect(r.window.end).toBe(z('2026-03-10T18:00:00Z'));
    expect(r.days).toHaveLength(10);
    expect(peaks(r)).toEqual(['2026-03-09:1', '2026-03-10:2']);
    expect(r.lines.overage.amount).toBe(1000);
    expect(annexDays(r)).toEqual(['A:2', 'D:1', 'B:1']);
    expect([r.subtotal, r.tax, r.total]).toEqual([32000, 2640, 34640]);
  });

  it('13. a trailer in since before the period, still in: every day begun, none after now', () => {
    // UTC, now 12 May 06:00Z: days 1..12; in since 20 April: peak 1 on each of the 12 days.
    const r = bill({
      now: z('2026-05-12T06:00:00Z'),
      rates: { overageDailyRate: 10 },
      visits: [visit('T', '2026-04-20T00:00:00Z', null)],
    });
    expect(r.days.map((d) => d.peak)).toEqual(new Array(12).fill(1));
    expect(r.lines.overage.amount).toBe(120);
    expect(annexDays(r)).toEqual(['T:12']);
  });
});

describe('grace minutes', () => {
  it('14. shorter than grace: never present; exactly grace: present; grace judged on the whole stay', () => {
    // grace 30 min, UTC May, now 20 May 12:00Z.
    // A 5 May 10:00-10:29 (29 min): never present. B 6 May 10:00-10:30 (30 min): present.
    // C in 20 May 11:40, open: 20 min so far -> not present (yet). D in 20 May 11:15, open: 45 min
    // -> present. E 30 Apr 23:30 to 1 May 00:10: 40 min in all, 10 min of it in May -> present
    // on 1 May (grace is about the stay, not its slice of the period).
    // Peaks 1 on 1, 6 and 20 May: 3 x 100 = 300. Annex: present or checked in within W:
    // E(1), A(0), B(1), D(1), C(0) by arrival.
    const r = bill({
      now: z('2026-05-20T12:00:00Z'),
      graceMinutes: 30,
      rates: { overageDailyRate: 100 },
      visits: [
        visit('A', '2026-05-05T10:00:00Z', '2026-05-05T10:29:00Z'),
        visit('B', '2026-05-06T10:00:00Z', '2026-05-06T10:30:00Z'),
        visit('C', '2026-05-20T11:40:00Z', null),
        visit('D', '2026-05-20T11:15:00Z', null),
        visit('E', '2026-04-30T23:30:00Z', '2026-05-01T00:10:00Z'),
      ],
    });
    expect(peaks(r)).toEqual(['2026-05-01:1', '2026-05-06:1', '2026-05-20:1']);
    expect(r.lines.overage.amount).toBe(300);
    expect(annexDays(r)).toEqual(['E:1', 'A:0', 'B:1', 'D:1', 'C:0']);
  });

  it('15. grace 0: a zero-length visit is never present, but its check-in is in the annex', () => {
    const r = bill({
      rates: { overageDailyRate: 100, gateFee: 5 },
      checkIns: 1,
      visits: [visit('Z', '2026-05-04T08:00:00Z', '2026-05-04T08:00:00Z')],
    });
    expect(peaks(r)).toEqual([]);
    expect(annexDays(r)).toEqual(['Z:0']);
    expect(r.total).toBe(5);
  });
});

describe('lines, minimum, adjustments, tax', () => {
  it('16. the minimum tops up the charges before adjustments', () => {
    // UTC February 2026. MOVES 6 x 500 = 3000; GATE 10 x 100 = 1000; charges 4000 < 10000 ->
    // MINIMUM 6000. ADJUSTMENTS -2000. subtotal 8000; tax 20% = 1600; total 9600.
    const r = bill({
      period: '2026-02',
      rates: { moveFee: 500, gateFee: 100, minimumMonthly: 10000 },
      moves: 6,
      checkIns: 10,
      adjustments: [-2000],
      taxRateBp: 2000,
    });
    expect(r.days).toHaveLength(28);
    expect(r.lines.moves).toEqual({ quantity: 6, unitAmount: 500, amount: 3000 });
    expect(r.lines.gate).toEqual({ quantity: 10, unitAmount: 100, amount: 1000 });
    expect(r.lines.minimum).toEqual({ quantity: 1, unitAmount: 6000, amount: 6000 });
    expect(r.lines.adjustments).toEqual({ quantity: 1, unitAmount: -2000, amount: -2000 });
    expect([r.subtotal, r.tax, r.total]).toEqual([8000, 1600, 9600]);
  });

  it('17. charges above the minimum: no top-up', () => {
    // MOVES 30 x 500 = 15000 >= 10000 -> MINIMUM 0; adjustments +250 and -50 -> 200; 15200.
    const r = bill({
      rates: { moveFee: 500, minimumMonthly: 10000 },
      moves: 30,
      adjustments: [250, -50],
    });
    expect(r.lines.minimum.amount).toBe(0);
    expect(r.lines.adjustments).toEqual({ quantity: 2, unitAmount: 200, amount: 200 });
    expect(r.total).toBe(15200);
  });

  it('18. a credit: tax rounded half up on the absolute value, with the sign', () => {
    // GATE 20 x 100 = 2000; adjustment -3005 -> subtotal -1005; 10%: |-1005| x 0.1 = 100.5 -> 101,
    // negated -101; total -1106 (a credit note).
    const r = bill({ rates: { gateFee: 100 }, checkIns: 20, adjustments: [-3005], taxRateBp: 1000 });
    expect([r.subtotal, r.tax, r.total]).toEqual([-1005, -101, -1106]);
  });

  it('18a. LATE and NO_SHOW: lines of their own, outside the minimum, taxed like the rest', () => {
    // UTC March 2026. GATE 4 x 100 = 400; MOVES 2 x 300 = 600; charges 1000 < minimum 5000 ->
    // MINIMUM 4000 (the fees do not count towards it: 5000 - 1000, not 5000 - 1000 - 3500).
    // LATE 3 x 500 = 1500; NO_SHOW 2 x 1000 = 2000. subtotal 1000 + 1500 + 2000 + 4000 = 8500;
    // tax 8.25 %: 8500 x 825 / 10000 = 701.25 -> 701; total 9201.
    const r = bill({
      period: '2026-03',
      rates: { gateFee: 100, moveFee: 300, minimumMonthly: 5000, lateFee: 500, noShowFee: 1000 },
      checkIns: 4,
      moves: 2,
      lateArrivals: 3,
      noShows: 2,
      taxRateBp: 825,
    });
    expect(r.lines.late).toEqual({ quantity: 3, unitAmount: 500, amount: 1500 });
    expect(r.lines.noShow).toEqual({ quantity: 2, unitAmount: 1000, amount: 2000 });
    expect(r.lines.minimum).toEqual({ quantity: 1, unitAmount: 4000, amount: 4000 });
    expect([r.subtotal, r.tax, r.total]).toEqual([8500, 701, 9201]);
  });

  it('18b. fees alone reach past the minimum but do not lower the top-up', () => {
    // No use at all: charges 0 -> MINIMUM 2000 in full even though LATE 5 x 700 = 3500 alone is
    // above it. subtotal 3500 + 2000 = 5500; no tax.
    const r = bill({ rates: { minimumMonthly: 2000, lateFee: 700, noShowFee: 900 }, lateArrivals: 5 });
    expect(r.lines.late.amount).toBe(3500);
    expect(r.lines.noShow).toEqual({ quantity: 0, unitAmount: 900, amount: 0 });
    expect(r.lines.minimum.amount).toBe(2000);
    expect(r.total).toBe(5500);
  });

  it('18c. counts without a rate bill nothing; a credit with fees keeps the tax sign rule', () => {
    // Rates 0 (the default): 7 late, 4 no-shows -> lines of quantity 7 and 4, amount 0.
    const free = bill({ lateArrivals: 7, noShows: 4 });
    expect(free.lines.late).toEqual({ quantity: 7, unitAmount: 0, amount: 0 });
    expect(free.lines.noShow).toEqual({ quantity: 4, unitAmount: 0, amount: 0 });
    expect(free.total).toBe(0);
    // NO_SHOW 1 x 2500 = 2500; adjustment -4005 -> subtotal -1505; 10 %: 150.5 -> 151, negated
    // -151; total -1656.
    const credit = bill({ rates: { noShowFee: 2500 }, noShows: 1, adjustments: [-4005], taxRateBp: 1000 });
    expect([credit.subtotal, credit.tax, credit.total]).toEqual([-1505, -151, -1656]);
  });

  it('18d. a fractional or negative appointment count is refused', () => {
    expect(() => bill({ lateArrivals: 0.5 })).toThrow(/lateArrivals/);
    expect(() => bill({ noShows: -1 })).toThrow(/noShows/);
  });

  it('19. leap February: 2028-02 bills 29 days, 2026-02 bills 28', () => {
    // One trailer in from mid-January to March: peak 1 each day, 100 per unit-day.
    const leap = bill({
      period: '2028-02',
      now: z('2028-04-01T00:00:00Z'),
      rates: { overageDailyRate: 100 },
      visits: [visit('T', '2028-01-15T00:00:00Z', '2028-03-05T00:00:00Z')],
    });
    expect(leap.lines.overage).toEqual({ quantity: 29, unitAmount: 100, amount: 2900 });
    expect(leap.days.at(-1)?.date).toBe('2028-02-29');
    expect(annexDays(leap)).toEqual(['T:29']);
    const common = bill({
      period: '2026-02',
      rates: { overageDailyRate: 100 },
      visits: [visit('T', '2026-01-15T00:00:00Z', '2026-03-05T00:00:00Z')],
    });
    expect(common.lines.overage.amount).toBe(2800);
  });

  it('20. bookedSpaces above the peak: overage 0 every day, SPACE still due', () => {
    // 3 trailers together on 4 May; booked 5 -> overage 0. SPACE 5 x 10000 = 50000.
    const r = bill({
      rates: { bookedSpaces: 5, spaceMonthlyRate: 10000, overageDailyRate: 999 },
      visits: [
        visit('A', '2026-05-04T08:00:00Z', '2026-05-04T18:00:00Z'),
        visit('B', '2026-05-04T09:00:00Z', '2026-05-04T18:00:00Z'),
        visit('C', '2026-05-04T10:00:00Z', '2026-05-04T18:00:00Z'),
      ],
    });
    expect(r.days[3]).toEqual({ date: '2026-05-04', peak: 3, bookedSpaces: 5, overage: 0, amount: 0 });
    expect(r.lines.overage).toEqual({ quantity: 0, unitAmount: 999, amount: 0 });
    expect(r.total).toBe(50000);
  });

  it('21. booked 2 with peaks 3, 2 and 4: overage 1 + 0 + 2 = 3 unit-days', () => {
    const at = (d: string, h: string) => `2026-05-${d}T${h}:00:00Z`;
    const r = bill({
      rates: { bookedSpaces: 2, overageDailyRate: 300 },
      visits: [
        ...['A', 'B', 'C'].map((t) => visit(t, at('04', '08'), at('04', '10'))),
        ...['A', 'B'].map((t) => visit(t, at('05', '08'), at('05', '10'))),
        ...['A', 'B', 'C', 'D'].map((t) => visit(t, at('06', '08'), at('06', '10'))),
      ],
    });
    expect(peaks(r)).toEqual(['2026-05-04:3', '2026-05-05:2', '2026-05-06:4']);
    expect(r.lines.overage).toEqual({ quantity: 3, unitAmount: 300, amount: 900 });
  });
});

describe('carrier override: null vs 0 (resolveRates feeding computeBilling)', () => {
  // Yard: booked 2, space 10000, overage 500, move 300, gate 100, minimum 50000. The same activity
  // for three carriers: one trailer present on 3 days (peak 1), 2 moves, 1 check-in.
  const yard = {
    bookedSpaces: 2,
    spaceMonthlyRate: 10000,
    overageDailyRate: 500,
    moveFee: 300,
    gateFee: 100,
    minimumMonthly: 50000,
  };
  const activity = {
    moves: 2,
    checkIns: 1,
    visits: [visit('T', '2026-05-04T08:00:00Z', '2026-05-06T08:00:00Z')],
  };

  it('22. no carrier config: no booked spaces, no minimum; every trailer is overage', () => {
    // SPACE 0; OVERAGE 3 x 500 = 1500; MOVES 600; GATE 100; MINIMUM 0 -> 2200.
    const r = bill({ ...activity, rates: resolveRates(yard, null) });
    expect(r.lines.overage.amount).toBe(1500);
    expect(r.lines.minimum.amount).toBe(0);
    expect(r.subtotal).toBe(2200);
  });

  it('23. a carrier config of nulls: the yard booked spaces and minimum apply', () => {
    // SPACE 2 x 10000 = 20000; OVERAGE 0 (peak 1 <= 2); MOVES 600; GATE 100 -> 20700;
    // MINIMUM 50000 - 20700 = 29300 -> 50000.
    const r = bill({
      ...activity,
      rates: resolveRates(yard, { bookedSpaces: null, minimumMonthly: null, moveFee: null }),
    });
    expect(r.lines.space.amount).toBe(20000);
    expect(r.lines.overage.amount).toBe(0);
    expect(r.lines.minimum.amount).toBe(29300);
    expect(r.subtotal).toBe(50000);
  });

  it('24. a carrier config of explicit 0s overrides the yard', () => {
    // booked 0, minimum 0, move 0: SPACE 0; OVERAGE 1500; MOVES 0; GATE 100 -> 1600.
    const r = bill({
      ...activity,
      rates: resolveRates(yard, { bookedSpaces: 0, minimumMonthly: 0, moveFee: 0 }),
    });
    expect(r.lines.moves).toEqual({ quantity: 2, unitAmount: 0, amount: 0 });
    expect(r.subtotal).toBe(1600);
  });
});

describe('exactness and refusals', () => {
  it('25. tax exact when |subtotal| x bp exceeds 2^53', () => {
    // See rates-money.test.ts: S = 3 000 000 000 007 857 at 7 bp -> tax 2 100 000 000 005
    // (the double formula gives ...006). total = S + tax = 3 002 100 000 007 862 (< 2^53).
    const r = bill({ adjustments: [3_000_000_000_007_857], taxRateBp: 7 });
    expect([r.subtotal, r.tax, r.total]).toEqual([
      3_000_000_000_007_857, 2_100_000_000_005, 3_002_100_000_007_862,
    ]);
  });

  it('26. an amount beyond 2^53 is refused, naming the line', () => {
    // SPACE 3e15 x 10 = 3e16 > 2^53.
    expect(() => bill({ rates: { bookedSpaces: 3e15, spaceMonthlyRate: 10 } })).toThrow(BillingOverflowError);
    expect(() => bill({ rates: { bookedSpaces: 3e15, spaceMonthlyRate: 10 } })).toThrow(/SPACE/);
    // Two adjustments each safe, their sum not.
    expect(() => bill({ adjustments: [2 ** 52, 2 ** 52] })).toThrow(/ADJUSTMENTS/);
  });

  it('27. an inverted visit, a bad period or a fractional count is refused', () => {
    expect(() => bill({ visits: [visit('X', '2026-05-04T10:00:00Z', '2026-05-04T09:00:00Z')] })).toThrow(
      /ends before it begins/,
    );
    expect(() => bill({ period: '2026-13' })).toThrow(/2026-13/);
    expect(() => bill({ moves: 1.5 })).toThrow(/moves/);
    expect(() => bill({ taxRateBp: -1 })).toThrow(/taxRateBp/);
  });

  it('28. the result echoes the terms it used and the window', () => {
    const r = bill({ rates: { gateFee: 3 }, graceMinutes: 15, taxRateBp: 700 });
    expect(r.period).toBe('2026-05');
    expect(r.timeZone).toBe('Etc/UTC');
    expect(r.rates).toEqual({ ...ZERO, gateFee: 3 });
    expect([r.graceMinutes, r.taxRateBp]).toEqual([15, 700]);
    expect(r.window).toEqual({ start: z('2026-05-01T00:00:00Z'), end: z('2026-06-01T00:00:00Z') });
    expect(r.days).toHaveLength(31);
  });
});
