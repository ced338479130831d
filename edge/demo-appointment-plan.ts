import { DateTime } from 'luxon';
import { newId } from '../shared/ids.js';
import { type DoorBookings, freeSlots } from '../shared/modules/appointments/availability.js';
import type { Scheduling } from './demo-scheduling.js';

/**
 * The demo's past dock appointments as a plan, without writing anything (edge/demo-appointments.ts
 * says where each part is written): which load type, door, carrier and start each one has, and what
 * happened to it (on time, early, late, a long stay, a no-show, a cancellation; today's still due).
 * Seeded random numbers: every demo has the same week relative to its start.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export type Outcome =
  | 'on_time'
  | 'early'
  | 'late'
  | 'long_stay'
  | 'no_show'
  | 'cancelled'
  | 'here'
  | 'docked'
  | 'due';

/** One planned appointment and what happened to it. */
export interface PastAppointment {
  id: string;
  loadTypeId: string;
  doorId: string;
  carrierId: string;
  startAt: number;
  endAt: number;
  trailerNumber: string;
  truckPlate: string;
  driverName: string;
  outcome: Outcome;
  bookedAt: number;
  arrivedAt?: number;
  dockedAt?: number;
  completedAt?: number;
  departedAt?: number;
  /** The check-in and check-out the gate recorded (set by recordGateMovements). */
  inMovementId?: string;
  outMovementId?: string;
}

export const DRIVERS = [
  'Ana Ruiz',
  'Ben Carter',
  'Chidi Okoro',
  'Dana Kim',
  'Eli Novak',
  'Fay Brooks',
  'Gus Patel',
  'Hana Sato',
];

/**
 * A week of past appointments and today's up to now (plus a few due within the lead time, booked
 * earlier), and a few of last month for its invoices: free starts and doors come from the booking
 * rules themselves (freeSlots), so the plan never overbooks a door.
 */
export function planAppointments(s: Scheduling, now: number): PastAppointment[] {
  let seed = 20261101;
  const random = () => {
    // mulberry32: small and seeded.
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const between = (a: number, b: number) => a + Math.floor(random() * (b - a));
  const held = new Map(s.doors.map((d) => [d.id, [] as Array<{ startAt: number; endAt: number }>]));
  const today = DateTime.fromMillis(now, { zone: s.timeZone }).startOf('day');
  const plans: PastAppointment[] = [];
  /** `perDay` bookings of `date` (starting before `latest`), each with the outcome `outcomeOf` gives. */
  const planDay = (
    date: string,
    perDay: number,
    outcomeOf: (p: PastAppointment) => Outcome,
    latest = Number.POSITIVE_INFINITY,
  ) => {
    // Booked well before: "now" a week before the date, so the lead time allows the whole day.
    const bookedFrom = DateTime.fromISO(date, { zone: s.timeZone }).toMillis() - 8 * DAY;
    for (let n = 0; n < perDay; n++) {
      const loadType = s.loadTypes[n % s.loadTypes.length] as Scheduling['loadTypes'][number];
      const allowed = new Set(loadType.doorIds);
      const doors: DoorBookings[] = s.doors
        .filter((d) => allowed.size === 0 || allowed.has(d.id))
        .map((d) => ({ ...d, bookings: held.get(d.id) ?? [] }));
      const slots = freeSlots({
        rules: { ...s.rules, leadTimeMaxDays: 30 },
        durationMinutes: loadType.durationMinutes,
        doors,
        fromDate: date,
        toDate: date,
        now: bookedFrom,
      }).filter((slot) => slot.startAt < latest);
      if (slots.length === 0) continue;
      const slot = slots[Math.floor(random() * slots.length)] as (typeof slots)[number];
      const door = slot.doors[Math.floor(random() * slot.doors.length)] as { id: string };
      held.get(door.id)?.push({ startAt: slot.startAt, endAt: slot.endAt });
      const carrier = s.carriers[plans.length % s.carriers.length] as { id: string; scac: string };
      const p: PastAppointment = {
        id: newId(),
        loadTypeId: loadType.id,
        doorId: door.id,
        carrierId: carrier.id,
        startAt: slot.startAt,
        endAt: slot.endAt,
        trailerNumber: `${carrier.scac}${6100 + plans.length}`,
        truckPlate: `TX${7200 + plans.length}`,
        driverName: DRIVERS[plans.length % DRIVERS.length] as string,
        outcome: 'on_time',
        bookedAt: slot.startAt - between(1, 6) * DAY,
      };
      p.outcome = outcomeOf(p);
      happen(p, loadType.durationMinutes, between);
      plans.push(p);
    }
  };
  // Last month, a day a week before this week's: the invoices are of past months only
  // (docs/domain.md "Billing"), so each carrier is late and misses one there, in turn, and the
  // previous month's invoice of every carrier has its LATE and NO_SHOW lines.
  const weekStart = today.minus({ days: 7 });
  let lastMonth = 0;
  for (const day of [4, 11, 18, 25]) {
    const date = today.minus({ months: 1 }).set({ day });
    if (date >= weekStart) continue;
    planDay(date.toISODate() as string, s.carriers.length, () => {
      const outcome = LAST_MONTH[Math.floor(lastMonth / s.carriers.length) % LAST_MONTH.length];
      lastMonth++;
      return outcome as Outcome;
    });
  }
  for (let back = 7; back >= 0; back--) {
    const date = today.minus({ days: back }).toISODate() as string;
    if (back > 0) planDay(date, 8, () => pastOutcome(random()));
    else planDay(date, 9, (p) => todayOutcome(p, now), now + 100 * MIN);
  }
  return plans;
}

/** Last month's outcomes, a round of the carriers each: late first, then missed, then the rest. */
const LAST_MONTH: readonly Outcome[] = ['late', 'no_show', 'on_time', 'long_stay'];

function pastOutcome(r: number): Outcome {
  if (r < 0.45) return 'on_time';
  if (r < 0.55) return 'early';
  if (r < 0.72) return 'late';
  if (r < 0.82) return 'long_stay';
  if (r < 0.94) return 'no_show';
  return 'cancelled';
}

/** Today: done and gone, at the door, waiting in the yard, missed, or still due. */
function todayOutcome(p: PastAppointment, now: number): Outcome {
  if (p.endAt + 45 * MIN < now) return 'on_time';
  if (p.startAt + 20 * MIN < now) return p.startAt % (2 * HOUR) === 0 ? 'here' : 'docked';
  return 'due';
}

/** The times of each outcome (arrival early/on time/late by the 15 grace minutes of CONFIG). */
function happen(p: PastAppointment, minutes: number, between: (a: number, b: number) => number) {
  const o = p.outcome;
  if (o === 'due' || o === 'cancelled' || o === 'no_show') return;
  const offset = o === 'early' ? -between(20, 50) : o === 'late' ? between(25, 80) : between(-12, 12);
  p.arrivedAt = p.startAt + offset * MIN;
  if (o === 'here') return;
  p.dockedAt = Math.max(p.arrivedAt, p.startAt) + between(3, o === 'late' ? 40 : 25) * MIN;
  if (o === 'docked') return;
  const stay = o === 'long_stay' ? between(90, 200) : between(-5, 20);
  p.completedAt = p.dockedAt + (minutes + stay) * MIN;
  p.departedAt = p.completedAt + between(5, 25) * MIN;
}
