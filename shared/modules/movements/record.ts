import { type Principal, visibleOr404 } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { GateSnapshotResult } from '../cameras/service.js';
import type { ActuatedGate } from '../hardware/service.js';
import type { TrailerAtGate } from '../trailers/at-gate.js';
import type { TrailerService } from '../trailers/service.js';
import type { TruckAtGate } from '../trucks/at-gate.js';
import type { TruckService } from '../trucks/service.js';
import { checkNewTrailer } from './new-unit.js';
import { MovementRepo, type MovementRow, type TrailerRow, type TruckRow } from './repo.js';
import type { MovementCreateT } from './schema.js';
import { checkUnitState, unitLabel } from './unit-state.js';
import { assertVisitOrder } from './visit-order.js';

/** What the driver check said, found before the transaction (other services use their own connection). */
export interface DriverVerdict {
  allowed: boolean;
  reasons: string[];
}

export interface Recorded {
  movement: MovementRow;
  gate: ActuatedGate | undefined;
  createdUnits: { trailerId: string | null; truckId: string | null };
  /** The appointments the movement changed (arrived, docked, completed, departed): announced after the commit. */
  appointmentIds: string[];
}

/**
 * The appointments a gate movement matches or ends (the appointments module's GateArrivals, wired
 * in shared/services.ts), in the movement's transaction (docs/domain.md "Appointments").
 */
export interface MovementAppointments {
  /** The 404 / 409 of an appointmentId this check-in may not match; before any write. */
  assertMatchable(trx: Kdb, appointmentId: string, yardId: string): Promise<void>;
  /** After the movement's insert: the arrival it records, or what a check-out ends. The appointments changed. */
  movementRecorded(trx: Kdb, movement: MovementRow, principal: Principal): Promise<string[]>;
  /** After the commit: tells the watchers of the changed appointments. */
  committed(appointmentIds: string[]): Promise<void>;
}

/** What recording a movement writes with: the clock and the change capture of synced rows. */
type RecordDeps = Pick<CoreParts, 'clock' | 'changes'> & {
  /** A movement's trailer and truck are written by their modules, in the movement's transaction. */
  trailers: Pick<TrailerService, 'atGate'>;
  trucks: Pick<TruckService, 'atGate'>;
  appointments: Pick<MovementAppointments, 'assertMatchable' | 'movementRecorded'>;
};

type Unit<R> = { row: R; isNew: false } | { row: undefined; isNew: true };

/**
 * Records one gate movement inside the caller's transaction: every check first, then the writes
 * (trailer / truck state, movement), so a refused movement writes nothing. The movement's insert
 * opens or closes its visits in the same transaction (visits.ts, the rule a movement applied by
 * sync runs too).
 */
