import { describe, expect, it } from 'vitest';
import {
  currentPeriod,
  isFuture,
  isPast,
  parsePeriod,
  periodBounds,
  periodDays,
  periodProblem,
  periodWindow,
  previousPeriod,
} from '../../../shared/modules/billing/compute/index.js';

/**
 * Billing periods in the yard's zone. Every expected instant below was worked out by hand from the
 * 2026 DST rules (not read from the code):
 * - America/Chicago: CST = UTC-6, CDT = UTC-5. Spring forward Sunday 8 March 2026 02:00 CST
 *   (08:00Z); fall back Sunday 1 November 2026 02:00 CDT (07:00Z).
 * - Europe/Berlin: CET = UTC+1, CEST = UTC+2. Forward Sunday 29 March 2026 01:00Z; back Sunday
 *   25 October 2026 01:00Z.
 * - Pacific/Auckland: NZDT = UTC+13 until Sunday 5 April 2026 03:00 NZDT, then NZST = UTC+12.
 * (1 March 2026 is a Sunday: 1 Feb 2026 is a Sunday and February has 28 days.)
 */
const z = (iso: string) => Date.parse(iso);
const H = 3_600_000;

describe('parsePeriod / periodProblem', () => {
  it('reads YYYY-MM', () => {
    expect(parsePeriod('2026-03')).toEqual({ text: '2026-03', year: 2026, month: 3 });
    expect(parsePeriod('2028-12')).toEqual({ text: '2028-12', year: 2028, month: 12 });
    expect(periodProblem('2026-03')).toBeNull();
  });

  it('refuses anything else, with a reason', () => {
    for (const bad of [
      '2026-3',
      '2026-13',
      '2026-00',
      '26-03',
      '2026-03-01',
      ' 2026-03',
      '2026/03',
      '',
      202603,
      null,
    ]) {
      expect(parsePeriod(bad), String(bad)).toBeNull();
      expect(periodProblem(bad), String(bad)).toMatch(/period/);
    }
  });
});

