import { DateTime } from 'luxon';

/**
 * The dock schedule's geometry, without the DOM (docs/web-apps.md "Dock schedule"): which part of
 * a yard-local day the grid shows, its time rows, where each appointment's block sits (door
 * column, lane within the door, top and height), and where a keyboard or pointer move lands.
 * Times are epoch ms: a DST day has its real length and the repeated hour of a fall-back day is
 * two sets of rows, as the booking rules count it (docs/domain.md "Booking rules").
 */

/** Height of one slot row on screen, in px (the CSS grid uses the same). */
export const ROW_PX = 22;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface Span {
  from: string;
  to: string;
}

export interface Frame {
  /** Yard-local date, YYYY-MM-DD. */
  date: string;
  timeZone: string;
  /** The whole day: [dayStart, dayEnd). */
  dayStart: number;
  dayEnd: number;
  /** What the grid shows: [start, end), whole hours within the day. */
  start: number;
  end: number;
  slotMs: number;
  rows: { at: number; label: string; hour: boolean }[];
}

/** Yard-local midnight of `date` and of the next day (23 or 25 hours apart on DST days). */
export function dayBounds(date: string, timeZone: string): { start: number; end: number } {
  const start = DateTime.fromISO(date, { zone: timeZone }).startOf('day');
  return { start: start.toMillis(), end: start.plus({ days: 1 }).toMillis() };
}

/**
 * Today's yard-local date: the one rule of shared/ui/common/time.ts, under the name the dock
 * schedule's screen imports it by.
 */
export { yardToday as todayIn } from '../../common/time';

/** The date `days` calendar days from `date`. */
export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date).plus({ days }).toISODate() as string;
}

/** The instant of a yard-local wall-clock time of `date` ("14:30"), as ISO with the yard's offset. */
export function instantOf(date: string, hhmm: string, timeZone: string): string {
  return DateTime.fromISO(`${date}T${hhmm}`, { zone: timeZone }).toISO({
    suppressMilliseconds: true,
  }) as string;
}

/** A wall-clock time of `date` ("06:00", "24:00" = the next midnight) as epoch ms. */
function wallClock(date: string, hhmm: string, timeZone: string, dayEnd: number): number {
  if (hhmm === '24:00') return dayEnd;
  return DateTime.fromISO(`${date}T${hhmm}`, { zone: timeZone }).toMillis();
}

/**
 * The rows of the day: the opening spans of its weekday and every appointment shown, widened to
 * whole hours; a closed day without appointments shows 06:00 to 18:00.
 */
export function dayFrame(input: {
  date: string;
  timeZone: string;
  slotMinutes: number;
  /** ISO weekday "1".."7" -> spans (SchedulingConfig.openHours). */
  openHours: Partial<Record<string, Span[]>>;
  closedDates?: string[];
  appointments: { startAt: string; endAt: string }[];
}): Frame {
  const { date, timeZone } = input;
  const day = dayBounds(date, timeZone);
  const weekday = String(DateTime.fromISO(date).weekday);
  const closed = input.closedDates?.includes(date) ?? false;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const span of closed ? [] : (input.openHours[weekday] ?? [])) {
    lo = Math.min(lo, wallClock(date, span.from, timeZone, day.end));
    hi = Math.max(hi, wallClock(date, span.to, timeZone, day.end));
  }
  for (const a of input.appointments) {
    lo = Math.min(lo, Date.parse(a.startAt));
    hi = Math.max(hi, Date.parse(a.endAt));
  }
  if (!(lo < hi)) {
    lo = wallClock(date, '06:00', timeZone, day.end);
    hi = wallClock(date, '18:00', timeZone, day.end);
  }
  // Whole hours from midnight (every zone's offset is whole quarter hours, so this stays on the grid).
  const start = Math.max(day.start, day.start + Math.floor((lo - day.start) / HOUR) * HOUR);
  const end = Math.min(day.end, day.start + Math.ceil((hi - day.start) / HOUR) * HOUR);
  const slotMs = Math.max(5, input.slotMinutes) * MINUTE;
  const clock = new Intl.DateTimeFormat(undefined, { timeZone, hour: '2-digit', minute: '2-digit' });
  const rows: Frame['rows'] = [];
  for (let at = start; at < end; at += slotMs) {
    rows.push({ at, label: clock.format(at), hour: (at - day.start) % HOUR === 0 });
  }
  return { date, timeZone, dayStart: day.start, dayEnd: day.end, start, end, slotMs, rows };
}

