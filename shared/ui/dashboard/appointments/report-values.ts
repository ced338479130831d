/**
 * The report screens' plain data: the period chosen (yard-local dates, kept in the address), minutes
 * and percentages in words. Pure functions, unit-tested in test/unit/ui/appointment-report-values.test.ts.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Today's date in the yard's zone, `YYYY-MM-DD`. */
export function yardToday(timeZone: string, now = Date.now()): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

/** A calendar date moved by whole days (no zone: a date is a date). */
export function addDays(date: string, days: number): string {
  const at = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(at).toISOString().slice(0, 10);
}

export interface Period {
  from: string;
  to: string;
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

/** A share as a whole percentage, "–" when nothing was counted. */
export function percentText(share: number | null | undefined): string {
  if (share === null || share === undefined || Number.isNaN(share)) return '–';
  return new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 }).format(share);
}
