import { describe, expect, it } from 'vitest';
import { passWhen, wallTime } from '../../../shared/modules/appointments/pass/when.js';

/** The time a pass prints: the yard's wall clock with its offset, as booked (pass/when.ts). */
describe('passWhen', () => {
  it('gives one offset on an ordinary day', () => {
    expect(passWhen({ startAt: '2026-03-03T08:00:00-06:00', endAt: '2026-03-03T09:00:00-06:00' })).toBe(
      'Tue 3 Mar 2026, 08:00 - 09:00 (UTC-06:00)',
    );
  });

  it('gives each end its own offset across a clock change', () => {
    // Fall back in Chicago: 01:30 CDT, then 01:30 CST an hour later.
    expect(passWhen({ startAt: '2026-11-01T01:30:00-05:00', endAt: '2026-11-01T01:30:00-06:00' })).toBe(
      'Sun 1 Nov 2026, 01:30 (UTC-05:00) - 01:30 (UTC-06:00)',
    );
  });

  it("names the end's date when it is another day, and UTC as such", () => {
    expect(passWhen({ startAt: '2026-03-03T23:30:00Z', endAt: '2026-03-04T00:30:00Z' })).toBe(
      'Tue 3 Mar 2026, 23:30 - Wed 4 Mar 2026, 00:30 (UTC)',
    );
  });

  it('refuses a time without an offset rather than guess the zone', () => {
    expect(() => wallTime('2026-03-03T08:00:00')).toThrow(RangeError);
    expect(wallTime('2026-03-08T03:30:00.500+05:30')).toEqual({
      date: 'Sun 8 Mar 2026',
      time: '03:30',
      offset: 'UTC+05:30',
    });
  });
});
