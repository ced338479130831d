import { dayStart } from '../../common/time';

/**
 * Dates as the yard reads them: a clerk picks "from 2 March to 3 March" meaning the yard's days,
 * whatever the browser's own zone. These turn such days into the API's UTC instants.
 */

/** The day after a YYYY-MM-DD date. */
export function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * The API's from/to (at >= from, at < to) for yard days from..to, both included; either may be
 * empty. A range given backwards is swapped rather than refused: the clerk meant those days.
 */
export function rangeQuery(from: string, to: string, timeZone: string): { from?: string; to?: string } {
  let [a, b] = [from, to];
  if (a && b && a > b) [a, b] = [b, a];
  const out: { from?: string; to?: string } = {};
  if (a) out.from = new Date(dayStart(a, timeZone)).toISOString();
  if (b) out.to = new Date(dayStart(nextDay(b), timeZone)).toISOString();
  return out;
}
