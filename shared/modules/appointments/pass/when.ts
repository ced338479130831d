/**
 * When an appointment is, as its pass prints it: the yard's wall clock and UTC offset, read from
 * the ISO times of AppointmentPublic (they carry the yard's offset), so no zone rules are looked up
 * again and the pass shows exactly the instants the booking holds. On a day the clocks change, a
 * start and end on either side of the change each show their own offset.
 */
import type { AppointmentPublicT } from '../public-view.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface WallTime {
  /** "Sun 8 Mar 2026" */
  date: string;
  /** "01:30" */
  time: string;
  /** "UTC-06:00" */
  offset: string;
}

/** An ISO date-time with an offset (2026-03-08T01:30:00-06:00) as its own wall clock. */
export function wallTime(iso: string): WallTime {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  if (!m) throw new RangeError(`not an ISO date-time with an offset: ${iso}`);
  const [, y, mo, d, hh, mm, off] = m as unknown as [string, string, string, string, string, string, string];
  const weekday = WEEKDAYS[new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d))).getUTCDay()];
  return {
    date: `${weekday} ${Number(d)} ${MONTHS[Number(mo) - 1]} ${y}`,
    time: `${hh}:${mm}`,
    offset: off === 'Z' ? 'UTC' : `UTC${off}`,
  };
}

/**
 * "Sun 8 Mar 2026, 01:30 (UTC-06:00) - 03:30 (UTC-05:00)" across a clock change,
 * "Tue 3 Mar 2026, 08:00 - 09:00 (UTC-06:00)" otherwise; the end's date when it is another day.
 */
export function passWhen(p: Pick<AppointmentPublicT, 'startAt' | 'endAt'>): string {
  const start = wallTime(p.startAt);
  const end = wallTime(p.endAt);
  const endDate = end.date === start.date ? '' : `${end.date}, `;
  if (start.offset === end.offset)
    return `${start.date}, ${start.time} - ${endDate}${end.time} (${end.offset})`;
  return `${start.date}, ${start.time} (${start.offset}) - ${endDate}${end.time} (${end.offset})`;
}
