import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { yardClock } from '../../../shared/modules/appointments/wall-clock.js';

/**
 * The fast ISO formatting of availability answers (wall-clock.ts YardClock.iso) against luxon as
 * the reference, every 7 minutes across days with a DST change (and a half-hour zone, a zone whose
 * offset is 0 in winter, one that does not change), plus the hand-written instants of the
 * fall-back repeated hour.
 */
describe('YardClock.iso', () => {
  it('writes the fall-back repeated hour with each of its offsets', () => {
    const clock = yardClock('America/Chicago');
    // 2026-11-01 02:00 CDT -> 01:00 CST: 06:30Z is 01:30-05:00, 07:30Z is 01:30-06:00.
    expect(clock.iso(Date.parse('2026-11-01T06:30:00Z'))).toBe('2026-11-01T01:30:00-05:00');
    expect(clock.iso(Date.parse('2026-11-01T07:30:00Z'))).toBe('2026-11-01T01:30:00-06:00');
    expect(clock.iso(Date.parse('2026-11-01T07:30:00.250Z'))).toBe('2026-11-01T01:30:00.250-06:00');
  });

  it.each([
    ['America/Chicago', '2026-03-07'],
    ['America/Chicago', '2026-10-31'],
    ['Europe/Berlin', '2026-10-24'],
    ['Europe/London', '2027-03-27'],
    ['Australia/Lord_Howe', '2026-10-03'],
    ['Asia/Kolkata', '2026-06-01'],
  ])('agrees with luxon in %s around %s', (zone, date) => {
    const clock = yardClock(zone);
    const start = Date.parse(`${date}T00:00:00Z`);
    for (let t = start; t < start + 3 * 86_400_000; t += 7 * 60_000) {
      expect(clock.iso(t)).toBe(DateTime.fromMillis(t, { zone }).toISO({ suppressMilliseconds: true }));
    }
  });
});