export async function recordMovement(
  deps: RecordDeps,
  trx: Kdb,
  input: MovementCreateT,
  ctx: {
    principal: Principal;
    at: number;
    driver: DriverVerdict | undefined;
    /** Pictures taken for this movement before it is recorded (snapshot: true). */
    snapshots?: GateSnapshotResult[] | undefined;
  },
): Promise<Recorded> {
  const repo = new MovementRepo(trx);
  const { at } = ctx;
  const warnings: string[] = [];

  if (!(await repo.yard(input.yardId))) throw new NotFoundError('Yard', input.yardId);
  const gate = input.gateId ? await repo.gate(input.gateId) : undefined;
  if (input.gateId) {
    if (!gate || gate.yardId !== input.yardId) throw new NotFoundError('Gate in this yard', input.gateId);
    if (gate.direction !== 'both' && gate.direction !== input.direction) {
      throw new ConflictError(
        'gate-direction',
        `Gate ${gate.name} is for direction "${gate.direction}" only.`,
        { gateDirection: gate.direction },
      );
    }
  }
  if (input.locationId) {
    const location = await repo.location(input.locationId);
    if (!location || location.yardId !== input.yardId) {
      throw new NotFoundError('Location in this yard', input.locationId);
    }
  }
  for (const carrierId of new Set([input.carrierId, input.trailer?.carrierId, input.truck?.carrierId])) {
    if (carrierId && !(await repo.carrier(carrierId))) throw new NotFoundError('Carrier', carrierId);
  }
  const driver = input.driverId ? await repo.driver(input.driverId) : undefined;
  if (input.driverId && !driver) throw new NotFoundError('Driver', input.driverId);
  // input.attachmentIds were checked by the attachments module before (MovementService.create).
  if (input.appointmentId) await deps.appointments.assertMatchable(trx, input.appointmentId, input.yardId);
  if (input.correctsId) {
    // A movement of a yard outside the caller's scope answers exactly like one that does not exist.
    visibleOr404(ctx.principal, await repo.movement(input.correctsId), 'Movement', input.correctsId);
  }

  const trailer = input.trailer ? await findTrailer(repo, input) : undefined;
  const truck = input.truck ? await findTruck(repo, input) : undefined;
  if (trailer) checkUnitState('trailer', trailer.row, input, ctx.principal, warnings);
  if (trailer?.isNew) await checkNewTrailer(repo, input, ctx.principal, warnings);
  if (truck) checkUnitState('truck', truck.row, input, ctx.principal, warnings);
  await assertVisitOrder(
    repo,
    [
      ...(trailer?.row
        ? [{ kind: 'trailer', id: trailer.row.id, label: unitLabel('trailer', trailer.row, input) } as const]
        : []),
      ...(truck?.row
        ? [{ kind: 'truck', id: truck.row.id, label: unitLabel('truck', truck.row, input) } as const]
        : []),
    ],
    {
      direction: input.direction,
      at,
      // A check-out closes the unit's open visit; so does a forced check-in of a unit already in a yard.
      closesOpenVisit: input.direction === 'out' || warnings.some((w) => w.startsWith('already-in-yard')),
    },
  );

  let overrideReason: string | null = null;
  if (ctx.driver && !ctx.driver.allowed) {
    if (!input.override) {
      throw new ConflictError(
        'driver-not-allowed',
        `The driver check refuses this driver: ${ctx.driver.reasons.join(', ')}. Send override {reason} to admit anyway.`,
        { reasons: ctx.driver.reasons },
      );
    }
    overrideReason = input.override.reason;
    warnings.push(`driver-override: ${ctx.driver.reasons.join(', ')}`);
  }
  const snapshotIds: string[] = [];
  if (input.snapshot) {
    if (!gate) warnings.push('snapshot-unavailable: no gate given');
    else if (!ctx.snapshots?.length)
      warnings.push(`snapshot-unavailable: gate ${gate.name} has no enabled cameras`);
    for (const shot of ctx.snapshots ?? []) {
      if (shot.attachmentId) snapshotIds.push(shot.attachmentId);
      else warnings.push(`snapshot-failed: ${shot.cameraName}: ${shot.error}`);
    }
  }

  // --- writes ---
  const now = deps.clock.now();
  // A unit new to the system carries the carrier given with it: the movement (and so the visit, which
  // billing charges to that carrier) records it too.
  const carrierId =
    input.carrierId ??
    trailer?.row?.carrierId ??
    (trailer?.isNew ? input.trailer?.carrierId : undefined) ??
    truck?.row?.carrierId ??
    (truck?.isNew ? input.truck?.carrierId : undefined) ??
    driver?.carrierId ??
    null;
  const trailerId = trailer ? await deps.trailers.atGate(trx, trailerAtGate(trailer, input, at), now) : null;
  const truckId = truck ? await deps.trucks.atGate(trx, truckAtGate(truck, input), now) : null;

  const movement = await deps.changes.insert(trx, 'movement', {
    id: newId(),
    yardId: input.yardId,
    gateId: input.gateId ?? null,
    direction: input.direction,
    at,
    truckId,
    trailerId,
    driverId: input.driverId ?? null,
    carrierId,
    locationId: input.locationId ?? null,
    loadStatus: input.loadStatus ?? null,
    sealNumber: input.sealNumber ?? null,
    plateRead: input.plateRead ?? null,
    attachmentIds: JSON.stringify([...(input.attachmentIds ?? []), ...snapshotIds]),
    actuationId: null,
    operatorId: ctx.principal.id,
    notes: input.notes ?? null,
    warnings: JSON.stringify(warnings),
    overrideReason,
    correctsId: input.correctsId ?? null,
    appointmentId: input.appointmentId ?? null,
    createdAt: now,
  });
  const appointmentIds = await deps.appointments.movementRecorded(trx, movement, ctx.principal);

  return {
    movement,
    gate,
    createdUnits: {
      trailerId: trailer?.isNew ? trailerId : null,
      truckId: truck?.isNew ? truckId : null,
    },
    appointmentIds,
  };
}