export interface Block<T> {
  item: T;
  door: number;
  /** Lane within the door column (a door of capacity 2 shows two side by side). */
  lane: number;
  lanes: number;
  top: number;
  height: number;
}

/**
 * Places each appointment in its door's column: lanes by first-fit over start times (an interval
 * ending at another's start does not overlap: half-open, as the booking rules say), at least as
 * many lanes as the door's capacity. Appointments of unknown doors are left out.
 */
export function placeBlocks<T extends { doorId: string; startAt: string; endAt: string }>(
  frame: Frame,
  doors: { id: string; capacity: number }[],
  items: T[],
): Block<T>[] {
  const index = new Map(doors.map((d, i) => [d.id, i]));
  const byDoor = new Map<number, T[]>();
  for (const item of items) {
    const door = index.get(item.doorId);
    if (door === undefined) continue;
    const list = byDoor.get(door) ?? [];
    list.push(item);
    byDoor.set(door, list);
  }
  const out: Block<T>[] = [];
  for (const [door, list] of byDoor) {
    list.sort((a, b) => Date.parse(a.startAt) - Date.parse(b.startAt));
    const laneEnds: number[] = [];
    const placed: { item: T; lane: number }[] = [];
    for (const item of list) {
      const s = Date.parse(item.startAt);
      let lane = laneEnds.findIndex((end) => end <= s);
      if (lane < 0) lane = laneEnds.length;
      laneEnds[lane] = Date.parse(item.endAt);
      placed.push({ item, lane });
    }
    const lanes = Math.max(doors[door]?.capacity ?? 1, laneEnds.length, 1);
    for (const { item, lane } of placed) {
      out.push({ item, door, lane, lanes, ...verticalPlace(frame, item.startAt, item.endAt) });
    }
  }
  return out;
}

/** Top and height in px of [startAt, endAt) in the frame (clipped to what the grid shows). */
export function verticalPlace(frame: Frame, startAt: string | number, endAt: string | number) {
  const s = Math.max(frame.start, typeof startAt === 'number' ? startAt : Date.parse(startAt));
  const e = Math.min(frame.end, typeof endAt === 'number' ? endAt : Date.parse(endAt));
  const px = ROW_PX / frame.slotMs;
  return { top: Math.round((s - frame.start) * px), height: Math.max(ROW_PX / 2, Math.round((e - s) * px)) };
}

/** Where a block is (or is being moved to): start time and door column. */
export interface Spot {
  startAt: number;
  door: number;
}

/**
 * The spot a key moves a block to, or null when the key is not a move key: Up/Down one slot,
 * Page Up/Down one hour, Left/Right the neighbouring door. The block stays within the shown day.
 */
export function keyMove(
  key: string,
  from: Spot,
  durationMs: number,
  frame: Frame,
  doorCount: number,
): Spot | null {
  const step: Record<string, [number, number]> = {
    ArrowUp: [-frame.slotMs, 0],
    ArrowDown: [frame.slotMs, 0],
    PageUp: [-HOUR, 0],
    PageDown: [HOUR, 0],
    ArrowLeft: [0, -1],
    ArrowRight: [0, 1],
  };
  const move = step[key];
  if (!move) return null;
  const startAt = clampStart(from.startAt + move[0], durationMs, frame);
  const door = Math.min(doorCount - 1, Math.max(0, from.door + move[1]));
  return { startAt, door };
}

/** A start time kept on the day's grid and within the shown rows. */
function clampStart(at: number, durationMs: number, frame: Frame): number {
  const onGrid = frame.dayStart + Math.round((at - frame.dayStart) / frame.slotMs) * frame.slotMs;
  const last = Math.max(frame.start, frame.end - Math.min(durationMs, frame.end - frame.start));
  return Math.min(last, Math.max(frame.start, onGrid));
}

/**
 * The spot under the pointer while dragging: `dy` px from the grid's top edge to the block's
 * top, the column from `dx` px from the first door column's left edge.
 */
export function pointerSpot(
  dy: number,
  dx: number,
  columnPx: number,
  durationMs: number,
  frame: Frame,
  doorCount: number,
): Spot {
  const startAt = clampStart(frame.start + (dy / ROW_PX) * frame.slotMs, durationMs, frame);
  const door = Math.min(doorCount - 1, Math.max(0, Math.floor(dx / columnPx)));
  return { startAt, door };
}
