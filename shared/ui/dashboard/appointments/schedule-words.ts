import { type Advice, problemText } from '../../common/api/problem-text';

/**
 * What the dock schedule says: each status in words (a block shows its status as text, never by
 * colour alone, UI.md "Accessibility"), a block's accessible name, and the refusals of a booking
 * or a move in the office worker's words, with the times still free when the slot was taken.
 */

export type Status = 'scheduled' | 'arrived' | 'docked' | 'completed' | 'cancelled' | 'no_show';

export const STATUS_WORDS: Record<Status, string> = {
  scheduled: 'Scheduled',
  arrived: 'Arrived',
  docked: 'At the door',
  completed: 'Completed',
  cancelled: 'Cancelled',
  no_show: 'No-show',
};

const ARRIVAL_WORDS: Record<string, string> = { early: 'early', on_time: 'on time', late: 'late' };

/** The status as the block says it: "Arrived late", "Overdue, site offline". */
export function statusText(a: { status: string; arrival: string | null; overdue: boolean }): string {
  if (a.overdue && a.status === 'scheduled') return 'Overdue, site offline';
  const word = STATUS_WORDS[a.status as Status] ?? a.status;
  return a.arrival && a.status === 'arrived' ? `${word} ${ARRIVAL_WORDS[a.arrival] ?? ''}`.trim() : word;
}

/** Whether it may still be cancelled (docs/domain.md: scheduled or arrived). */
export function isCancellable(a: { status: string }): boolean {
  return a.status === 'scheduled' || a.status === 'arrived';
}

/** Whether it may be moved to another time or door: only while nobody has arrived for it. */
export function isMovable(a: { status: string }): boolean {
  return a.status === 'scheduled';
}

/** One formatter per zone and style: building an Intl.DateTimeFormat costs far more than using one. */
const clocks = new Map<string, Intl.DateTimeFormat>();

/** "10:15", in the yard's zone; a fall-back day's repeated hour carries its offset ("01:30 GMT+1"). */
export function clock(at: number | string, timeZone: string, withZone = false): string {
  const key = `${timeZone}|${withZone}`;
  let f = clocks.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      ...(withZone ? { timeZoneName: 'short' } : {}),
    });
    clocks.set(key, f);
  }
  return f.format(typeof at === 'number' ? at : Date.parse(at));
}

/** The free times a slot-taken answer lists, as "09:00, 09:15 and 11:30" (at most 8, then "and more"). */
export function freeTimesText(times: string[], timeZone: string): string {
  if (times.length === 0) return 'No time is free that day for this load type; choose another day.';
  const shown = times.slice(0, 8).map((t) => clock(t, timeZone));
  const rest = times.length > 8 ? `, and ${times.length - 8} more` : '';
  return `Still free that day: ${shown.join(', ')}${rest}.`;
}

/** The schedule's advice per problem code (common/api/problem-text.ts): what to do next here. */
export function scheduleAdvice(timeZone: string): Advice {
  return {
    'slot-taken': (_said, err) => {
      const free = Array.isArray(err.problem.freeTimes) ? (err.problem.freeTimes as string[]) : [];
      return `That time is no longer free: another booking took it. ${freeTimesText(free, timeZone)}`;
    },
    'invalid-transition': () =>
      'This appointment can no longer be changed: it has arrived, finished or was cancelled meanwhile. The schedule shows it as it is now.',
    'precondition-failed': () =>
      'Someone else changed this appointment meanwhile. The schedule now shows their change; make yours again.',
    'scheduling-off': () =>
      'Booking is not switched on for this yard. Turn on scheduling in the yard’s scheduling settings first.',
    'cloud-owned': () =>
      'Bookings are made in the cloud dashboard: this site only shows them and records arrivals.',
    'change-cutoff': () => 'It is too close to the appointment’s time to change it.',
    // A move has no form fields to show the reason beside: say it here (not bookable, and why).
    'validation-failed': (said, err) => Object.values(err.fieldErrors()).join(' ') || said,
    forbidden: (said) => `${said} Dispatchers and admins book and change appointments.`,
  };
}

/** A refusal of a booking, move or cancellation as the office worker reads it. */
export function scheduleProblemText(err: unknown, timeZone: string): string {
  return problemText(err, scheduleAdvice(timeZone));
}
