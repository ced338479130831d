import { describe, expect, it, vi } from 'vitest';
import { dayStart, duration, yardTime, yardToday } from '../../../shared/ui/common/time';
import { todayIn } from '../../../shared/ui/dashboard/appointments/schedule-layout';
import { currentPeriod } from '../../../shared/ui/dashboard/billing/period';
import { yardDay } from '../../../shared/ui/gate/appointments/data';

describe('times in the yard time zone', () => {
  it('shows the clock of the yard, not of the browser, across a DST change', () => {
    // 2026-03-08 is the spring-forward day in Chicago (02:00 CST -> 03:00 CDT):
    // 07:59Z is 01:59 CST (UTC-6), 08:30Z is 03:30 CDT (UTC-5).
    const now = Date.parse('2026-03-08T18:00:00Z');
    expect(yardTime('2026-03-08T07:59:00Z', 'America/Chicago', now)).toMatch(/01:59/);
    expect(yardTime('2026-03-08T08:30:00Z', 'America/Chicago', now)).toMatch(/03:30/);
    // The same instant in Berlin (UTC+1 in March before its own change) is 09:30.
    expect(yardTime('2026-03-08T08:30:00Z', 'Europe/Berlin', now)).toMatch(/09:30/);
  });

  it('adds the day when it is not today in the yard', () => {
    // 2026-11-23T23:30Z is already 24 Nov 12:30 in Auckland (UTC+13): "today" is the yard's day.
    const now = Date.parse('2026-11-23T23:40:00Z');
    expect(yardTime('2026-11-23T23:30:00Z', 'Pacific/Auckland', now)).toMatch(/^12:30|^\d\d:30/);
    expect(yardTime('2026-11-22T23:30:00Z', 'Pacific/Auckland', now)).toMatch(/23/);
    expect(yardTime(null, 'UTC')).toBe('');
    expect(yardTime('not a time', 'UTC')).toBe('');
  });

  it('says dwell as people do', () => {
    expect(duration(0)).toBe('0 min');
    expect(duration(59_999)).toBe('0 min');
    expect(duration(45 * 60_000)).toBe('45 min');
    expect(duration((3 * 60 + 20) * 60_000)).toBe('3 h 20 min');
    expect(duration(47 * 3_600_000 + 59 * 60_000)).toBe('47 h 59 min');
    expect(duration((2 * 24 + 4) * 3_600_000)).toBe('2 d 4 h');
    expect(duration(-5)).toBe('0 min');
  });
});

describe("today in the yard's zone, the one rule of every web app", () => {
  it('a yard west of UTC: just after its midnight it is the new day there, UTC is hours ahead', () => {
    // 00:05 CST (UTC-6) on 15 January is 06:05 UTC; a minute before midnight it is still the 14th.
    expect(yardToday('America/Chicago', Date.parse('2026-01-15T06:05:00Z'))).toBe('2026-01-15');
    expect(yardToday('America/Chicago', Date.parse('2026-01-15T05:59:00Z'))).toBe('2026-01-14');
    // 23:30 in Chicago on the 14th: UTC is already on the 15th, the yard is not.
    expect(yardToday('America/Chicago', Date.parse('2026-01-15T05:30:00Z'))).toBe('2026-01-14');
  });

  it('a yard east of UTC: just after its midnight it is the new day there while UTC is still yesterday', () => {
    // 00:05 JST (UTC+9) on 15 January is 15:05 UTC on the 14th.
    expect(yardToday('Asia/Tokyo', Date.parse('2026-01-14T15:05:00Z'))).toBe('2026-01-15');
    expect(yardToday('Asia/Tokyo', Date.parse('2026-01-14T14:59:00Z'))).toBe('2026-01-14');
    // Half-hour and 13-hour offsets: 00:01 IST is 18:31 UTC; 00:01 NZDT is 11:01 UTC the day before.
    expect(yardToday('Asia/Kolkata', Date.parse('2026-07-14T18:31:00Z'))).toBe('2026-07-15');
    expect(yardToday('Asia/Kolkata', Date.parse('2026-07-14T18:29:00Z'))).toBe('2026-07-14');
    expect(yardToday('Pacific/Auckland', Date.parse('2026-01-14T11:01:00Z'))).toBe('2026-01-15');
  });

  it('on DST days the midnight that counts is the one of that day’s offset', () => {
    // Chicago springs forward on 8 March 2026 at 02:00, so its midnight is still CST: 06:00 UTC.
    expect(yardToday('America/Chicago', Date.parse('2026-03-08T06:00:00Z'))).toBe('2026-03-08');
    // The day after is CDT: midnight is 05:00 UTC, 05:30 UTC is already the 9th.
    expect(yardToday('America/Chicago', Date.parse('2026-03-09T05:30:00Z'))).toBe('2026-03-09');
    expect(yardToday('America/Chicago', Date.parse('2026-03-09T04:59:00Z'))).toBe('2026-03-08');
    expect(dayStart('2026-03-09', 'America/Chicago')).toBe(Date.parse('2026-03-09T05:00:00Z'));
    expect(dayStart('2026-11-01', 'America/Chicago')).toBe(Date.parse('2026-11-01T05:00:00Z'));
    expect(dayStart('2026-11-02', 'America/Chicago')).toBe(Date.parse('2026-11-02T06:00:00Z'));
  });

  it("does not depend on the browser's own zone", () => {
    // Node reads TZ afresh when it is set, as a browser in another zone would be.
    vi.stubEnv('TZ', 'Pacific/Kiritimati'); // UTC+14: a browser a day ahead of most yards
    try {
      expect(yardToday('America/Chicago', Date.parse('2026-01-15T05:59:00Z'))).toBe('2026-01-14');
      expect(yardToday('UTC', Date.parse('2026-01-15T23:59:59Z'))).toBe('2026-01-15');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('every screen that shows "today" or a yard day takes it from here', () => {
    const at = Date.parse('2026-01-14T15:05:00Z');
    expect(yardDay('Asia/Tokyo', at)).toEqual({
      date: '2026-01-15',
      from: Date.parse('2026-01-14T15:00:00Z'),
      to: Date.parse('2026-01-15T15:00:00Z'),
    });
    expect(todayIn('Asia/Tokyo', at)).toBe('2026-01-15');
    expect(currentPeriod('Asia/Tokyo', Date.parse('2026-01-31T15:05:00Z'))).toBe('2026-02');
    expect(currentPeriod('America/Chicago', Date.parse('2026-02-01T05:59:00Z'))).toBe('2026-01');
  });
});
