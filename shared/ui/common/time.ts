/**
 * Times as a yard's people read them: in the yard's time zone (Intl, with the IANA zone of the
 * yard record), in the browser's locale. The API speaks ISO 8601 UTC.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${timeZone}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, { timeZone, ...options });
    formats.set(key, f);
  }
  return f;
}

/** The zone's wall clock, in numbers (en-US with h23: digits only, midnight as 00). */
const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** How far the zone's wall clock is ahead of UTC at instant `at`, in ms (Chicago in winter: -6 h). */
export function zoneOffsetMs(at: number, timeZone: string): number {
  let f = wallClocks.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallClocks.set(timeZone, f);
  }
  const parts = f.formatToParts(at);
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/**
 * Today's date in the yard (YYYY-MM-DD): the yard's calendar, whatever the browser's own zone, so
 * a clerk in a Chicago yard at 23:30 still works "today" while UTC is already tomorrow. The one
 * home of this rule for every web app (tested in test/unit/ui/time.test.ts).
 */
export function yardToday(timeZone: string, now = Date.now()): string {
  return new Date(now + zoneOffsetMs(now, timeZone)).toISOString().slice(0, 10);
}

/** The instant a yard day (YYYY-MM-DD) starts in `timeZone`: its local midnight, DST included. */
export function dayStart(date: string, timeZone: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`not a date: ${date}`);
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Midnight's offset may differ from the guess's when a DST change falls within the hours between.
  const guess = wall - zoneOffsetMs(wall, timeZone);
  return wall - zoneOffsetMs(guess, timeZone);
}

/** "14:05" today, "Mon 23 Nov, 14:05" otherwise, in the yard's zone. */
export function yardTime(iso: string | null | undefined, timeZone: string, now = Date.now()): string {
  if (!iso) return '';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const day = format(timeZone, { year: 'numeric', month: '2-digit', day: '2-digit' });
  const clock = format(timeZone, { hour: '2-digit', minute: '2-digit' });
  if (day.format(at) === day.format(now)) return clock.format(at);
  return format(timeZone, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(at);
}

/** Full date and time with the zone's short name, for tooltips and records. */
export function yardDateTime(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  // Spelled out: Intl refuses timeZoneName together with dateStyle/timeStyle (a RangeError).
  return format(timeZone, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(at);
}

/** A dwell or wait as people say it: "45 min", "3 h 20 min", "2 d 4 h". */
export function duration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
