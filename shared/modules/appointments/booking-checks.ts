/**
 * What a booking or a change must name before any slot is looked at (docs/domain.md "Booking
 * rules"): an override only from the yard's office, a carrier that exists, a door of the yard.
 * The carrier user's own limits are carrier-rules.ts'; the slot rules are placement.ts'.
 */
import type { Principal } from '../../auth/principal.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.js';
import type { CarrierService } from '../carriers/service.js';
import type { AppointmentRepo } from './repo.js';

/** Roles that may book outside the rules with a reason (docs/domain.md "Booking rules"). */
const OVERRIDERS: ReadonlySet<string> = new Set(['admin', 'dispatcher']);

export function assertMayOverride(principal: Principal, override: { reason: string } | undefined): void {
  if (override && !OVERRIDERS.has(principal.role)) {
    throw new ForbiddenError('Only admins and dispatchers may book outside the booking rules.');
  }
}

/** An unknown carrier is a field error of the request (400), not a missing resource (404). */
export async function assertCarrierExists(
  carriers: Pick<CarrierService, 'getRow'>,
  carrierId: string,
): Promise<void> {
  try {
    await carriers.getRow(carrierId);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    throw new ValidationError([
      { path: 'carrierId', code: 'not-found', message: 'There is no such carrier.' },
    ]);
  }
}

export async function assertDoorOfYard(
  repo: Pick<AppointmentRepo, 'doorIdsOf'>,
  yardId: string,
  doorId: string,
): Promise<void> {
  if (!(await repo.doorIdsOf(yardId, [doorId])).has(doorId)) {
    throw new ValidationError([
      { path: 'doorId', code: 'not-a-door', message: 'This is not a door of the yard.' },
    ]);
  }
}
