import { describe, expect, it } from 'vitest';
import {
  dayBounds,
  dayFrame,
  keyMove,
  placeBlocks,
  pointerSpot,
  ROW_PX,
} from '../../../shared/ui/dashboard/appointments/schedule-layout';
import { freeTimesText, statusText } from '../../../shared/ui/dashboard/appointments/schedule-words';

/**
 * The dock schedule's geometry (docs/web-apps.md "Dock schedule"): the yard-local day with its
 * real length on DST days, the rows the grid shows, blocks side by side in a door of capacity 2
 * (half-open intervals), and where keys and the pointer move a block. Hand-worked vectors in
 * Europe/Berlin (CET +01:00, CEST +02:00; 2026-03-29 springs forward, 2026-10-25 falls back).
 */
const TZ = 'Europe/Berlin';
const MIN = 60_000;
const HOUR = 60 * MIN;
const at = (iso: string) => Date.parse(iso);
const weekdays = { '1': [{ from: '06:00', to: '18:00' }], '7': [{ from: '00:00', to: '24:00' }] };

describe('dock schedule: the day', () => {
  it('a day runs from yard-local midnight to the next; 23 h on spring-forward, 25 h on fall-back', () => {
    expect(dayBounds('2026-03-02', TZ)).toEqual({
      start: at('2026-03-01T23:00:00Z'),
      end: at('2026-03-02T23:00:00Z'),
    });
    const spring = dayBounds('2026-03-29', TZ);
    expect(spring.end - spring.start).toBe(23 * HOUR);
    const fall = dayBounds('2026-10-25', TZ);
    expect(fall.end - fall.start).toBe(25 * HOUR);
  });

  it('shows the opening hours of the weekday, one row per slot, hours marked', () => {
    // 2026-03-02 is a Monday: 06:00-18:00 local = 05:00Z-17:00Z.
    const f = dayFrame({
      date: '2026-03-02',
      timeZone: TZ,
      slotMinutes: 15,
      openHours: weekdays,
      appointments: [],
    });
    expect(f.start).toBe(at('2026-03-02T05:00:00Z'));
    expect(f.end).toBe(at('2026-03-02T17:00:00Z'));
    expect(f.rows).toHaveLength(48);
    expect(f.rows.filter((r) => r.hour)).toHaveLength(12);
    expect(f.rows[1]?.at).toBe(at('2026-03-02T05:15:00Z'));
  });

  it('widens to whole hours around an appointment outside the opening hours', () => {
    const f = dayFrame({
      date: '2026-03-02',
      timeZone: TZ,
      slotMinutes: 30,
      openHours: weekdays,
      appointments: [{ startAt: '2026-03-02T17:30:00Z', endAt: '2026-03-02T18:15:00Z' }],
    });
    expect(f.start).toBe(at('2026-03-02T05:00:00Z'));
    expect(f.end).toBe(at('2026-03-02T19:00:00Z')); // 20:00 local
    expect(f.rows).toHaveLength(28);
  });

  it('a closed date or closed weekday without appointments shows 06:00 to 18:00', () => {
    const closed = dayFrame({
      date: '2026-03-02',
      timeZone: TZ,
      slotMinutes: 60,
      openHours: weekdays,
      closedDates: ['2026-03-02'],
      appointments: [],
    });
    expect([closed.start, closed.end]).toEqual([at('2026-03-02T05:00:00Z'), at('2026-03-02T17:00:00Z')]);
    const tuesday = dayFrame({
      date: '2026-03-03',
      timeZone: TZ,
      slotMinutes: 60,
      openHours: weekdays,
      appointments: [],
    });
    expect(tuesday.rows).toHaveLength(12);
  });

  it('a fall-back Sunday open all day has 25 hours of rows, the repeated hour twice', () => {
    const f = dayFrame({
      date: '2026-10-25',
      timeZone: TZ,
      slotMinutes: 60,
      openHours: weekdays,
      appointments: [],
    });
    expect(f.rows).toHaveLength(25);
    const labels = f.rows.map((r) => r.label);
    expect(labels.filter((l) => l === labels[2])).toHaveLength(2); // 02:00 CEST and 02:00 CET
    const spring = dayFrame({
      date: '2026-03-29',
      timeZone: TZ,
      slotMinutes: 60,
      openHours: weekdays,
      appointments: [],
    });
    expect(spring.rows).toHaveLength(23);
  });
});

