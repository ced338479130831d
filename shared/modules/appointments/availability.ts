/**
 * Free start times and the booking check (docs/domain.md "Booking rules"), pure: the caller reads
 * the config, the allowed doors and their bookings, and holds the lock; nothing here does I/O.
 *
 * A start is free when
 * - it is on the slot grid: its yard-local wall clock is a multiple of slotMinutes after midnight
 *   (a fall-back day's repeated hour is on the grid twice, with different offsets; a spring-forward
 *   gap has no starts);
 * - the whole [start, end) lies within one opening window: the day's spans as instants, closed
 *   dates left out, spans that touch or overlap joined (also across midnight);
 * - start >= now + leadTimeMinMinutes, and its yard-local date is at most leadTimeMaxDays calendar
 *   days after today's;
 * - some allowed door would at no instant of [start, end) hold more than its capacity (half-open).
 * An override (office staff, with a reason) skips the grid, hours, closed dates and lead time,
 * never capacity; the allowed doors are the caller's `doors` (with an override, pass every door).
 *
 * Times are epoch milliseconds; dates are yard-local YYYY-MM-DD.
 */

import { DoorLoad, type Interval, type Intervals } from './door-load.js';
import { inDoorOrder } from './door-order.js';
import type { SchedulingConfigOutT } from './schema.js';
import {
  dateOfDayNumber,
  dayNumber,
  isoWeekday,
  wallMinutes,
  type YardClock,
  yardClock,
} from './wall-clock.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

export type BookingRules = Pick<
  SchedulingConfigOutT,
  'openHours' | 'closedDates' | 'slotMinutes' | 'leadTimeMinMinutes' | 'leadTimeMaxDays'
> & { timeZone: string };

/** An allowed door with the bookings that hold its capacity (scheduled, arrived, docked). */
export interface DoorBookings {
  id: string;
  name: string;
  capacity: number;
  bookings: Intervals;
}

export interface AvailabilityInput {
  rules: BookingRules;
  durationMinutes: number;
  doors: readonly DoorBookings[];
  now: number;
  /** Truthy (a boolean, or the request's `{reason}`): book outside the rules, never over capacity. */
  override?: boolean | { reason: string } | null;
}

export interface Slot {
  startAt: number;
  endAt: number;
  /** Allowed doors free for the whole slot, in door order. */
  doors: { id: string; name: string }[];
}

/** Why a start cannot be booked; `slot-taken` is the capacity rule (409), the rest are 400s. */
export type NotBookable =
  | 'off-grid'
  | 'closed-date'
  | 'outside-hours'
  | 'lead-time-min'
  | 'lead-time-max'
  | 'door-not-allowed'
  | 'slot-taken';

export type StartCheck =
  | { ok: true; doorId: string }
  /** reason: a stable code; message: the same in words for the person booking; field: the request field at fault. */
  | { ok: false; reason: NotBookable; message: string; field: 'startAt' | 'doorId' };

/** Free start times of the yard-local dates fromDate..toDate (inclusive), ascending. */
export function freeSlots(input: AvailabilityInput & { fromDate: string; toDate: string }): Slot[] {
  const { rules, now } = input;
  const clock = yardClock(rules.timeZone);
  const override = Boolean(input.override);
  const duration = input.durationMinutes * MINUTE;
  const first = dayNumber(input.fromDate);
  let last = dayNumber(input.toDate);
  const earliest = override ? Number.NEGATIVE_INFINITY : now + rules.leadTimeMinMinutes * MINUTE;
  if (!override) last = Math.min(last, clock.dayOf(now) + rules.leadTimeMaxDays);
  if (last < first) return [];
  // A slot may run past its date's end: a day-long duration across a 23-hour day reaches two dates on.
  const windows = override ? null : openWindows(clock, rules, first, last + 2);
  const doors = inDoorOrder(input.doors).map((d) => ({
    door: { id: d.id, name: d.name },
    d,
    load: new DoorLoad(d.bookings),
  }));
  const slots: Slot[] = [];
  // A month is thousands of candidate starts: nothing below allocates for a start that is not free
  // (the garbage cost an edge's small young generation more than the search itself).
  const consider = (startAt: number, into: Slot[]) => {
    if (startAt < earliest) return;
    const endAt = startAt + duration;
    if (windows && !withinWindows(windows, startAt, endAt)) return;
    let free: Slot['doors'] | null = null;
    for (const x of doors) {
      if (x.load.peak(startAt, endAt) >= x.d.capacity) continue;
      if (free) free.push(x.door);
      else free = [x.door];
    }
    if (free) into.push({ startAt, endAt, doors: free });
  };
  for (let day = first; day <= last; day++) {
    const uniform = clock.uniformOffset(day);
    if (uniform !== null) {
      // No offset change near this date: one instant per wall time, already in time order.
      for (let minute = 0; minute < 1440; minute += rules.slotMinutes) {
        consider(day * DAY + (minute - uniform) * MINUTE, slots);
      }
      continue;
    }
    const daySlots: Slot[] = [];
    for (let minute = 0; minute < 1440; minute += rules.slotMinutes) {
      for (const startAt of clock.instants(day, minute)) consider(startAt, daySlots);
    }
    // The repeated hour of a fall-back day comes twice per wall time: put the slots in time order.
    daySlots.sort((a, b) => a.startAt - b.startAt);
    for (const s of daySlots) slots.push(s);
  }
  return slots;
}

