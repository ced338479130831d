/**
 * The change cutoff of docs/domain.md "Booking rules": a carrier changes or cancels an appointment
 * only before startAt - changeCutoffMinutes and never after arrival (409 `change-cutoff`, the reason
 * in the yard's wall clock). Pure: the carrier rules (carrier-rules.ts) apply it, and every
 * appointment answer shows `changeUntil` (out.ts).
 */
import { ConflictError } from '../../http/errors.js';
import { wallTime } from './pass/when.js';
import type { AppointmentStatus } from './status.js';
import { yardClock } from './wall-clock.js';

const MINUTE = 60_000;

/**
 * The instant from which a carrier may no longer change the appointment, or null when changes
 * are already closed whatever the time (the truck arrived, or the appointment is over).
 */
export function changeUntil(
  a: { startAt: number; status: AppointmentStatus },
  changeCutoffMinutes: number,
): number | null {
  return a.status === 'scheduled' ? a.startAt - changeCutoffMinutes * MINUTE : null;
}

export interface CutoffFacts {
  startAt: number;
  status: AppointmentStatus;
  arrivedAt: number | null;
  changeCutoffMinutes: number;
  timeZone: string;
  now: number;
}

/**
 * Why a carrier may not change the appointment now, as the 409 `change-cutoff` to answer, or null
 * when it may. Changes close AT startAt - changeCutoffMinutes (a change "before" it is allowed, one
 * at that very minute is not), and once the truck has arrived. A cancelled appointment is left to
 * the state rules (409 invalid-transition): there is nothing to change, cut off or not.
 */
export function changeCutoffRefusal(a: CutoffFacts): ConflictError | null {
  if (a.status === 'cancelled') return null;
  const clock = yardClock(a.timeZone);
  const closes = a.startAt - a.changeCutoffMinutes * MINUTE;
  if (a.arrivedAt !== null && a.status !== 'no_show') {
    const arrived = wallTime(clock.iso(a.arrivedAt));
    return new ConflictError(
      'change-cutoff',
      `Changes closed when the truck arrived at ${arrived.time}. Call the yard to change it.`,
      { changeUntil: null },
    );
  }
  if (a.status === 'scheduled' && a.now < closes) return null;
  return new ConflictError(
    'change-cutoff',
    cutoffWords(clock.iso(closes), clock.iso(a.startAt), a.changeCutoffMinutes),
    {
      changeUntil: clock.iso(closes),
    },
  );
}

/** "Changes closed at 06:30, 4 hours before the 10:30 start. Call the yard to change it." */
function cutoffWords(closesIso: string, startIso: string, minutes: number): string {
  const closes = wallTime(closesIso);
  const start = wallTime(startIso);
  const call = 'Call the yard to change it.';
  if (minutes === 0) return `Changes closed at the ${start.time} start. ${call}`;
  const before = durationWords(minutes);
  if (closes.date === start.date)
    return `Changes closed at ${closes.time}, ${before} before the ${start.time} start. ${call}`;
  return `Changes closed at ${closes.time} on ${closes.date}, ${before} before the start at ${start.time} on ${start.date}. ${call}`;
}

/** 240 -> "4 hours", 90 -> "1 hour 30 minutes", 45 -> "45 minutes", 60 -> "1 hour". */
export function durationWords(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  const hours = h === 0 ? '' : `${h} hour${h === 1 ? '' : 's'}`;
  const mins = m === 0 ? '' : `${m} minute${m === 1 ? '' : 's'}`;
  return [hours, mins].filter(Boolean).join(' ');
}
