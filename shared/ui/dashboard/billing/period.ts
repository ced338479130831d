import { yardToday } from '../../common/time';

/**
 * Billing periods (DOMAIN.md "Billing"): a calendar month in the yard's time zone, `YYYY-MM`. The
 * ongoing period is the yard's current month; the list offers it and the months before it.
 */
export function currentPeriod(timeZone: string, now = Date.now()): string {
  return yardToday(timeZone, now).slice(0, 7);
}

/** `2026-01` shifted by -1 -> `2025-12`. */
export function shiftPeriod(period: string, months: number): string {
  const [y = 2000, m = 1] = period.split('-').map(Number);
  const index = y * 12 + (m - 1) + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The ongoing period first, then the `count - 1` before it. */
export function recentPeriods(timeZone: string, count = 13, now = Date.now()): string[] {
  const current = currentPeriod(timeZone, now);
  return Array.from({ length: count }, (_, i) => shiftPeriod(current, -i));
}

/** `2026-10` -> "October 2026" in the browser's locale (a calendar month, no zone involved). */
export function periodLabel(period: string): string {
  const [y = 2000, m = 1] = period.split('-').map(Number);
  return new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', year: 'numeric', month: 'long' }).format(
    Date.UTC(y, m - 1, 15),
  );
}

/**
 * A yard-local calendar date as the API writes it (`2026-10-14`, already the yard's day) -> "Wed 14
 * Oct": formatted in UTC so no zone shifts the day.
 */
export function dayLabel(date: string): string {
  const [y = 2000, m = 1, d = 1] = date.split('-').map(Number);
  return new Intl.DateTimeFormat(undefined, {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  }).format(Date.UTC(y, m - 1, d));
}

/** An instant's calendar date in the yard's zone: "Dec 25, 2026". */
export function yardDate(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat(undefined, { timeZone, dateStyle: 'medium' }).format(Date.parse(iso));
}