describe('period bounds and days in the yard zone', () => {
  it('Chicago March 2026: 743 hours, 8 March has 23', () => {
    // Start: 1 March 00:00 CST = 06:00Z. End: 1 April 00:00 CDT = 05:00Z. 31 x 24 - 1 = 743 h.
    const b = periodBounds('2026-03', 'America/Chicago');
    expect(b).toEqual({ start: z('2026-03-01T06:00:00Z'), end: z('2026-04-01T05:00:00Z') });
    const days = periodDays('2026-03', 'America/Chicago', z('2026-06-01T00:00:00Z'));
    expect(days).toHaveLength(31);
    // 8 March: 06:00Z (midnight CST) to 9 March 05:00Z (midnight CDT) = 23 h; every other day 24 h.
    expect(days[7]).toEqual({
      date: '2026-03-08',
      start: z('2026-03-08T06:00:00Z'),
      end: z('2026-03-09T05:00:00Z'),
    });
    expect(days.filter((d) => d.end - d.start !== 24 * H).map((d) => d.date)).toEqual(['2026-03-08']);
    expect(days[0]?.start).toBe(b.start);
    expect(days[30]?.end).toBe(b.end);
  });

  it('Chicago November 2026: 721 hours, 1 November has 25', () => {
    // Start: 1 Nov 00:00 CDT = 05:00Z; 2 Nov 00:00 CST = 06:00Z (25 h later); end 1 Dec 00:00 CST = 06:00Z.
    const b = periodBounds('2026-11', 'America/Chicago');
    expect(b).toEqual({ start: z('2026-11-01T05:00:00Z'), end: z('2026-12-01T06:00:00Z') });
    expect(b.end - b.start).toBe(721 * H);
    const days = periodDays('2026-11', 'America/Chicago', z('2027-01-01T00:00:00Z'));
    expect(days).toHaveLength(30);
    expect(days[0]).toEqual({
      date: '2026-11-01',
      start: z('2026-11-01T05:00:00Z'),
      end: z('2026-11-02T06:00:00Z'),
    });
    expect(days.filter((d) => d.end - d.start !== 24 * H).map((d) => d.date)).toEqual(['2026-11-01']);
  });

  it('Berlin: 29 March 2026 has 23 hours, 25 October 2026 has 25', () => {
    // March: 1 March 00:00 CET = 28 Feb 23:00Z; 1 April 00:00 CEST = 31 March 22:00Z.
    expect(periodBounds('2026-03', 'Europe/Berlin')).toEqual({
      start: z('2026-02-28T23:00:00Z'),
      end: z('2026-03-31T22:00:00Z'),
    });
    const march = periodDays('2026-03', 'Europe/Berlin', z('2026-05-01T00:00:00Z'));
    // 29 March: 28 March 23:00Z (midnight CET) to 29 March 22:00Z (midnight CEST).
    expect(march[28]).toEqual({
      date: '2026-03-29',
      start: z('2026-03-28T23:00:00Z'),
      end: z('2026-03-29T22:00:00Z'),
    });
    expect(march.filter((d) => d.end - d.start !== 24 * H).map((d) => d.date)).toEqual(['2026-03-29']);
    const october = periodDays('2026-10', 'Europe/Berlin', z('2026-12-01T00:00:00Z'));
    // 25 October: 24 Oct 22:00Z (midnight CEST) to 25 Oct 23:00Z (midnight CET).
    expect(october[24]).toEqual({
      date: '2026-10-25',
      start: z('2026-10-24T22:00:00Z'),
      end: z('2026-10-25T23:00:00Z'),
    });
    expect(october.filter((d) => d.end - d.start !== 24 * H).map((d) => d.date)).toEqual(['2026-10-25']);
  });

  it('Auckland: 2026-03-31T12:00Z is already April there', () => {
    // 12:00Z + 13 h = 1 April 01:00 NZDT, while it is still 31 March in UTC.
    const now = z('2026-03-31T12:00:00Z');
    expect(currentPeriod('Pacific/Auckland', now)).toBe('2026-04');
    expect(previousPeriod('Pacific/Auckland', now)).toBe('2026-03');
    expect(currentPeriod('Etc/UTC', now)).toBe('2026-03');
    // April: 1 April 00:00 NZDT = 31 March 11:00Z; 1 May 00:00 NZST = 30 April 12:00Z; 5 April has 25 h.
    expect(periodBounds('2026-04', 'Pacific/Auckland')).toEqual({
      start: z('2026-03-31T11:00:00Z'),
      end: z('2026-04-30T12:00:00Z'),
    });
    const days = periodDays('2026-04', 'Pacific/Auckland', z('2026-06-01T00:00:00Z'));
    expect(days.filter((d) => d.end - d.start !== 24 * H).map((d) => d.date)).toEqual(['2026-04-05']);
  });

  it('Havana: clocks jump at midnight; 8 March starts at 01:00 and 9 March again at 00:00', () => {
    // Cuba: CST UTC-5, CDT UTC-4; on Sunday 8 March 2026 00:00 CST becomes 01:00 CDT, so 8 March
    // has no midnight: it begins at 01:00 CDT = 05:00Z (the instant 7 March ends) and ends at
    // 9 March 00:00 CDT = 04:00Z: 23 h. Stepping 24 h of wall time from 01:00 would wrongly start
    // every later day at 01:00.
    const days = periodDays('2026-03', 'America/Havana', z('2026-05-01T00:00:00Z'));
    expect(days.slice(6, 9)).toEqual([
      { date: '2026-03-07', start: z('2026-03-07T05:00:00Z'), end: z('2026-03-08T05:00:00Z') },
      { date: '2026-03-08', start: z('2026-03-08T05:00:00Z'), end: z('2026-03-09T04:00:00Z') },
      { date: '2026-03-09', start: z('2026-03-09T04:00:00Z'), end: z('2026-03-10T04:00:00Z') },
    ]);
  });

  it('leap February: 2028-02 has 29 days, 2026-02 has 28', () => {
    expect(
      periodDays('2028-02', 'Etc/UTC', z('2028-04-01T00:00:00Z'))
        .map((d) => d.date)
        .at(-1),
    ).toBe('2028-02-29');
    expect(periodDays('2028-02', 'Etc/UTC', z('2028-04-01T00:00:00Z'))).toHaveLength(29);
    expect(periodDays('2026-02', 'Etc/UTC', z('2026-04-01T00:00:00Z'))).toHaveLength(28);
    expect(periodBounds('2028-02', 'Etc/UTC')).toEqual({
      start: z('2028-02-01T00:00:00Z'),
      end: z('2028-03-01T00:00:00Z'),
    });
  });
});

