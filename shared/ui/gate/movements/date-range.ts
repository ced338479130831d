/**
 * Dates as the yard reads them: a clerk picks "from 2 March to 3 March" meaning the yard's days,
 * whatever the browser's own zone. These turn such days into the API's UTC instants.
 */

/** Offset of `timeZone` from UTC at instant `at`, in ms (Chicago in winter: -6 h). */
export function zoneOffsetMs(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/** The instant a yard day (YYYY-MM-DD) starts in `timeZone` (its local midnight, DST included). */
export function dayStart(date: string, timeZone: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`not a date: ${date}`);
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Midnight's offset may differ from the guess's when a DST change falls within the hours between.
  let at = wall - zoneOffsetMs(wall, timeZone);
  at = wall - zoneOffsetMs(at, timeZone);
  return at;
}

/** The day after a YYYY-MM-DD date. */
export function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Today in the yard (YYYY-MM-DD), for the date inputs' default and max. */
export function yardToday(timeZone: string, now = Date.now()): string {
  return new Date(now + zoneOffsetMs(now, timeZone)).toISOString().slice(0, 10);
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
