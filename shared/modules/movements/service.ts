import { Duration } from 'luxon';
import {
  assertCanSeeYard,
  canSeeYard,
  type Principal,
  visibleOr404,
  yardFilter,
} from '../../auth/principal.js';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import type { AttachmentService } from '../attachments/service.js';
import type { GateSnapshotResult } from '../cameras/service.js';
import type { TrailerService } from '../trailers/service.js';
import type { TruckService } from '../trucks/service.js';
import type { GateStation } from './gate-station.js';
import { GroupCommit } from './group-commit.js';
import { assertNotInFuture, recordMovement } from './record.js';
import { MovementRepo, type MovementRow, type VisitRow } from './repo.js';
import type {
  MovementCreatedT,
  MovementCreateT,
  MovementListQueryT,
  MovementOutT,
  VisitListQueryT,
  VisitOutT,
} from './schema.js';

export type MovementDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'bus'> & {
  /** The driver check, pictures and relay pulse around a movement (gate-station.ts). */
  gateStation: GateStation;
  /** The movement's trailer and truck, written by their own modules in the movement's transaction. */
  trailers: Pick<TrailerService, 'atGate'>;
  trucks: Pick<TruckService, 'atGate'>;
  /** Whether the listed attachments may be this movement's evidence (their yard, their uploader). */
  attachments: Pick<AttachmentService, 'assertEvidenceFor'>;
};

export class MovementService {
  private readonly repo: MovementRepo;
  private readonly writes: GroupCommit;

  constructor(private readonly deps: MovementDeps) {
    this.repo = new MovementRepo(deps.kysely);
    this.writes = new GroupCommit(deps.kysely);
  }

  /** Records a check-in / check-out in one transaction; then, if asked, pulses the gate. */
  async create(input: MovementCreateT, principal: Principal): Promise<MovementCreatedT> {
    assertCanSeeYard(principal, input.yardId);
    // Movements are the edge's (the cloud answers 409 edge-owned): refuse before any camera is
    // called or relay pulsed, not when the movement row is written.
    this.deps.changes.assertMayWrite('movement', { yardId: input.yardId });
    await this.deps.attachments.assertEvidenceFor(input.yardId, input.attachmentIds ?? [], principal);
    const now = this.deps.clock.now();
    const at = input.at ?? now;
    assertNotInFuture(at, now);
    const driver =
      input.direction === 'in' && input.driverId
        ? await this.deps.gateStation.driverVerdict(input.driverId)
        : undefined;
    // Pictures first, while the vehicle is still at the barrier; a camera that fails or is slow
    // delays the gate by at most camera.movementSnapshotTimeoutMs and never stops it.
    const snapshots =
      input.snapshot && input.gateId ? await this.takeGateSnapshots(input.gateId, principal) : [];
    const recorded = await this.writes.run((trx) =>
      recordMovement(this.deps, trx, input, { principal, at, driver, snapshots }),
    );

    let actuation: MovementCreatedT['actuation'] = null;
    if (input.actuate && recorded.gate) {
      actuation = await this.deps.gateStation.actuate(recorded.gate, recorded.movement, principal);
    }
    const out = movementOut(recorded.movement, actuation?.id ?? null);
    this.deps.bus.publish({ type: 'movement.created', yardId: out.yardId, data: out });
    return { ...out, actuation, createdUnits: recorded.createdUnits, snapshots };
  }

  private async takeGateSnapshots(gateId: string, principal: Principal): Promise<GateSnapshotResult[]> {
    const gate = await this.repo.gate(gateId);
    if (!gate || !canSeeYard(principal, gate.yardId)) return []; // recordMovement answers the 404
    return this.deps.gateStation.snapshots(gateId);
  }

  async get(id: string, principal: Principal): Promise<MovementOutT> {
    const row = visibleOr404(principal, await this.repo.movement(id), 'Movement', id);
    const linked = await this.deps.gateStation.actuationsOf([row.id]);
    return movementOut(row, linked.get(row.id) ?? null);
  }

