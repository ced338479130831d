/**
 * Where a booking goes, decided under the day locks (booking.ts): the pure check (availability.ts)
 * over the doors and bookings read in the transaction, and the answers when it cannot go there.
 */
import type { Kdb } from '../../db/database.js';
import { AppError, ConflictError } from '../../http/errors.js';
import { checkStart } from './availability.js';
import type { AppointmentRepo } from './repo.js';
import { type BookingContext, doorBookings, freeTimesOn, localDate } from './slot-reads.js';

const DAY = 86_400_000;

/**
 * The door for a start under the lock: the chosen door, else the preferred one (a reschedule
 * keeps its door when it can), else the first free allowed door in door order. A rule broken is
 * 400 `not-bookable` (the reason in words); no free door is 409 `slot-taken` with the times still
 * free that day.
 */
export async function placeBooking(
  repo: AppointmentRepo,
  trx: Kdb,
  ctx: BookingContext,
  opts: {
    startAt: number;
    doorId?: string | undefined;
    preferDoorId?: string;
    override?: { reason: string } | undefined;
    exceptId?: string;
    now: number;
  },
): Promise<string> {
  const now = opts.now;
  const window = { from: opts.startAt - 2 * DAY, to: opts.startAt + 3 * DAY };
  const override = Boolean(opts.override);
  const doors = await doorBookings(repo, trx, ctx, window, { override, exceptId: opts.exceptId });
  const input = {
    rules: ctx.rules,
    durationMinutes: ctx.loadType.durationMinutes,
    doors,
    now,
    override,
    startAt: opts.startAt,
  };
  let check = checkStart({ ...input, doorId: opts.doorId ?? opts.preferDoorId });
  if (
    !check.ok &&
    !opts.doorId &&
    opts.preferDoorId &&
    (check.reason === 'slot-taken' || check.reason === 'door-not-allowed')
  ) {
    check = checkStart(input);
  }
  if (check.ok) return check.doorId;
  if (check.reason === 'slot-taken') {
    const allowed = override
      ? await doorBookings(repo, trx, ctx, window, { exceptId: opts.exceptId })
      : doors;
    throw new ConflictError('slot-taken', `${check.message} Choose another time.`, {
      freeTimes: freeTimesOn(ctx, allowed, localDate(opts.startAt, ctx.timeZone), now),
    });
  }
  throw new AppError(
    400,
    'validation-failed',
    'Validation failed',
    check.message,
    [{ path: check.field, code: 'not-bookable', message: check.message }],
    { reason: check.reason },
  );
}
