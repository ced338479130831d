import { describe, expect, it } from 'vitest';
import {
  asMinutes,
  clockStart,
  type DetentionTimes,
  detentionFigures,
  detentionOf,
  turnOf,
  waitOf,
} from '../../../shared/modules/appointments/detention.js';

/**
 * Wait and detention (docs/domain.md "Appointments", "Wait and detention"), each vector worked out
 * by hand before the code ran. Free time 120 minutes unless said. Times on 2 March 2026, UTC:
 *   clock start = startAt (early, on time) or arrivedAt (late)
 *   wait = max(0, docked - clock start); turn = departed - arrived;
 *   detention = max(0, departed - clock start - free time)
 */
const at = (hhmm: string) => Date.parse(`2026-03-02T${hhmm}:00Z`);
const MIN = 60_000;

function appt(
  start: string,
  arrived: string | null,
  arrival: DetentionTimes['arrival'],
  docked: string | null,
  departed: string | null,
): DetentionTimes {
  return {
    startAt: at(start),
    arrivedAt: arrived === null ? null : at(arrived),
    arrival,
    dockedAt: docked === null ? null : at(docked),
    departedAt: departed === null ? null : at(departed),
  };
}

describe('wait, turn and detention: hand-worked vectors', () => {
  it('1. early: the clock starts at the booked time, not at the arrival', () => {
    // start 10:00, arrived 09:30 (early), docked 10:20, departed 12:50.
    // clock start 10:00; wait 10:20 - 10:00 = 20 min; turn 12:50 - 09:30 = 200 min;
    // detention 12:50 - 10:00 = 170 min - 120 = 50 min.
    const a = appt('10:00', '09:30', 'early', '10:20', '12:50');
    expect(detentionFigures(a, 120)).toEqual({
      clockStart: at('10:00'),
      wait: 20 * MIN,
      turn: 200 * MIN,
      detention: 50 * MIN,
    });
  });

  it('2. on time within the grace, docked before the booked time: wait is 0, detention 0', () => {
    // start 10:00, arrived 09:50 (on time: within the grace), docked 09:55, departed 11:30.
    // clock start 10:00; wait max(0, 09:55 - 10:00 = -5) = 0; turn 11:30 - 09:50 = 100 min;
    // detention max(0, 90 - 120) = 0.
    const a = appt('10:00', '09:50', 'on_time', '09:55', '11:30');
    expect(detentionFigures(a, 120)).toEqual({
      clockStart: at('10:00'),
      wait: 0,
      turn: 100 * MIN,
      detention: 0,
    });
  });

  it('3. late: the clock starts at the arrival', () => {
    // start 10:00, arrived 10:40 (late), docked 11:25, departed 13:10.
    // clock start 10:40; wait 45 min; turn 13:10 - 10:40 = 150 min; detention 150 - 120 = 30 min.
    const a = appt('10:00', '10:40', 'late', '11:25', '13:10');
    expect(detentionFigures(a, 120)).toEqual({
      clockStart: at('10:40'),
      wait: 45 * MIN,
      turn: 150 * MIN,
      detention: 30 * MIN,
    });
  });

  it('4. a no-show that came later is late: its clock starts at the arrival', () => {
    // start 08:00, marked no-show 09:00, arrived 09:30 (late), docked 09:35, departed 12:00.
    // clock start 09:30; wait 5 min; turn 150 min; detention 150 - 120 = 30 min.
    const a = appt('08:00', '09:30', 'late', '09:35', '12:00');
    expect(detentionFigures(a, 120)).toEqual({
      clockStart: at('09:30'),
      wait: 5 * MIN,
      turn: 150 * MIN,
      detention: 30 * MIN,
    });
  });

  it('5. what has not happened yet is null, not zero', () => {
    // Arrived on time 10:05, not docked, not departed: clock start 10:00, nothing else.
    expect(detentionFigures(appt('10:00', '10:05', 'on_time', null, null), 120)).toEqual({
      clockStart: at('10:00'),
      wait: null,
      turn: null,
      detention: null,
    });
    // Not arrived at all: no clock start, so no figure (a stray docked time changes nothing).
    expect(detentionFigures(appt('10:00', null, null, '10:30', '11:00'), 120)).toEqual({
      clockStart: null,
      wait: null,
      turn: null,
      detention: null,
    });
  });

  it('6. departed without docking: no wait, but turn and detention', () => {
    // start 10:00, arrived 10:00 (on time), departed 12:30: turn 150; detention 150 - 120 = 30.
    const a = appt('10:00', '10:00', 'on_time', null, '12:30');
    expect([waitOf(a), turnOf(a), detentionOf(a, 120)]).toEqual([null, 150 * MIN, 30 * MIN]);
  });

  it('7. detention begins after exactly the free time: at it 0, one second past it 1 s', () => {
    // late arrival 10:30 (clock start), departed 12:30: 120 min - 120 = 0.
    const a = appt('10:00', '10:30', 'late', '10:31', '12:30');
    expect(detentionOf(a, 120)).toBe(0);
    expect(detentionOf({ ...a, departedAt: at('12:30') + 1000 }, 120)).toBe(1000);
    // The free time is the yard's: 0 free minutes bills all 120.
    expect(detentionOf(a, 0)).toBe(120 * MIN);
    // 90 free minutes: 30 min.
    expect(detentionOf(a, 90)).toBe(30 * MIN);
  });

  it('8. the clock start follows the recorded class only', () => {
    // An early truck's clock: the booked 10:00; a late one's: its arrival 10:20.
    expect(clockStart({ startAt: at('10:00'), arrivedAt: at('09:00'), arrival: 'early' })).toBe(at('10:00'));
    expect(clockStart({ startAt: at('10:00'), arrivedAt: at('10:20'), arrival: 'late' })).toBe(at('10:20'));
    expect(clockStart({ startAt: at('10:00'), arrivedAt: null, arrival: null })).toBeNull();
  });

  it('9. minutes for people: two decimals, null stays null', () => {
    // 61.5 s = 1.025 min -> 1.03 (102.5 hundredths rounds up); 45 min = 45; 20 s = 0.33.
    expect([asMinutes(61_500), asMinutes(45 * MIN), asMinutes(20_000), asMinutes(null)]).toEqual([
      1.03,
      45,
      0.33,
      null,
    ]);
  });
});
