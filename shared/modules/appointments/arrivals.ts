import { DateTime } from 'luxon';
import type { Principal } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import type { Arrival } from '../../db/tables.js';
import { InvalidTransitionError, NotFoundError } from '../../http/errors.js';
import { arrivalRepo } from './arrival-repo.js';
import {
  type AppointmentAnnouncer,
  actorOf,
  type GateMovement,
  type GateWriteDeps,
  writeArrivalChange,
} from './gate-writes.js';
import type { AppointmentRow } from './repo.js';
import { appointmentStatus } from './status.js';
import type { YardEvents } from './yard-events.js';

/**
 * Arrival (docs/domain.md "Appointments"): early when it is more than lateGraceMinutes before the
 * start, late when more than lateGraceMinutes after it, otherwise on time. A no-show that comes
 * after all is late whatever the clock says (the late fee applies, the no-show fee does not).
 */
export function arrivalOf(
  arrivedAt: number,
  startAt: number,
  lateGraceMinutes: number,
  wasNoShow = false,
): Arrival {
  const grace = lateGraceMinutes * 60_000;
  if (wasNoShow || arrivedAt > startAt + grace) return 'late';
  if (arrivedAt < startAt - grace) return 'early';
  return 'on_time';
}

/**
 * The gate side of appointments, handed to the movements module (its MovementAppointments): in the
 * movement's transaction, a check-in with appointmentId records the arrival (and docks it when the
 * trailer goes straight to a door); a check-out records departure and completion (yard-events.ts).
 * Works the same at a linked edge offline: everything it reads and writes is the site's.
 */
export class GateArrivals {
  constructor(
    private readonly deps: GateWriteDeps & { yardEvents: YardEvents; announcer: AppointmentAnnouncer },
  ) {}

  /**
   * The appointment a check-in names may be matched: of the check-in's yard (else 404, as if it did
   * not exist), not cancelled nor completed, not arrived already (409 invalid-transition). Called
   * before any write of the movement.
   */
  async assertMatchable(trx: Kdb, appointmentId: string, yardId: string): Promise<void> {
    const row = await arrivalRepo.forWrite(trx, appointmentId);
    if (!row || row.yardId !== yardId) throw new NotFoundError('Appointment in this yard', appointmentId);
    const status = appointmentStatus(row);
    if (status === 'cancelled' || status === 'completed') {
      throw new InvalidTransitionError(
        status,
        'arrived',
        `This appointment is ${status}: check in without it.`,
      );
    }
    if (row.arrivedAt !== null) {
      throw new InvalidTransitionError(
        status,
        'arrived',
        `This appointment arrived already, at ${DateTime.fromMillis(row.arrivedAt).toUTC().toFormat('HH:mm')} UTC.`,
      );
    }
  }

  /**
   * After the movement's insert, in its transaction: the arrival of a check-in that names an
   * appointment, the departure and completion a check-out brings. Returns the appointments changed
   * (for `committed`).
   */
  async movementRecorded(trx: Kdb, movement: GateMovement, principal: Principal): Promise<string[]> {
    if (movement.direction === 'out') return this.deps.yardEvents.checkedOut(trx, movement, principal);
    if (!movement.appointmentId) return [];
    const row = await arrivalRepo.forWrite(trx, movement.appointmentId);
    if (!row) return [];
    const arrived = await this.arrive(trx, row, movement, principal);
    await this.deps.yardEvents.dockAtCheckIn(trx, arrived, movement, principal);
    return [row.id];
  }

  /** After the commit: `appointment.changed` for each. */
  committed(ids: string[]): Promise<void> {
    return this.deps.announcer.committed(ids);
  }

  private async arrive(
    trx: Kdb,
    row: AppointmentRow,
    movement: GateMovement,
    principal: Principal,
  ): Promise<AppointmentRow> {
    const { lateGraceMinutes } = await arrivalRepo.rules(trx, row.yardId);
    const arrival = arrivalOf(movement.at, row.startAt, lateGraceMinutes, row.noShowAt !== null);
    return writeArrivalChange(this.deps, trx, row, {
      kind: 'arrived',
      patch: { arrivedAt: movement.at, arrival, movementId: movement.id },
      actor: actorOf(principal),
      detail: { movementId: movement.id, arrival },
    });
  }
}
