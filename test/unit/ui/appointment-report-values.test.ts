import { describe, expect, it } from 'vitest';
import {
  addDays,
  minutesText,
  percentText,
  periodOf,
  periodWindow,
  yardMidnight,
} from '../../../shared/ui/dashboard/appointments/report-values';

describe('the report period: yard-local dates in the address', () => {
  it('moves calendar dates by whole days across months, years and DST changes', () => {
    expect(addDays('2026-03-08', 1)).toBe('2026-03-09');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
  });

  it('defaults to the last seven days up to today, keeps a given period, swaps a reversed one', () => {
    expect(periodOf({}, '2026-11-28')).toEqual({ from: '2026-11-22', to: '2026-11-28' });
    expect(periodOf({ from: '2026-11-01', to: '2026-11-15' }, '2026-11-28')).toEqual({
      from: '2026-11-01',
      to: '2026-11-15',
    });
    expect(periodOf({ from: '2026-11-15', to: '2026-11-01' }, '2026-11-28')).toEqual({
      from: '2026-11-01',
      to: '2026-11-15',
    });
    // Only a start: up to today; only an end: the seven days before it; nonsense is ignored.
    expect(periodOf({ from: '2026-11-20' }, '2026-11-28')).toEqual({ from: '2026-11-20', to: '2026-11-28' });
    expect(periodOf({ to: '2026-11-10' }, '2026-11-28')).toEqual({ from: '2026-11-04', to: '2026-11-10' });
    expect(periodOf({ from: 'yesterday', to: '2026-13' }, '2026-11-28')).toEqual({
      from: '2026-11-22',
      to: '2026-11-28',
    });
  });
});

describe('the period as the API’s window: from the yard’s midnight of the first day to the one after the last', () => {
  it('finds a yard-local midnight on ordinary and DST-change days', () => {
    expect(yardMidnight('2026-11-28', 'America/Chicago')).toBe('2026-11-28T06:00:00.000Z');
    expect(yardMidnight('2026-11-28', 'Asia/Tokyo')).toBe('2026-11-27T15:00:00.000Z');
    // Spring forward on 8 March at 02:00: that day begins on CST, the next on CDT.
    expect(yardMidnight('2026-03-08', 'America/Chicago')).toBe('2026-03-08T06:00:00.000Z');
    expect(yardMidnight('2026-03-09', 'America/Chicago')).toBe('2026-03-09T05:00:00.000Z');
    // Fall back on 1 November: that day begins on CDT, the next on CST.
    expect(yardMidnight('2026-11-01', 'America/Chicago')).toBe('2026-11-01T05:00:00.000Z');
    expect(yardMidnight('2026-11-02', 'America/Chicago')).toBe('2026-11-02T06:00:00.000Z');
    expect(yardMidnight('2026-06-01', 'UTC')).toBe('2026-06-01T00:00:00.000Z');
    // East of UTC the first guess can land past the change: Auckland springs forward on 27 September
    // at 02:00, so that day begins on NZST (+12) although 00:00 UTC that day is already NZDT (+13).
    expect(yardMidnight('2026-09-27', 'Pacific/Auckland')).toBe('2026-09-26T12:00:00.000Z');
    expect(yardMidnight('2026-04-05', 'Pacific/Auckland')).toBe('2026-04-04T11:00:00.000Z');
  });

  it('includes the last day whole (the window is half-open)', () => {
    expect(periodWindow({ from: '2026-10-31', to: '2026-11-01' }, 'America/Chicago')).toEqual({
      from: '2026-10-31T05:00:00.000Z',
      to: '2026-11-02T06:00:00.000Z',
    });
  });
});

describe('figures in words', () => {
  it('says minutes and hours, and a dash when nothing was measured', () => {
    expect(minutesText(0)).toBe('0 min');
    expect(minutesText(45)).toBe('45 min');
    expect(minutesText(125)).toBe('2 h 05 min');
    expect(minutesText(59.6)).toBe('1 h 00 min');
    expect(minutesText(null)).toBe('–');
    expect(minutesText(undefined)).toBe('–');
  });

  it('says a percentage (0 to 100) whole', () => {
    expect(percentText(87.5)).toMatch(/^88\s?%$/);
    expect(percentText(100)).toMatch(/^100\s?%$/);
    expect(percentText(null)).toBe('–');
  });
});