describe('dock schedule: blocks', () => {
  const f = dayFrame({
    date: '2026-03-02',
    timeZone: TZ,
    slotMinutes: 15,
    openHours: weekdays,
    appointments: [],
  });
  const doors = [
    { id: 'd1', capacity: 1 },
    { id: 'd2', capacity: 2 },
  ];
  const appt = (id: string, doorId: string, from: string, to: string) => ({
    id,
    doorId,
    startAt: `2026-03-02T${from}:00Z`,
    endAt: `2026-03-02T${to}:00Z`,
  });

  it('places a block by its times: top and height from the frame start, in slot rows', () => {
    const [b] = placeBlocks(f, doors, [appt('a', 'd1', '06:00', '07:00')]);
    // 06:00Z is 07:00 local: 4 slots below 06:00 local; an hour is 4 rows.
    expect(b).toMatchObject({ door: 0, lane: 0, lanes: 1, top: 4 * ROW_PX, height: 4 * ROW_PX });
  });

  it('overlapping bookings at a door of capacity 2 sit side by side; one ending at a start shares the lane', () => {
    const blocks = placeBlocks(f, doors, [
      appt('a', 'd2', '06:00', '07:00'),
      appt('b', 'd2', '06:30', '07:30'),
      appt('c', 'd2', '07:00', '08:00'),
      appt('x', 'gone', '06:00', '07:00'),
    ]);
    const lane = Object.fromEntries(blocks.map((b) => [b.item.id, [b.door, b.lane, b.lanes]]));
    expect(lane).toEqual({ a: [1, 0, 2], b: [1, 1, 2], c: [1, 0, 2] });
  });
});

describe('dock schedule: moving a block', () => {
  const f = dayFrame({
    date: '2026-03-02',
    timeZone: TZ,
    slotMinutes: 15,
    openHours: weekdays,
    appointments: [],
  });
  const from = { startAt: at('2026-03-02T08:00:00Z'), door: 1 };

  it('arrows move a slot or a door, Page Up/Down an hour; other keys are no move', () => {
    expect(keyMove('ArrowDown', from, HOUR, f, 3)).toEqual({ startAt: from.startAt + 15 * MIN, door: 1 });
    expect(keyMove('ArrowUp', from, HOUR, f, 3)).toEqual({ startAt: from.startAt - 15 * MIN, door: 1 });
    expect(keyMove('PageDown', from, HOUR, f, 3)).toEqual({ startAt: from.startAt + HOUR, door: 1 });
    expect(keyMove('ArrowRight', from, HOUR, f, 3)).toEqual({ startAt: from.startAt, door: 2 });
    expect(keyMove('ArrowLeft', from, HOUR, f, 3)).toEqual({ startAt: from.startAt, door: 0 });
    expect(keyMove('Enter', from, HOUR, f, 3)).toBeNull();
  });

  it('stays within the doors and the shown hours', () => {
    expect(keyMove('ArrowRight', { ...from, door: 2 }, HOUR, f, 3)?.door).toBe(2);
    expect(keyMove('ArrowLeft', { ...from, door: 0 }, HOUR, f, 3)?.door).toBe(0);
    expect(keyMove('ArrowUp', { startAt: f.start, door: 0 }, HOUR, f, 3)?.startAt).toBe(f.start);
    // A 1 h block ends at the last shown hour at the latest (18:00 local).
    expect(keyMove('PageDown', { startAt: f.end - HOUR, door: 0 }, HOUR, f, 3)?.startAt).toBe(f.end - HOUR);
  });

  it('a drag lands on the nearest slot and the column under the pointer', () => {
    // 10 rows and a bit below the top: 10 slots after 06:00 local = 08:30 local = 07:30Z.
    const s = pointerSpot(10 * ROW_PX + 5, 250, 120, HOUR, f, 3);
    expect(s).toEqual({ startAt: at('2026-03-02T07:30:00Z'), door: 2 });
    expect(pointerSpot(-50, -10, 120, HOUR, f, 3)).toEqual({ startAt: f.start, door: 0 });
  });
});

describe('dock schedule: words', () => {
  it('says the status in words, with the arrival and the cloud’s overdue', () => {
    expect(statusText({ status: 'arrived', arrival: 'late', overdue: false })).toBe('Arrived late');
    expect(statusText({ status: 'docked', arrival: 'on_time', overdue: false })).toBe('At the door');
    expect(statusText({ status: 'scheduled', arrival: null, overdue: true })).toBe('Overdue, site offline');
    expect(statusText({ status: 'no_show', arrival: null, overdue: false })).toBe('No-show');
  });

  it('lists the free times of a slot-taken answer in the yard’s zone', () => {
    const text = freeTimesText(['2026-03-02T08:00:00Z', '2026-03-02T08:15:00Z'], 'UTC');
    expect(text).toMatch(/^Still free that day: 08:00( AM)?, 08:15( AM)?\.$/);
    expect(freeTimesText([], 'UTC')).toMatch(/No time is free/);
    const many = Array.from({ length: 10 }, (_, i) =>
      new Date(at('2026-03-02T08:00:00Z') + i * HOUR).toISOString(),
    );
    expect(freeTimesText(many, 'UTC')).toMatch(/, and 2 more\.$/);
  });
});