/** May a booking start at startAt (at doorId, else at the first free allowed door in door order)? */
export function checkStart(
  input: AvailabilityInput & { startAt: number; doorId?: string | null },
): StartCheck {
  const { rules, now, startAt } = input;
  const endAt = startAt + input.durationMinutes * MINUTE;
  if (!input.override) {
    const clock = yardClock(rules.timeZone);
    const wall = clock.wallOf(startAt);
    if (!Number.isInteger(wall) || wall % rules.slotMinutes !== 0) {
      return notBookable('off-grid', `Start times are every ${rules.slotMinutes} minutes from midnight.`);
    }
    const day = clock.dayOf(startAt);
    if (rules.closedDates.includes(dateOfDayNumber(day))) {
      return notBookable('closed-date', `The yard is closed on ${dateOfDayNumber(day)}.`);
    }
    if (!withinWindows(openWindows(clock, rules, day, day + 2), startAt, endAt)) {
      return notBookable('outside-hours', 'The whole appointment must fall within the opening hours.');
    }
    if (startAt < now + rules.leadTimeMinMinutes * MINUTE) {
      return notBookable('lead-time-min', `Book at least ${words(rules.leadTimeMinMinutes)} ahead.`);
    }
    if (day > clock.dayOf(now) + rules.leadTimeMaxDays) {
      return notBookable('lead-time-max', `Book at most ${rules.leadTimeMaxDays} days ahead.`);
    }
  }
  let doors = inDoorOrder(input.doors);
  if (input.doorId != null) {
    doors = doors.filter((d) => d.id === input.doorId);
    if (doors.length === 0) {
      return {
        ok: false,
        reason: 'door-not-allowed',
        message: 'This load type cannot use that door.',
        field: 'doorId',
      };
    }
  }
  for (const d of doors) {
    if (new DoorLoad(d.bookings).peak(startAt, endAt) < d.capacity) return { ok: true, doorId: d.id };
  }
  return notBookable(
    'slot-taken',
    input.doorId != null ? 'That door is fully booked at that time.' : 'No door is free for the whole time.',
  );
}

/**
 * The yard-local dates a booking of [startAt, endAt) touches, in order: the days whose lock a
 * booking takes (one across midnight takes both). Half-open: ending at midnight touches one date.
 */
export function lockDays(startAt: number, endAt: number, timeZone: string): string[] {
  const clock = yardClock(timeZone);
  const first = clock.dayOf(startAt);
  const last = clock.dayOf(Math.max(startAt, endAt - 1));
  const days: string[] = [];
  for (let d = first; d <= last; d++) days.push(dateOfDayNumber(d));
  return days;
}

/** Opening windows of local days first..last as instants: closed dates out, touching spans joined. */
function openWindows(clock: YardClock, rules: BookingRules, first: number, last: number): Interval[] {
  const closed = new Set(rules.closedDates);
  const spans: Interval[] = [];
  for (let day = first; day <= last; day++) {
    if (closed.has(dateOfDayNumber(day))) continue;
    const daySpans = rules.openHours[String(isoWeekday(day)) as keyof BookingRules['openHours']] ?? [];
    for (const span of daySpans) {
      const from = wallMinutes(span.from);
      const to = wallMinutes(span.to);
      // An overnight opening is two spans that touch at midnight; a span that ends before it starts is empty.
      if (to <= from) continue;
      spans.push({ startAt: clock.boundary(day, from, 'from'), endAt: clock.boundary(day, to, 'to') });
    }
  }
  spans.sort((a, b) => a.startAt - b.startAt);
  const joined: Interval[] = [];
  for (const s of spans) {
    const prev = joined[joined.length - 1];
    if (prev && s.startAt <= prev.endAt) prev.endAt = Math.max(prev.endAt, s.endAt);
    else joined.push({ ...s });
  }
  return joined;
}

/** Is [startAt, endAt) inside one window? Windows are sorted and disjoint. */
function withinWindows(windows: readonly Interval[], startAt: number, endAt: number): boolean {
  let lo = 0;
  let hi = windows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((windows[mid] as Interval).startAt <= startAt) lo = mid + 1;
    else hi = mid;
  }
  const w = windows[lo - 1];
  return w !== undefined && endAt <= w.endAt;
}

function notBookable(reason: NotBookable, message: string): StartCheck {
  return { ok: false, reason, message, field: 'startAt' };
}

function words(minutes: number): string {
  if (minutes % 60 !== 0) return `${minutes} minutes`;
  return minutes === 60 ? '1 hour' : `${minutes / 60} hours`;
}
