import { canSeeYard, type Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { InvalidTransitionError, NotFoundError, PreconditionFailedError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { CarrierService } from '../carriers/service.js';
import type { YardService } from '../yards/service.js';
import { lockDays } from './availability.js';
import { assertCarrierExists, assertDoorOfYard, assertMayOverride } from './booking-checks.js';
import { freeCode, lockedCurrent, retryTakenCode, underDayLocks } from './booking-locks.js';
import {
  assertCarrierMayChangeNow,
  assertCarrierPatch,
  bookingCarrier,
  bookingContextFor,
  carrierAppointmentOut,
} from './carrier-rules.js';
import { writeHistory } from './history.js';
import { placeBooking } from './placement.js';
import type { AppointmentRepo } from './repo.js';
import type { AppointmentCreateT, AppointmentOutT, AppointmentPatchT } from './schema.js';
import type { AppointmentService } from './service.js';
import { appointmentStatus, FINAL } from './status.js';

const MINUTE = 60_000;

export type BookingDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  appointments: AppointmentService;
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
};

/**
 * Book, reschedule and cancel (docs/domain.md "Booking rules"). Overbooking is impossible also
 * with several cloud nodes on one database: the capacity check and the write run in one
 * transaction under the locks of the yard-local days the booking touches (booking-locks.ts).
 * Bookings are made where availability is known: the cloud or a standalone edge.
 */
export class AppointmentBooking {
  private readonly repo: AppointmentRepo;

  constructor(private readonly deps: BookingDeps) {
    this.repo = deps.appointments.repo;
  }

  async book(principal: Principal, input: AppointmentCreateT): Promise<AppointmentOutT> {
    this.assertBookingHere();
    // A carrier user books for its own carrier, without door or override (carrier-rules.ts).
    const carrierId = bookingCarrier(principal, input);
    assertMayOverride(principal, input.override);
    if (!canSeeYard(principal, input.yardId)) throw new NotFoundError('Yard', input.yardId);
    const yard = await this.deps.yards.getRow(input.yardId);
    const ctx = await bookingContextFor(principal, this.repo, yard, input.loadTypeId);
    await assertCarrierExists(this.deps.carriers, carrierId);
    if (input.doorId) await assertDoorOfYard(this.repo, ctx.yardId, input.doorId);
    const startAt = Date.parse(input.startAt);
    const endAt = startAt + ctx.loadType.durationMinutes * MINUTE;
    const id = newId();
    await retryTakenCode(() =>
      underDayLocks(
        this.deps.kysely,
        this.repo,
        ctx.yardId,
        lockDays(startAt, endAt, ctx.timeZone),
        async (trx) => {
          const doorId = await placeBooking(this.repo, trx, ctx, {
            now: this.deps.clock.now(),
            startAt,
            doorId: input.doorId,
            override: input.override,
          });
          const now = this.deps.clock.now();
          await this.deps.changes.insert(trx, 'appointment', {
            id,
            yardId: ctx.yardId,
            doorId,
            loadTypeId: ctx.loadType.id,
            startAt,
            endAt,
            carrierId,
            refs: JSON.stringify(input.refs),
            trailerNumber: input.trailerNumber ?? null,
            truckPlate: input.truckPlate ?? null,
            driverName: input.driverName ?? null,
            driverPhone: input.driverPhone ?? null,
            notes: input.notes ?? null,
            code: await freeCode(this.repo, trx, ctx.yardId),
            overrideReason: input.override?.reason ?? null,
            createdBy: principal.id,
            cancelledAt: null,
            cancelReason: null,
            arrivedAt: null,
            arrival: null,
            movementId: null,
            dockedAt: null,
            completedAt: null,
            departedAt: null,
            noShowAt: null,
            createdAt: now,
            updatedAt: now,
          });
          await writeHistory(this.deps, trx, {
            appointment: { id, yardId: ctx.yardId },
            kind: 'booked',
            from: null,
            to: 'scheduled',
            actor: principal,
            reason: input.override?.reason,
            detail: input.override ? { override: true } : null,
          });
        },
      ),
    );
    return this.announce(principal, id);
  }

  /**
   * Reschedule (start, door or load type: the booking rules again, without itself) or edit the
   * rest. Only a scheduled appointment moves; completed and cancelled ones change no more.
   */
  async reschedule(
    principal: Principal,
    id: string,
    patch: AppointmentPatchT,
    expectedVersion?: number,
  ): Promise<AppointmentOutT> {
    this.assertBookingHere();
    assertCarrierPatch(principal, patch);
    assertMayOverride(principal, patch.override);
    const seen = await this.deps.appointments.visibleView(principal, id);
    if (expectedVersion !== undefined && expectedVersion !== seen.version) {
      throw new PreconditionFailedError(seen.version);
    }
    const moves =
      (patch.startAt !== undefined && Date.parse(patch.startAt) !== seen.startAt) ||
      (patch.doorId !== undefined && patch.doorId !== seen.doorId) ||
      (patch.loadTypeId !== undefined && patch.loadTypeId !== seen.loadTypeId);
    const yard = await this.deps.yards.getRow(seen.yardId);
    // A carrier keeps the load type it has (staff may have booked a hidden one); a new one must be visible.
    const newLoadType = patch.loadTypeId !== undefined && patch.loadTypeId !== seen.loadTypeId;
    const ctx = moves
      ? await bookingContextFor(principal, this.repo, yard, patch.loadTypeId ?? seen.loadTypeId, newLoadType)
      : null;
    if (patch.carrierId !== undefined) await assertCarrierExists(this.deps.carriers, patch.carrierId);
    if (patch.doorId) await assertDoorOfYard(this.repo, seen.yardId, patch.doorId);
    const startAt = patch.startAt !== undefined ? Date.parse(patch.startAt) : seen.startAt;
    const endAt = ctx ? startAt + ctx.loadType.durationMinutes * MINUTE : seen.endAt;
    // The old days and the new ones, in date order: one order for every writer, so no lock cycle.
    const days = [
      ...new Set([
        ...lockDays(seen.startAt, seen.endAt, yard.timeZone),
        ...lockDays(startAt, endAt, yard.timeZone),
      ]),
    ].sort();
    await underDayLocks(this.deps.kysely, this.repo, seen.yardId, days, async (trx) => {
      const current = await lockedCurrent(this.repo, trx, id, expectedVersion);
      const status = appointmentStatus(current);
      await assertCarrierMayChangeNow(principal, this.repo, trx, {
        current,
        status,
        timeZone: yard.timeZone,
        now: this.deps.clock.now(),
      });
      if (FINAL.has(status))
        throw new InvalidTransitionError(status, status, `A ${status} appointment cannot change.`);
      if (moves && status !== 'scheduled') {
        throw new InvalidTransitionError(
          status,
          'scheduled',
          `Only a scheduled appointment can be moved; this one is ${status}.`,
        );
      }
      const doorId = ctx
        ? await placeBooking(this.repo, trx, ctx, {
            now: this.deps.clock.now(),
            startAt,
            doorId: patch.doorId,
            preferDoorId: current.doorId,
            override: patch.override,
            exceptId: id,
          })
        : current.doorId;
      await this.deps.changes.update(
        trx,
        'appointment',
        id,
        {
          ...(ctx ? { startAt, endAt, doorId, loadTypeId: ctx.loadType.id } : {}),
          ...(patch.carrierId !== undefined ? { carrierId: patch.carrierId } : {}),
          ...(patch.refs !== undefined ? { refs: JSON.stringify(patch.refs) } : {}),
          ...(patch.trailerNumber !== undefined ? { trailerNumber: patch.trailerNumber } : {}),
          ...(patch.truckPlate !== undefined ? { truckPlate: patch.truckPlate } : {}),
          ...(patch.driverName !== undefined ? { driverName: patch.driverName } : {}),
          ...(patch.driverPhone !== undefined ? { driverPhone: patch.driverPhone } : {}),
          ...(patch.notes !== undefined ? { notes: patch.notes } : {}),
          ...(ctx && patch.override ? { overrideReason: patch.override.reason } : {}),
        },
        { expectedVersion: current.version },
      );
      const was = {
        startAt: current.startAt,
        endAt: current.endAt,
        doorId: current.doorId,
        loadTypeId: current.loadTypeId,
      };
      await writeHistory(this.deps, trx, {
        appointment: current,
        kind: ctx ? 'rescheduled' : 'edited',
        from: status,
        to: status,
        actor: principal,
        reason: ctx ? patch.override?.reason : undefined,
        detail: ctx
          ? {
              from: was,
              to: { startAt, endAt, doorId, loadTypeId: ctx.loadType.id },
              override: Boolean(patch.override),
            }
          : { fields: Object.keys(patch).filter((k) => k !== 'override') },
      });
    });
    return this.announce(principal, id);
  }

  /** Cancel with a reason: a scheduled or arrived appointment (docs/domain.md "Appointments" states). */
  async cancel(
    principal: Principal,
    id: string,
    reason: string,
    expectedVersion?: number,
  ): Promise<AppointmentOutT> {
    this.assertBookingHere();
    const seen = await this.deps.appointments.visibleView(principal, id);
    const yard = await this.deps.yards.getRow(seen.yardId);
    await underDayLocks(
      this.deps.kysely,
      this.repo,
      seen.yardId,
      lockDays(seen.startAt, seen.endAt, yard.timeZone),
      async (trx) => {
        const current = await lockedCurrent(this.repo, trx, id, expectedVersion);
        const status = appointmentStatus(current);
        await assertCarrierMayChangeNow(principal, this.repo, trx, {
          current,
          status,
          timeZone: yard.timeZone,
          now: this.deps.clock.now(),
        });
        if (status !== 'scheduled' && status !== 'arrived')
          throw new InvalidTransitionError(status, 'cancelled');
        await this.deps.changes.update(
          trx,
          'appointment',
          id,
          { cancelledAt: this.deps.clock.now(), cancelReason: reason },
          { expectedVersion: current.version },
        );
        await writeHistory(this.deps, trx, {
          appointment: current,
          kind: 'cancelled',
          from: status,
          to: 'cancelled',
          actor: principal,
          reason,
        });
      },
    );
    return this.announce(principal, id);
  }

  /** After commit: the live event, and the answer as the caller may read it. */
  private async announce(principal: Principal, id: string): Promise<AppointmentOutT> {
    const out = await this.deps.appointments.view(id);
    this.deps.appointments.publishChanged(out);
    return carrierAppointmentOut(principal, out);
  }

  /**
   * A linked edge keeps a copy of the bookings; they are made in the cloud (409 cloud-owned, the
   * split-by-field rule of shared/sync/site-rules.ts), refused before any rule is checked.
   */
  private assertBookingHere(): void {
    this.deps.changes.assertMayWrite('appointment', undefined, { op: 'insert' });
  }
}
