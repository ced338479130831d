/**
 * What the pure booking rules (availability.ts) are given, read from the database: the yard's
 * rules, the load type, and the doors with the bookings that hold their capacity. Shared by the
 * availability answer and the booking writes (booking.ts), so both judge a start the same way.
 */
import type { Kdb } from '../../db/database.js';
import { ConflictError, ValidationError } from '../../http/errors.js';
import { type BookingRules, type DoorBookings, freeSlots } from './availability.js';
import { configOut } from './out.js';
import type { AppointmentRepo, LoadTypeRow } from './repo.js';
import type { SchedulingConfigOutT } from './schema.js';
import { dateOfDayNumber, dayNumber, yardClock } from './wall-clock.js';

const DAY = 86_400_000;

export interface BookingContext {
  yardId: string;
  timeZone: string;
  config: SchedulingConfigOutT;
  rules: BookingRules;
  loadType: LoadTypeRow;
}

/**
 * The yard's rules and the load type: 409 `scheduling-off` when the yard does not take bookings,
 * 400 when the load type is not one of the yard's.
 */
export async function bookingContext(
  repo: AppointmentRepo,
  yard: { id: string; timeZone: string },
  loadTypeId: string,
): Promise<BookingContext> {
  const config = configOut(yard.id, await repo.configOf(yard.id));
  if (!config.enabled) {
    throw new ConflictError(
      'scheduling-off',
      'This yard does not take appointments: turn scheduling on in its scheduling settings first.',
    );
  }
  const loadType = await repo.loadTypeById(loadTypeId);
  if (!loadType || loadType.yardId !== yard.id) {
    throw new ValidationError([
      { path: 'loadTypeId', code: 'not-found', message: 'This yard has no such load type.' },
    ]);
  }
  return {
    yardId: yard.id,
    timeZone: yard.timeZone,
    config,
    rules: { ...config, timeZone: yard.timeZone },
    loadType,
  };
}

/**
 * The doors a booking of the load type may use (its allowed doors, every door with an override),
 * each with the bookings holding its capacity that overlap [from, to), without `exceptId`.
 */
export async function doorBookings(
  repo: AppointmentRepo,
  db: Kdb,
  ctx: BookingContext,
  window: { from: number; to: number },
  opts: { override?: boolean; exceptId?: string | undefined } = {},
): Promise<DoorBookings[]> {
  const allowed = new Set(JSON.parse(ctx.loadType.doorIds) as string[]);
  const doors = (await repo.doorsOf(ctx.yardId, db)).filter(
    (d) => opts.override || allowed.size === 0 || allowed.has(d.id),
  );
  const held = await repo.holdingCapacity(db, ctx.yardId, window.from, window.to, opts.exceptId);
  return doors.map((d) => ({
    ...d,
    bookings: held.filter((b) => b.doorId === d.id).map((b) => ({ startAt: b.startAt, endAt: b.endAt })),
  }));
}

/**
 * A window of instants that holds every booking that can overlap a slot of the yard-local dates
 * fromDate..toDate: the dates' naive UTC days widened by two days before (zone offsets) and three
 * after (offsets, and a slot of up to a day that starts late on the last date).
 */
export function windowOfDates(fromDate: string, toDate: string): { from: number; to: number } {
  return { from: (dayNumber(fromDate) - 2) * DAY, to: (dayNumber(toDate) + 3) * DAY };
}

/** The yard-local date of an instant. */
export function localDate(at: number, timeZone: string): string {
  return dateOfDayNumber(yardClock(timeZone).dayOf(at));
}

/** An instant as ISO 8601 with the yard's offset (a fall-back day's repeated hour shows which one). */
export function isoInZone(at: number, timeZone: string): string {
  return yardClock(timeZone).iso(at);
}

/** The start times still free on a yard-local date for the load type (the 409 slot-taken's `freeTimes`). */
export function freeTimesOn(ctx: BookingContext, doors: DoorBookings[], date: string, now: number): string[] {
  return freeSlots({
    rules: ctx.rules,
    durationMinutes: ctx.loadType.durationMinutes,
    doors,
    fromDate: date,
    toDate: date,
    now,
  }).map((s) => isoInZone(s.startAt, ctx.timeZone));
}
