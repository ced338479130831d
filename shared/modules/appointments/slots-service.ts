import { canSeeYard, carrierOf, type Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import type { YardService } from '../yards/service.js';
import { freeSlots } from './availability.js';
import { AvailabilityCache } from './availability-cache.js';
import { availabilityJson } from './availability-json.js';
import { bookingContextFor } from './carrier-rules.js';
import type { AppointmentRepo } from './repo.js';
import type { AppointmentService } from './service.js';
import { doorBookings, localDate, windowOfDates } from './slot-reads.js';
import { dayNumber, yardClock } from './wall-clock.js';

/** The longest range one availability request may ask for, in days. */
const MAX_DAYS = 31;
const MINUTE = 60_000;

export type SlotDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  appointments: Pick<AppointmentService, 'repo'>;
  yards: Pick<YardService, 'getRow'>;
};

/** GET /api/appointment/availability: the free start times of a load type (docs/domain.md "Booking rules"). */
export class SlotService {
  private readonly repo: AppointmentRepo;
  private readonly cache: AvailabilityCache;

  constructor(private readonly deps: SlotDeps) {
    this.repo = deps.appointments.repo;
    this.cache = new AvailabilityCache(deps.changes.generations);
  }

  async availability(
    principal: Principal,
    query: {
      yardId: string;
      loadTypeId: string;
      date?: string | undefined;
      from?: string | undefined;
      to?: string | undefined;
    },
  ) {
    if (!canSeeYard(principal, query.yardId)) throw new NotFoundError('Yard', query.yardId);
    const stamp = this.cache.stamp(); // before the first read: an answer is kept only if still current
    const yard = await this.deps.yards.getRow(query.yardId);
    // A carrier user: carrier-visible load types of yards that take bookings only (else 404).
    const ctx = await bookingContextFor(principal, this.repo, yard, query.loadTypeId);
    // Staff see the free doors; a carrier user the times only (the yard chooses the door).
    const withDoors = carrierOf(principal) === null;
    const now = this.deps.clock.now();
    const fromDate = query.date ?? query.from ?? localDate(now, yard.timeZone);
    const toDate = query.date ?? query.to ?? fromDate;
    const days = dayNumber(toDate) - dayNumber(fromDate) + 1;
    if (days < 1 || days > MAX_DAYS) {
      throw new ValidationError([
        {
          path: 'to',
          code: 'range',
          message: `Ask for 1 to ${MAX_DAYS} days, from a date to a date not before it.`,
        },
      ]);
    }
    const key = `${yard.id}|${ctx.loadType.id}|${fromDate}|${toDate}|${withDoors ? 'doors' : 'times'}`;
    const kept = this.cache.get(key, now);
    if (kept) return kept;
    const doors = await doorBookings(this.repo, this.deps.kysely, ctx, windowOfDates(fromDate, toDate));
    const slots = freeSlots({
      rules: ctx.rules,
      durationMinutes: ctx.loadType.durationMinutes,
      doors,
      fromDate,
      toDate,
      now,
    });
    const clock = yardClock(yard.timeZone);
    const answer = availabilityJson(
      { yardId: yard.id, loadTypeId: ctx.loadType.id, timeZone: yard.timeZone },
      slots,
      clock,
      withDoors,
    );
    // The clock changes the answer only when the first free start drops under the shortest lead
    // time, or at the yard's midnight (the longest lead time reaches one more date).
    const midnight = clock.boundary(clock.dayOf(now) + 1, 0, 'from');
    const firstDrops = slots[0] ? slots[0].startAt - ctx.rules.leadTimeMinMinutes * MINUTE + 1 : midnight;
    this.cache.set(key, stamp, Math.min(midnight, firstDrops), answer);
    return answer;
  }
}