describe('the window and the days that have begun', () => {
  it('ongoing period, now mid-day: W ends at now; today is clipped to now', () => {
    // Chicago, now = 10 March 18:00Z = 13:00 CDT: days 1..10 have begun, the 10th from 05:00Z to now.
    const now = z('2026-03-10T18:00:00Z');
    expect(periodWindow('2026-03', 'America/Chicago', now)).toEqual({
      start: z('2026-03-01T06:00:00Z'),
      end: now,
    });
    const days = periodDays('2026-03', 'America/Chicago', now);
    expect(days).toHaveLength(10);
    expect(days[9]).toEqual({ date: '2026-03-10', start: z('2026-03-10T05:00:00Z'), end: now });
  });

  it('a day starting exactly at now has not begun; a period not begun has an empty window', () => {
    // UTC, now = 3 May 00:00Z exactly: days 1 and 2 only.
    const now = z('2026-05-03T00:00:00Z');
    expect(periodDays('2026-05', 'Etc/UTC', now).map((d) => d.date)).toEqual(['2026-05-01', '2026-05-02']);
    expect(periodWindow('2026-06', 'Etc/UTC', now)).toEqual({
      start: z('2026-06-01T00:00:00Z'),
      end: z('2026-06-01T00:00:00Z'),
    });
    expect(periodDays('2026-06', 'Etc/UTC', now)).toEqual([]);
    // A past period: the whole month.
    expect(periodWindow('2026-04', 'Etc/UTC', now)).toEqual({
      start: z('2026-04-01T00:00:00Z'),
      end: z('2026-05-01T00:00:00Z'),
    });
  });

  it('previous period across a year; past and future at the exact bounds', () => {
    // Berlin, 1 January 2027 00:30 CET = 31 Dec 2026 23:30Z: ongoing 2027-01, previous 2026-12.
    const now = z('2026-12-31T23:30:00Z');
    expect(currentPeriod('Europe/Berlin', now)).toBe('2027-01');
    expect(previousPeriod('Europe/Berlin', now)).toBe('2026-12');
    // 2026-12 in Berlin ends at 31 Dec 23:00Z: past from that instant on, not a millisecond earlier.
    expect(isPast('2026-12', 'Europe/Berlin', z('2026-12-31T23:00:00Z'))).toBe(true);
    expect(isPast('2026-12', 'Europe/Berlin', z('2026-12-31T22:59:59.999Z'))).toBe(false);
    expect(isFuture('2027-01', 'Europe/Berlin', z('2026-12-31T22:59:59.999Z'))).toBe(true);
    expect(isFuture('2027-01', 'Europe/Berlin', z('2026-12-31T23:00:00Z'))).toBe(false);
  });

  it('an unknown zone is an error, not UTC', () => {
    expect(() => periodBounds('2026-03', 'Mars/Olympus')).toThrow(/time zone/);
    expect(() => currentPeriod('Mars/Olympus', 0)).toThrow(/time zone/);
  });
});
