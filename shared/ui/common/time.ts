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
  // Intl refuses dateStyle/timeStyle together with timeZoneName: spell the fields out.
  return format(timeZone, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
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
