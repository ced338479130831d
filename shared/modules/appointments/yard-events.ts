import type { Principal } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import type { AnyRowObserver, RowWrite } from '../../sync/row-observers.js';
import { arrivalRepo } from './arrival-repo.js';
import {
  type Actor,
  type AppointmentAnnouncer,
  actorOf,
  type GateMovement,
  type GateWriteDeps,
  SYSTEM,
  writeArrivalChange,
} from './gate-writes.js';
import type { AppointmentRow } from './repo.js';
import { appointmentStatus } from './status.js';

type OpenAppointment = AppointmentRow & { checkInTrailerId: string | null; checkInTruckId: string | null };

const TRAILER: ReadonlySet<string> = new Set(['trailer']);

/**
 * Docked, completed and departed follow from what happens to the appointment's units in the yard
 * (docs/domain.md "Appointments"); the units are the trailer and truck of the check-in movement that
 * matched it:
 * - docked: its trailer is placed at a door (checked in to a door, a relocating task completed to a
 *   door, moved there by hand);
 * - completed: its trailer (a truck-only appointment: its truck) leaves that door or the yard;
 * - departed: the `out` movement of its truck (else its trailer), after the arrival.
 * Each is recorded where the event is recorded (the gate's edge; a task completed at the cloud at
 * the cloud), through core.changes, so the appointment's arrival fields reach the other side by
 * sync; the sync applier derives nothing here.
 */
export class YardEvents {
  constructor(private readonly deps: GateWriteDeps & { announcer: AppointmentAnnouncer }) {}

  /** A check-in that names an appointment and parks the trailer at a door docks it at once. */
  async dockAtCheckIn(
    trx: Kdb,
    row: AppointmentRow,
    movement: GateMovement,
    principal: Principal,
  ): Promise<void> {
    if (!movement.trailerId || !movement.locationId) return;
    if ((await arrivalRepo.locationKind(trx, movement.locationId)) !== 'door') return;
    await this.dock(trx, row, movement.locationId, movement.at, actorOf(principal));
  }

  /**
   * A check-out: the appointments its trailer or truck arrived for are completed when their load
   * unit (the trailer, else the truck) leaves, and departed when their driving unit (the truck, else
   * the trailer) leaves. Returns the appointments changed.
   */
  async checkedOut(trx: Kdb, movement: GateMovement, principal: Principal): Promise<string[]> {
    const byId = new Map<string, OpenAppointment>();
    if (movement.trailerId) {
      for (const r of await arrivalRepo.openOfUnit(trx, movement.yardId, {
        kind: 'trailer',
        id: movement.trailerId,
      }))
        byId.set(r.id, r);
    }
    if (movement.truckId) {
      for (const r of await arrivalRepo.openOfUnit(trx, movement.yardId, {
        kind: 'truck',
        id: movement.truckId,
      }))
        byId.set(r.id, r);
    }
    const actor = actorOf(principal);
    const changed: string[] = [];
    for (let row of byId.values()) {
      if (row.arrivedAt === null || movement.at < row.arrivedAt) continue;
      const left = (unit: string | null, kind: 'trailer' | 'truck') =>
        unit !== null && unit === (kind === 'trailer' ? movement.trailerId : movement.truckId);
      const loadLeft = row.checkInTrailerId
        ? left(row.checkInTrailerId, 'trailer')
        : left(row.checkInTruckId, 'truck');
      const driverLeft = row.checkInTruckId
        ? left(row.checkInTruckId, 'truck')
        : left(row.checkInTrailerId, 'trailer');
      const status = appointmentStatus(row);
      let touched = false;
      if (loadLeft && (status === 'arrived' || status === 'docked')) {
        row = {
          ...row,
          ...(await writeArrivalChange(this.deps, trx, row, {
            kind: 'completed',
            patch: { completedAt: movement.at },
            actor,
            detail: { movementId: movement.id, left: 'yard' },
          })),
        };
        touched = true;
      }
      if (driverLeft && row.departedAt === null) {
        await writeArrivalChange(this.deps, trx, row, {
          kind: 'departed',
          patch: { departedAt: movement.at },
          actor,
          detail: { movementId: movement.id },
        });
        touched = true;
      }
      if (touched) changed.push(row.id);
    }
    return changed;
  }

  /**
   * The observer of trailer writes (shared/services.ts adds it): a trailer moved within its yard
   * docks the appointments it arrived for when it reaches a door, and completes them when it leaves
   * the door. Check-in and check-out are the gate's (GateArrivals); rows applied by sync are left
   * alone (rowWork does nothing): their appointment changes come by sync from the side that moved
   * the trailer.
   */
  trailerObserver(): AnyRowObserver {
    return {
      tables: TRAILER,
      *rowWork() {},
      rowWrittenIn: (trx: Kdb, write: RowWrite) => this.trailerWritten(trx, write),
    };
  }

  private async trailerWritten(trx: Kdb, { before, after }: RowWrite): Promise<void> {
    if (!before || !after) return;
    const from = (before.locationId as string | null) ?? null;
    const to = (after.locationId as string | null) ?? null;
    const yardId = after.yardId as string | null;
    if (from === to || !yardId || before.yardId !== yardId) return;
    const trailerId = String(after.id);
    const open = (await arrivalRepo.openOfUnit(trx, yardId, { kind: 'trailer', id: trailerId })).filter(
      (r) => r.checkInTrailerId === trailerId,
    );
    if (open.length === 0) return;
    const fromKind = from ? await arrivalRepo.locationKind(trx, from) : undefined;
    const toKind = to ? await arrivalRepo.locationKind(trx, to) : undefined;
    const at = this.deps.clock.now();
    for (const row of open) {
      const status = appointmentStatus(row);
      let written: AppointmentRow | undefined;
      if (status === 'arrived' && toKind === 'door' && to) {
        written = await this.dock(trx, row, to, at, SYSTEM);
      } else if (status === 'docked' && fromKind === 'door') {
        written = await writeArrivalChange(this.deps, trx, row, {
          kind: 'completed',
          patch: { completedAt: at },
          actor: SYSTEM,
          detail: { left: 'door', locationId: from, toLocationId: to },
        });
      }
      if (written) this.deps.announcer.whenCommitted(written.id, written.version);
    }
  }

  private dock(trx: Kdb, row: AppointmentRow, doorId: string, at: number, actor: Actor) {
    return writeArrivalChange(this.deps, trx, row, {
      kind: 'docked',
      patch: { dockedAt: at },
      actor,
      detail: { locationId: doorId },
    });
  }
}
