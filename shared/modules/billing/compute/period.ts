import { DateTime } from 'luxon';

/**
 * Billing periods (docs/domain.md "Billing"): a calendar month in the yard's IANA time zone,
 * written `YYYY-MM`. Every bound is an epoch ms instant; days are yard-local, so a DST day lasts
 * 23 or 25 hours. Nothing here reads a clock: `now` comes in.
 */

export interface Period {
  /** `YYYY-MM`, as written. */
  text: string;
  year: number;
  /** 1..12 */
  month: number;
}

/** [start, end) in epoch ms. */
export interface Span {
  start: number;
  end: number;
}

/** One yard-local calendar day of a period, clipped to the window (today ends at `now`). */
export interface PeriodDay extends Span {
  /** `YYYY-MM-DD`, yard-local. */
  date: string;
}

const PERIOD_FORMAT = /^(\d{4})-(\d{2})$/;

/**
 * Why `text` is not a period, or null when it is one. Years 2000..9999: earlier is a typo in a
 * billing context, and four digits keep `YYYY-MM` sortable as text.
 */
export function periodProblem(text: unknown): string | null {
  if (typeof text !== 'string') return 'period must be a string YYYY-MM';
  const m = PERIOD_FORMAT.exec(text);
  if (!m) return `period '${text}' is not YYYY-MM`;
  const year = Number(m[1]);
  const month = Number(m[2]);
  if (month < 1 || month > 12) return `period '${text}' has no month ${m[2]}`;
  if (year < 2000) return `period '${text}' is before the year 2000`;
  return null;
}

/** The period written `text`, or null when malformed (periodProblem says why). */
export function parsePeriod(text: unknown): Period | null {
  if (periodProblem(text) !== null) return null;
  const s = text as string;
  return { text: s, year: Number(s.slice(0, 4)), month: Number(s.slice(5, 7)) };
}

function asPeriod(period: Period | string): Period {
  if (typeof period !== 'string') return period;
  const p = parsePeriod(period);
  if (!p) throw new RangeError(periodProblem(period) ?? `bad period ${period}`);
  return p;
}

/**
 * The first instant of a local calendar day: its midnight, or where the clocks jump over midnight,
 * the first wall time after the gap (luxon moves a time that does not exist forward).
 */
function localMidnight(year: number, month: number, day: number, zone: string): number {
  return DateTime.fromObject({ year, month, day }, { zone }).toMillis();
}

function startOfMonth(year: number, month: number, zone: string): DateTime {
  const dt = DateTime.fromObject({ year, month, day: 1 }, { zone });
  if (!dt.isValid) throw new RangeError(`unknown time zone '${zone}' (${dt.invalidExplanation})`);
  return dt;
}

function format(dt: DateTime): string {
  return `${String(dt.year).padStart(4, '0')}-${String(dt.month).padStart(2, '0')}`;
}

interface Calendar extends Span {
  days: PeriodDay[];
}

/**
 * The period's bounds and local days, unclipped. Zone arithmetic through Intl costs about a
 * millisecond per period-day, and generate-all asks for the same (period, zone) once per carrier,
 * so the answer is memoised: it depends on nothing but its arguments (and the zone database).
 */
const calendars = new Map<string, Calendar>();
const CALENDARS_KEPT = 512;

function calendar(p: Period, zone: string): Calendar {
  const key = `${zone} ${p.text}`;
  const known = calendars.get(key);
  if (known) return known;
  const first = startOfMonth(p.year, p.month, zone);
  // Each day's start is its own local midnight, found afresh: stepping by plus({days: 1}) would
  // carry a shift forward, e.g. in a zone whose clocks jump at midnight (America/Havana), where
  // 8 March 2026 starts at 01:00 and every later day must still start at 00:00.
  const starts: number[] = [];
  for (let day = 1; day <= (first.daysInMonth as number); day++) {
    starts.push(day === 1 ? first.toMillis() : localMidnight(p.year, p.month, day, zone));
  }
  const end =
    p.month === 12 ? localMidnight(p.year + 1, 1, 1, zone) : localMidnight(p.year, p.month + 1, 1, zone);
  const days: PeriodDay[] = starts.map((start, k) => ({
    date: `${p.text}-${String(k + 1).padStart(2, '0')}`,
    start,
    end: starts[k + 1] ?? end,
  }));
  const made: Calendar = { start: first.toMillis(), end, days };
  if (calendars.size >= CALENDARS_KEPT) calendars.clear();
  calendars.set(key, made);
  return made;
}

/** The whole period: [local midnight of its first day, local midnight of the next month's first). */
export function periodBounds(period: Period | string, zone: string): Span {
  const { start, end } = calendar(asPeriod(period), zone);
  return { start, end };
}

/**
 * The window W = [start of P, min(end of P, now)). Before the period starts it is empty
 * (end = start), so nothing in it is billed.
 */
export function periodWindow(period: Period | string, zone: string, now: number): Span {
  const { start, end } = periodBounds(period, zone);
  return { start, end: Math.max(start, Math.min(end, now)) };
}

/**
 * The yard-local days of P that have begun by `now`, each clipped to the window: a day has begun
 * when its start is before `now` (a day starting exactly at `now` has no instant in W yet).
 */
export function periodDays(period: Period | string, zone: string, now: number): PeriodDay[] {
  const days: PeriodDay[] = [];
  for (const day of calendar(asPeriod(period), zone).days) {
    if (day.start >= now) break;
    days.push({ ...day, end: Math.min(day.end, now) });
  }
  return days;
}

/** The period containing `now` in the yard's zone (the ongoing period). */
export function currentPeriod(zone: string, now: number): string {
  const dt = DateTime.fromMillis(now, { zone });
  if (!dt.isValid) throw new RangeError(`unknown time zone '${zone}' (${dt.invalidExplanation})`);
  return format(dt);
}

/** The month before the ongoing one in the yard's zone. */
export function previousPeriod(zone: string, now: number): string {
  const p = asPeriod(currentPeriod(zone, now));
  return format(startOfMonth(p.year, p.month, zone).minus({ months: 1 }));
}

/** The period has ended by `now` (its end is not after `now`): it can be invoiced. */
export function isPast(period: Period | string, zone: string, now: number): boolean {
  return periodBounds(period, zone).end <= now;
}

/** The period has not begun by `now`. */
export function isFuture(period: Period | string, zone: string, now: number): boolean {
  return periodBounds(period, zone).start > now;
}
