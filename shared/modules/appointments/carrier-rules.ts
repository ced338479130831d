/**
 * What a carrier user may do with appointments (docs/domain.md "Booking rules" and "Carriers and
 * integrators"), in one place: the booking and reading services call these and keep no carrier
 * rule of their own. Staff pass through every function unchanged (they keep their override).
 *
 * - A carrier books for its own carrier only (naming another is 404 Carrier, as if it did not
 *   exist), never picks a door and never overrides the rules (400).
 * - It books only carrier-visible load types of yards that take appointments (else 404).
 * - It changes or cancels only a scheduled appointment and only before startAt -
 *   changeCutoffMinutes: from that instant on, and once the truck has arrived, 409 `change-cutoff`
 *   with the reason in words and `changeUntil`.
 * - It reads its own carrier's appointments without what is the yard's business: the override
 *   reason, who booked, the gate movement, the actors and doors of the history.
 */
import { carrierOf, type Principal } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { type CutoffFacts, changeCutoffRefusal } from './change-cutoff.js';
import { configOut } from './out.js';
import type { AppointmentRepo, AppointmentRow } from './repo.js';
import type { AppointmentOutT } from './schema.js';
import { type BookingContext, bookingContext } from './slot-reads.js';
import type { AppointmentStatus } from './status.js';

/** Staff: nothing to check. A carrier: the cutoff (409 change-cutoff, change-cutoff.ts). */
export function assertCarrierMayChange(principal: Principal, a: CutoffFacts): void {
  if (carrierOf(principal) === null) return;
  const refusal = changeCutoffRefusal(a);
  if (refusal) throw refusal;
}

/**
 * The cutoff of the row as it is inside the booking transaction (booking.ts, under the day locks),
 * with the yard's changeCutoffMinutes as it is then. Staff: nothing is read.
 */
export async function assertCarrierMayChangeNow(
  principal: Principal,
  repo: Pick<AppointmentRepo, 'configOf'>,
  trx: Kdb,
  row: { current: AppointmentRow; status: AppointmentStatus; timeZone: string; now: number },
): Promise<void> {
  if (carrierOf(principal) === null) return;
  const config = configOut(row.current.yardId, await repo.configOf(row.current.yardId, trx));
  assertCarrierMayChange(principal, {
    startAt: row.current.startAt,
    status: row.status,
    arrivedAt: row.current.arrivedAt,
    changeCutoffMinutes: config.changeCutoffMinutes,
    timeZone: row.timeZone,
    now: row.now,
  });
}

/**
 * The carrier a booking is for. A carrier user: its own (given or left out; another one is 404
 * Carrier, as if it did not exist), and no door or override (400). Staff: the one given (400 when
 * left out).
 */
export function bookingCarrier(
  principal: Principal,
  input: { carrierId?: string | undefined; doorId?: string | undefined; override?: unknown },
): string {
  const own = carrierOf(principal);
  if (own === null) {
    if (!input.carrierId) {
      throw new ValidationError([
        { path: 'carrierId', code: 'required', message: 'Choose the carrier of the booking.' },
      ]);
    }
    return input.carrierId;
  }
  assertNoStaffFields(input);
  if (input.carrierId !== undefined && input.carrierId !== own)
    throw new NotFoundError('Carrier', input.carrierId);
  return own;
}

/** A carrier's change of an appointment: no door, no override (400), no other carrier (404). */
export function assertCarrierPatch(
  principal: Principal,
  patch: { carrierId?: string | undefined; doorId?: string | undefined; override?: unknown },
): void {
  const own = carrierOf(principal);
  if (own === null) return;
  assertNoStaffFields(patch);
  if (patch.carrierId !== undefined && patch.carrierId !== own)
    throw new NotFoundError('Carrier', patch.carrierId);
}

function assertNoStaffFields(input: { doorId?: string | undefined; override?: unknown }): void {
  const errors = [];
  if (input.doorId !== undefined) {
    errors.push({
      path: 'doorId',
      code: 'not-allowed',
      message: 'The yard chooses the door: book the time only.',
    });
  }
  if (input.override !== undefined) {
    errors.push({
      path: 'override',
      code: 'not-allowed',
      message: 'Only the yard’s office may book outside the booking rules.',
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * A load type as a carrier may book or see it: one of the yard's, visible to carriers (else 404,
 * as if it did not exist). Staff: any load type (the yard check is bookingContext's).
 */
export function assertCarrierLoadType(
  principal: Principal,
  loadType: { id: string; yardId: string; carrierVisible: number } | undefined,
  yardId: string,
  loadTypeId: string,
): void {
  if (carrierOf(principal) === null) return;
  if (!loadType || loadType.yardId !== yardId || loadType.carrierVisible !== 1) {
    throw new NotFoundError('Load type', loadTypeId);
  }
}

/**
 * A yard that takes no appointments is, to a carrier, a yard it cannot book: 404 as if it did
 * not exist (staff get 409 scheduling-off, which tells them what to switch on).
 */
export function asCarrierYardError(principal: Principal, yardId: string, err: unknown): unknown {
  if (carrierOf(principal) !== null && err instanceof ConflictError && err.code === 'scheduling-off') {
    return new NotFoundError('Yard', yardId);
  }
  return err;
}

/** The appointment as a carrier user reads it: the yard's own business left out. */
export function carrierAppointmentOut<T extends AppointmentOutT>(principal: Principal, out: T): T {
  if (carrierOf(principal) === null) return out;
  return { ...out, overrideReason: null, createdBy: null, movementId: null };
}

interface HistoryOut {
  actorId: string | null;
  reason: string | null;
  kind: string;
  detail: Record<string, unknown> | null;
}

/**
 * The history as a carrier user reads it: no actor ids, no door ids, no override reasons; a
 * reschedule keeps its old and new times, a cancellation its reason.
 */
export function carrierHistoryOut<T extends HistoryOut>(principal: Principal, events: T[]): T[] {
  if (carrierOf(principal) === null) return events;
  return events.map((e) => ({
    ...e,
    actorId: null,
    reason: e.kind === 'cancelled' ? e.reason : null,
    detail: e.kind === 'rescheduled' ? timesOnly(e.detail) : null,
  }));
}

function timesOnly(detail: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!detail) return null;
  const pick = (side: unknown) => {
    const s = (side ?? {}) as Record<string, unknown>;
    return { startAt: s.startAt ?? null, endAt: s.endAt ?? null };
  };
  return { from: pick(detail.from), to: pick(detail.to) };
}

/**
 * The booking context (slot-reads.ts) as the caller may book in it. A carrier user: the load type
 * must be one of the yard's carrier-visible ones when `checkLoadType` (a new booking, or a change
 * of load type), and a yard without scheduling is 404 (asCarrierYardError).
 */
export async function bookingContextFor(
  principal: Principal,
  repo: AppointmentRepo,
  yard: { id: string; timeZone: string },
  loadTypeId: string,
  checkLoadType = true,
): Promise<BookingContext> {
  if (checkLoadType && carrierOf(principal) !== null) {
    assertCarrierLoadType(principal, await repo.loadTypeById(loadTypeId), yard.id, loadTypeId);
  }
  try {
    return await bookingContext(repo, yard, loadTypeId);
  } catch (err) {
    throw asCarrierYardError(principal, yard.id, err);
  }
}
