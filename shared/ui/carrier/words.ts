import type { Appointment } from './data';

/** A booking's status as the carrier reads it (docs/domain.md "Appointments" statuses). */
export const STATUS_WORDS: Record<Appointment['status'], string> = {
  scheduled: 'Booked',
  arrived: 'Arrived',
  docked: 'At the door',
  completed: 'Done',
  no_show: 'Missed (no-show)',
  cancelled: 'Cancelled',
};

export const STATUS_TONE: Partial<Record<Appointment['status'], string>> = {
  arrived: 'ok',
  docked: 'ok',
  completed: 'ok',
  no_show: 'bad',
  cancelled: 'bad',
};

const formats = new Map<string, Intl.DateTimeFormat>();
function fmt(timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${timeZone}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) {
    // The 24-hour clock, as the yard's own words (the pass, a refusal's reason) write times.
    f = new Intl.DateTimeFormat(undefined, {
      timeZone,
      ...(options.hour ? { hourCycle: 'h23' } : {}),
      ...options,
    });
    formats.set(key, f);
  }
  return f;
}

/** "14:30" in the yard's zone. */
export function clock(iso: string, timeZone: string): string {
  return fmt(timeZone, { hour: '2-digit', minute: '2-digit' }).format(Date.parse(iso));
}

/** "Mon 30 Nov, 14:30" in the yard's zone. */
export function dayAndClock(iso: string, timeZone: string): string {
  return fmt(timeZone, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(Date.parse(iso));
}

/** A yard-local date (YYYY-MM-DD) as "Mon 30 Nov" (a date has no zone: formatted at its UTC noon). */
export function dayLabel(date: string): string {
  return fmt('UTC', { weekday: 'short', day: 'numeric', month: 'short' }).format(
    Date.parse(`${date}T12:00:00Z`),
  );
}

/** The date `days` after a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The yard-local date of an instant the API wrote with the yard's offset (availability's startAt). */
export const localDate = (iso: string) => iso.slice(0, 10);

/** Whether a booking may still be changed by the carrier: before its change cutoff, not arrived. */
export function changeOpen(a: Appointment, now = Date.now()): boolean {
  return a.status === 'scheduled' && a.changeUntil != null && Date.parse(a.changeUntil) > now;
}

/** "Changes until Mon 30 Nov, 06:30", or why it cannot change any more. */
export function changeText(a: Appointment, timeZone: string, now = Date.now()): string | null {
  if (a.status !== 'scheduled') return null;
  if (!a.changeUntil) return 'This booking cannot be changed here any more. Call the yard to change it.';
  if (Date.parse(a.changeUntil) > now) return `Changes until ${dayAndClock(a.changeUntil, timeZone)}`;
  return `Changes closed at ${dayAndClock(a.changeUntil, timeZone)}. Call the yard to change it.`;
}

/** Refs typed as one line: "PO-1, BOL-2" or "PO-1 BOL-2". */
export function splitRefs(text: string): string[] {
  return text
    .split(/[,;\s]+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 10);
}