async function findTrailer(repo: MovementRepo, input: MovementCreateT): Promise<Unit<TrailerRow>> {
  const ref = input.trailer!;
  if (ref.id) {
    const row = await repo.trailer(ref.id);
    if (!row) throw new NotFoundError('Trailer', ref.id);
    return { row, isNew: false };
  }
  const candidates = await repo.trailersByNumber(ref.number!, ref.carrierId ?? input.carrierId);
  const row = preferByYard(candidates, input);
  return row ? { row, isNew: false } : { row: undefined, isNew: true };
}

async function findTruck(repo: MovementRepo, input: MovementCreateT): Promise<Unit<TruckRow>> {
  const ref = input.truck!;
  if (ref.id) {
    const row = await repo.truck(ref.id);
    if (!row) throw new NotFoundError('Truck', ref.id);
    return { row, isNew: false };
  }
  const row = preferByYard(await repo.trucksByPlate(normalPlate(ref.plate!), ref.plateRegion), input);
  return row ? { row, isNew: false } : { row: undefined, isNew: true };
}

/**
 * Of several units with the same number / plate, the one this movement most likely means: for a
 * check-out one in this yard, for a check-in one in no yard; else the first (the repo's order).
 */
export function preferByYard<R extends { yardId: string | null }>(
  rows: R[],
  input: MovementCreateT,
): R | undefined {
  const wanted = (r: R) => (input.direction === 'out' ? r.yardId === input.yardId : r.yardId === null);
  return rows.find(wanted) ?? rows[0];
}

/** The trailer as the movement saw it: new or known, in the yard (on a spot) or out. */
function trailerAtGate(unit: Unit<TrailerRow>, input: MovementCreateT, at: number): TrailerAtGate {
  const checkIn = input.direction === 'in';
  const seen = {
    presence: {
      yardId: checkIn ? input.yardId : null,
      locationId: checkIn ? (input.locationId ?? null) : null,
      arrivedAt: checkIn ? at : null,
    },
    loadStatus: input.loadStatus,
    sealNumber: input.sealNumber,
  };
  if (!unit.isNew) return { ...seen, id: unit.row.id };
  const ref = input.trailer!;
  return {
    ...seen,
    id: undefined,
    identity: {
      carrierId: ref.carrierId ?? input.carrierId ?? null,
      number: ref.number!,
      plate: ref.plate ?? null,
      type: ref.type,
    },
  };
}

/** The truck as the movement saw it: new or known, in the yard or out. */
function truckAtGate(unit: Unit<TruckRow>, input: MovementCreateT): TruckAtGate {
  const yardId = input.direction === 'in' ? input.yardId : null;
  if (!unit.isNew) return { id: unit.row.id, yardId };
  const ref = input.truck!;
  return {
    id: undefined,
    identity: {
      carrierId: ref.carrierId ?? input.carrierId ?? null,
      unitNumber: ref.unitNumber ?? null,
      plate: normalPlate(ref.plate!),
      plateRegion: ref.plateRegion ?? null,
    },
    yardId,
  };
}

/** Plates are stored and matched in upper case without surrounding spaces. */
export function normalPlate(plate: string): string {
  return plate.trim().toUpperCase();
}
