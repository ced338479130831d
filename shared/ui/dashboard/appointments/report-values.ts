import { dayStart } from '../../common/time';

/**
 * The report screens' plain data: the period chosen (yard-local dates, kept in the address), minutes
 * and percentages in words. Pure functions, unit-tested in test/unit/ui/appointment-report-values.test.ts.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date moved by whole days (no zone: a date is a date). */
export function addDays(date: string, days: number): string {
  const at = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(at).toISOString().slice(0, 10);
}

export interface Period {
  from: string;
  to: string;
}

/** The instant a yard-local date begins (its midnight in the zone, DST included), as ISO UTC. */
export function yardMidnight(date: string, timeZone: string): string {
  return new Date(dayStart(date, timeZone)).toISOString();
}

/** The period as the API's half-open window: from the first day's midnight to the one after the last day. */
export function periodWindow(p: Period, timeZone: string): { from: string; to: string } {
  return { from: yardMidnight(p.from, timeZone), to: yardMidnight(addDays(p.to, 1), timeZone) };
}

/**
 * The period in the address (?from=&to=, both days included), else the last seven days up to today;
 * a reversed pair is swapped rather than shown empty.
 */
export function periodOf(query: Record<string, string | undefined>, today: string): Period {
  const from = query.from && DATE.test(query.from) ? query.from : undefined;
  const to = query.to && DATE.test(query.to) ? query.to : undefined;
  const end = to ?? (from && from > today ? from : today);
  const start = from ?? addDays(end, -6);
  return start <= end ? { from: start, to: end } : { from: end, to: start };
}

const minuteWords = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/** Minutes as the office says them: "45 min", "2 h 05 min"; "–" when there is nothing to measure. */
export function minutesText(minutes: number | null | undefined): string {
  if (minutes === null || minutes === undefined || Number.isNaN(minutes)) return '–';
  const m = Math.round(minutes);
  if (m < 60) return `${minuteWords.format(m)} min`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** A percentage (0 to 100) as the locale writes it, whole; "–" when nothing was counted. */
export function percentText(percent: number | null | undefined): string {
  if (percent === null || percent === undefined || Number.isNaN(percent)) return '–';
  return new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 }).format(
    percent / 100,
  );
}