  async list(query: MovementListQueryT, principal: Principal) {
    const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
    const rows = await this.repo.list({
      ...query,
      yardIds: this.yardFilter(query.yardId, principal),
      after: after ? { at: Number(after[0]), id: String(after[1]) } : undefined,
    });
    const pageRows = rows.slice(0, query.limit);
    const actuationOf = await this.deps.gateStation.actuationsOf(pageRows.map((r) => r.id));
    return toPage(
      rows,
      query.limit,
      (r) => movementOut(r, actuationOf.get(r.id) ?? null),
      (r) => [r.at, r.id],
    );
  }

  async listVisits(query: VisitListQueryT, principal: Principal) {
    const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
    const rows = await this.repo.listVisits({
      ...query,
      yardIds: this.yardFilter(query.yardId, principal),
      after: after ? { at: Number(after[0]), id: String(after[1]) } : undefined,
    });
    const now = this.deps.clock.now();
    return toPage(
      rows,
      query.limit,
      (r) => visitOut(r, now),
      (r) => [r.inAt, r.id],
    );
  }

  /**
   * Where each unit was last seen at a gate: its latest visit (open: in the yard since inAt;
   * closed: left at outAt through outGateId). Keyed by unit id; units never checked in are absent.
   */
  async latestVisits(
    kind: 'trailer' | 'truck',
    ids: string[],
  ): Promise<Map<string, { yardId: string; inAt: number; outAt: number | null; outGateId: string | null }>> {
    const rows = await this.repo.latestVisits(kind, ids);
    const byUnit = new Map<
      string,
      { yardId: string; inAt: number; outAt: number | null; outGateId: string | null }
    >();
    // Newest id first: two visits with the same check-in time (a correction) leave the newer one.
    for (const r of rows) {
      if (!byUnit.has(r.unitId))
        byUnit.set(r.unitId, { yardId: r.yardId, inAt: r.inAt, outAt: r.outAt, outGateId: r.outGateId });
    }
    return byUnit;
  }

  /** The yards a list may show: the asked one (if in scope), else the principal's scope (undefined = all). */
  private yardFilter(yardId: string | undefined, principal: Principal): string[] | undefined {
    return yardFilter(principal, yardId) ?? undefined;
  }
}

export function movementOut(row: MovementRow, linkedActuationId: string | null): MovementOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    gateId: row.gateId,
    direction: row.direction,
    at: toIso(row.at),
    truckId: row.truckId,
    trailerId: row.trailerId,
    driverId: row.driverId,
    carrierId: row.carrierId,
    locationId: row.locationId,
    loadStatus: row.loadStatus,
    sealNumber: row.sealNumber,
    plateRead: row.plateRead,
    attachmentIds: JSON.parse(row.attachmentIds) as string[],
    actuationId: row.actuationId ?? linkedActuationId,
    operatorId: row.operatorId,
    notes: row.notes,
    warnings: JSON.parse(row.warnings) as string[],
    overrideReason: row.overrideReason,
    correctsId: row.correctsId,
    createdAt: toIso(row.createdAt),
    version: row.version,
  };
}

export function visitOut(row: VisitRow, now: number): VisitOutT {
  const dwellMs = Math.max(0, (row.outAt ?? now) - row.inAt);
  return {
    id: row.id,
    yardId: row.yardId,
    unitKind: row.unitKind,
    trailerId: row.trailerId,
    truckId: row.truckId,
    carrierId: row.carrierId,
    inMovementId: row.inMovementId,
    outMovementId: row.outMovementId,
    inAt: toIso(row.inAt),
    outAt: toIsoOrNull(row.outAt),
    open: row.outAt === null,
    dwellMs,
    dwell: isoDuration(dwellMs),
  };
}

/** Hours, minutes, seconds (no days: a day can be 23 or 25 hours in a yard's zone). */
export function isoDuration(ms: number): string {
  return Duration.fromMillis(Math.floor(ms / 1000) * 1000)
    .shiftTo('hours', 'minutes', 'seconds')
    .toISO();
}
