import type { YardApp } from '../shared/app.js';
import { newAppointmentCode } from '../shared/modules/appointments/codes.js';
import { writeHistory } from '../shared/modules/appointments/history.js';
import type { AppointmentStatus } from '../shared/modules/appointments/status.js';
import type { Outcome, PastAppointment } from './demo-appointment-plan.js';
import type { Api, Scheduling } from './demo-scheduling.js';

/**
 * The demo's planned appointments written where each part belongs (edge/demo-appointments.ts): the
 * trucks' gate movements at the site, the bookings with their outcomes and history at the place
 * that books, and the check-ins' links to their appointments once those reached the site.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;

/**
 * The gate's side at the site: each truck that came is checked in (to its door when it went
 * straight there and is still at it) and, once gone, checked out, at its past times.
 */
export async function recordGateMovements(
  site: Api,
  s: Scheduling,
  plans: PastAppointment[],
): Promise<number> {
  let movements = 0;
  for (const p of plans) {
    if (p.arrivedAt === undefined) continue;
    const checkIn = await site('POST', '/api/movement', {
      yardId: s.yardId,
      direction: 'in',
      at: new Date(p.arrivedAt).toISOString(),
      carrierId: p.carrierId,
      trailer: { number: p.trailerNumber, carrierId: p.carrierId },
      truck: { plate: p.truckPlate, plateRegion: 'TX', carrierId: p.carrierId },
      ...(p.outcome === 'docked' ? { locationId: p.doorId } : {}),
      loadStatus: 'loaded',
    });
    p.inMovementId = checkIn.id;
    movements++;
    if (p.departedAt === undefined) continue;
    const checkOut = await site('POST', '/api/movement', {
      yardId: s.yardId,
      direction: 'out',
      at: new Date(p.departedAt).toISOString(),
      trailer: { id: checkIn.trailerId },
      truck: { id: checkIn.truckId },
      loadStatus: 'empty',
    });
    p.outMovementId = checkOut.id;
    movements++;
  }
  return movements;
}

/**
 * Writes the planned bookings with their outcomes and history at the place that books, through its
 * change capture (see the file's comment), in one transaction.
 */
export function pastAppointmentsWriter(
  booking: YardApp,
  s: Scheduling,
): (plans: PastAppointment[]) => Promise<void> {
  const { kysely, changes } = booking.core;
  return (plans) =>
    kysely.transaction().execute(async (trx) => {
      const codes = new Set<string>();
      for (const p of plans) {
        let code = newAppointmentCode();
        while (codes.has(code)) code = newAppointmentCode();
        codes.add(code);
        const noShowAt = p.outcome === 'no_show' ? p.startAt + s.rules.noShowAfterMinutes * MIN : null;
        const cancelledAt = p.outcome === 'cancelled' ? p.startAt - 20 * HOUR : null;
        const arrival = p.arrivedAt === undefined ? null : arrivalOfOutcome(p.outcome);
        await changes.insert(trx, 'appointment', {
          id: p.id,
          yardId: s.yardId,
          doorId: p.doorId,
          loadTypeId: p.loadTypeId,
          startAt: p.startAt,
          endAt: p.endAt,
          carrierId: p.carrierId,
          refs: JSON.stringify([`PO-${48_100 + plans.indexOf(p)}`]),
          trailerNumber: p.trailerNumber,
          truckPlate: p.truckPlate,
          driverName: p.driverName,
          driverPhone: '+12145550142',
          notes: null,
          code,
          overrideReason: null,
          createdBy: null,
          cancelledAt,
          cancelReason: cancelledAt ? 'The carrier moved the load to next week' : null,
          arrivedAt: p.arrivedAt ?? null,
          arrival,
          movementId: p.inMovementId ?? null,
          dockedAt: p.dockedAt ?? null,
          completedAt: p.completedAt ?? null,
          departedAt: p.departedAt ?? null,
          noShowAt,
          createdAt: p.bookedAt,
          updatedAt: Math.max(
            p.bookedAt,
            p.departedAt ?? p.dockedAt ?? p.arrivedAt ?? noShowAt ?? cancelledAt ?? 0,
          ),
        });
        const steps: Array<[number | null | undefined, string, AppointmentStatus | null, AppointmentStatus]> =
          [
            [p.bookedAt, 'booked', null, 'scheduled'],
            [cancelledAt, 'cancelled', 'scheduled', 'cancelled'],
            [noShowAt, 'no_show', 'scheduled', 'no_show'],
            [p.arrivedAt, 'arrived', 'scheduled', 'arrived'],
            [p.dockedAt, 'docked', 'arrived', 'docked'],
            [p.completedAt, 'completed', 'docked', 'completed'],
            [p.departedAt, 'departed', 'completed', 'completed'],
          ];
        for (const [at, kind, from, to] of steps) {
          if (at == null) continue;
          // writeHistory stamps its row with the clock: give it the step's past time.
          await writeHistory({ clock: { now: () => at }, changes }, trx, {
            appointment: { id: p.id, yardId: s.yardId },
            kind,
            from,
            to,
            actor: { id: null, kind: 'system' },
            reason: kind === 'cancelled' ? 'The carrier moved the load to next week' : null,
          });
        }
      }
    });
}

function arrivalOfOutcome(o: Outcome): 'early' | 'on_time' | 'late' {
  return o === 'early' ? 'early' : o === 'late' ? 'late' : 'on_time';
}

/**
 * The check-ins name their appointment at the site (movement.appointmentId, as a check-in with an
 * appointment code does), once the appointments have reached it.
 */
export function movementLinksWriter(site: YardApp): (plans: PastAppointment[]) => Promise<void> {
  const { kysely, changes } = site.core;
  return (plans) =>
    kysely.transaction().execute(async (trx) => {
      for (const p of plans) {
        if (p.inMovementId) await changes.update(trx, 'movement', p.inMovementId, { appointmentId: p.id });
      }
    });
}
