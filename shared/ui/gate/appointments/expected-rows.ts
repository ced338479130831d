import type { Schemas } from '../../common/api/client';
import { compactCode, normalText } from '../../common/type-ahead-rank';

/**
 * The gate house's Expected arrivals as plain data (docs/domain.md "Appointments", "At the gate"):
 * which of today's appointments the desk shows, in which order, and the status the clerk reads.
 * Pure functions, so the rules are unit-tested (test/unit/ui/gate-expected.test.ts).
 */
export type Appointment = Schemas['Appointment'];

/**
 * What the clerk reads: a scheduled appointment is "due" until its grace after the start has
 * passed, then "late" (the no-show sweep at the edge later makes it a no-show); the rest follow the
 * server's status.
 */
export type ExpectedStatus = 'due' | 'late' | 'arrived' | 'docked' | 'completed' | 'no_show';

export const STATUS_LABEL: Record<ExpectedStatus, string> = {
  due: 'due',
  late: 'late',
  arrived: 'arrived',
  docked: 'docked',
  completed: 'completed',
  no_show: 'no-show',
};

/** The badge colour of each status (base.css badge classes). */
export const STATUS_TONE: Record<ExpectedStatus, '' | 'ok' | 'warn' | 'bad'> = {
  due: '',
  late: 'warn',
  arrived: 'ok',
  docked: 'ok',
  completed: '',
  no_show: 'bad',
};

/** The statuses the list asks for: a cancelled appointment is not expected at the gate. */
export const SHOWN_STATUSES = ['scheduled', 'arrived', 'docked', 'completed', 'no_show'] as const;

export function expectedStatus(a: Appointment, now: number, lateGraceMinutes: number): ExpectedStatus | null {
  switch (a.status) {
    case 'scheduled':
      return now > Date.parse(a.startAt) + lateGraceMinutes * 60_000 ? 'late' : 'due';
    case 'cancelled':
      return null;
    default:
      return a.status;
  }
}

/** By start time, then door (natural order: Door 2 before Door 10), then code: a stable order. */
export function byTime(a: Appointment, b: Appointment): number {
  return (
    Date.parse(a.startAt) - Date.parse(b.startAt) ||
    a.doorName.localeCompare(b.doorName, undefined, { numeric: true }) ||
    a.code.localeCompare(b.code)
  );
}

/**
 * The list after a live change: the changed appointment replaces its row, joins the list when it
 * now starts within the day shown, and leaves it when cancelled or moved to another day. An older
 * version than the row's (events can cross a reload) is ignored.
 */
export function applyChange(
  rows: readonly Appointment[],
  changed: Appointment,
  day: { yardId: string; from: number; to: number },
): Appointment[] {
  const at = Date.parse(changed.startAt);
  const shown =
    changed.yardId === day.yardId && changed.status !== 'cancelled' && at >= day.from && at < day.to;
  const current = rows.find((r) => r.id === changed.id);
  if (current && current.version > changed.version) return [...rows];
  const others = rows.filter((r) => r.id !== changed.id);
  return shown ? [...others, changed].sort(byTime) : others;
}

/** "14 expected today: 6 due, 1 late, 4 arrived, 2 docked, 1 no-show" as counts per status. */
export function countByStatus(
  rows: readonly Appointment[],
  now: number,
  lateGraceMinutes: number,
): Record<ExpectedStatus, number> {
  const counts: Record<ExpectedStatus, number> = {
    due: 0,
    late: 0,
    arrived: 0,
    docked: 0,
    completed: 0,
    no_show: 0,
  };
  for (const r of rows) {
    const s = expectedStatus(r, now, lateGraceMinutes);
    if (s) counts[s] += 1;
  }
  return counts;
}

/** Whether the desk can check this appointment in (not yet arrived; a no-show may still come, late). */
export function mayCheckIn(status: ExpectedStatus | null): boolean {
  return status === 'due' || status === 'late' || status === 'no_show';
}

/**
 * The Expected screen's filter box: each word typed must match the code, a ref, the carrier or the
 * trailer (or truck) number, so "prairie 5304" finds the Prairie Haulers truck with trailer
 * PRHL5304. Numbers and codes ignore case, spaces and dashes; the carrier's name is matched within.
 */
export function matchesFilter(a: Appointment, text: string): boolean {
  const words = normalText(text).split(' ').filter(Boolean);
  const numbers = [a.code, a.trailerNumber, a.truckPlate, ...a.refs].filter((n): n is string => Boolean(n));
  return words.every(
    (w) =>
      numbers.some((n) => compactCode(n).includes(compactCode(w))) || normalText(a.carrierName).includes(w),
  );
}
