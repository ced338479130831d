import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../../../shared/http/errors.js';
import { arrivalOf } from '../../../shared/modules/appointments/arrivals.js';
import { handChange, normalCode } from '../../../shared/modules/appointments/gate-service.js';

/** docs/domain.md "Appointments": the arrival class and what staff may set by hand. */
const START = Date.parse('2026-01-15T15:00:00Z');
const min = (n: number) => n * 60_000;

describe('arrivalOf (lateGraceMinutes 15)', () => {
  it.each([
    [-16, 'early'],
    [-15, 'on_time'],
    [0, 'on_time'],
    [15, 'on_time'],
    [16, 'late'],
  ] as const)('%i minutes from the start: %s', (offset, arrival) => {
    expect(arrivalOf(START + min(offset), START, 15)).toBe(arrival);
  });

  it('one millisecond past the grace either way', () => {
    expect(arrivalOf(START - min(15) - 1, START, 15)).toBe('early');
    expect(arrivalOf(START + min(15) + 1, START, 15)).toBe('late');
  });

  it('a grace of 0: only the exact start is on time', () => {
    expect(arrivalOf(START, START, 0)).toBe('on_time');
    expect(arrivalOf(START + 1, START, 0)).toBe('late');
    expect(arrivalOf(START - 1, START, 0)).toBe('early');
  });

  it('a no-show that comes is late whatever the clock says', () => {
    expect(arrivalOf(START - min(30), START, 15, true)).toBe('late');
    expect(arrivalOf(START, START, 15, true)).toBe('late');
  });
});

describe('handChange', () => {
  const NOW = 1_000;
  it('docked from arrived; completed from arrived or docked; scheduled from a no-show', () => {
    expect(handChange('arrived', 'docked', NOW)).toEqual({ kind: 'docked', patch: { dockedAt: NOW } });
    expect(handChange('arrived', 'completed', NOW)).toEqual({
      kind: 'completed',
      patch: { completedAt: NOW },
    });
    expect(handChange('docked', 'completed', NOW)).toEqual({
      kind: 'completed',
      patch: { completedAt: NOW },
    });
    expect(handChange('no_show', 'scheduled', NOW)).toEqual({
      kind: 'no_show_undone',
      patch: { noShowAt: null },
    });
  });

  it.each([
    ['scheduled', 'docked'],
    ['docked', 'docked'],
    ['no_show', 'docked'],
    ['completed', 'docked'],
    ['cancelled', 'docked'],
    ['scheduled', 'completed'],
    ['no_show', 'completed'],
    ['completed', 'completed'],
    ['cancelled', 'completed'],
    ['scheduled', 'scheduled'],
    ['arrived', 'scheduled'],
    ['docked', 'scheduled'],
    ['completed', 'scheduled'],
    ['cancelled', 'scheduled'],
  ] as const)('%s -> %s is refused (409 invalid-transition)', (from, to) => {
    expect(() => handChange(from, to, NOW)).toThrow(InvalidTransitionError);
  });
});

describe('normalCode', () => {
  it('upper case, without spaces or dashes', () => {
    expect(normalCode(' k7m4-qx2p ')).toBe('K7M4QX2P');
    expect(normalCode('K7M4 QX2P')).toBe('K7M4QX2P');
  });
});
