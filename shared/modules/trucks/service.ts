import type { Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { Kdb } from '../../db/database.js';
import { asciiLower } from '../../db/sql-helpers.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { CarrierService } from '../carriers/service.js';
import { type TruckAtGate, writeTruckAtGate } from './at-gate.js';
import { type TruckInspectionDeps, TruckInspections } from './inspections.js';
import { TruckRepo, type TruckRow } from './repo.js';
import {
  normalizePlate,
  type TruckCreateT,
  type TruckListQueryT,
  type TruckOutT,
  type TruckPatchT,
} from './schema.js';
import { assertYardFilterAllowed, canSeeUnit } from './yard-scope.js';

export type TruckDeps = TruckInspectionDeps & {
  carriers: CarrierService;
};

export class TruckService {
  private readonly repo: TruckRepo;
  readonly inspections: TruckInspections;

  constructor(private readonly deps: TruckDeps) {
    this.repo = new TruckRepo(deps.kysely);
    this.inspections = new TruckInspections(deps, this.repo);
  }

  /**
   * A gate movement's truck, in the movement's transaction: a new one is registered, a known one
   * is placed in or out of the yard. Returns its id.
   */
  atGate(trx: Kdb, seen: TruckAtGate, now: number): Promise<string> {
    return writeTruckAtGate(this.deps, trx, seen, now);
  }
  async list(principal: Principal, query: TruckListQueryT) {
    assertYardFilterAllowed(principal, query.yardId);
    const afterId = query.cursor ? String(decodeCursor(query.cursor, 1)[0]) : undefined;
    const rows = await this.repo.list({ ...query, afterId, scope: principal.yardIds });
    return toPage(rows, query.limit, truckOut, (r) => [r.id]);
  }

  /**
   * Trucks matching a typed plate or unit number, best first, with how well: 3 the plate or unit
   * number is the text, 2 starts with it, 1 contains it. Trucks in yards the principal may not see
   * are left out (canSeeUnit).
   */
  async search(
    principal: Principal,
    q: string,
    limit: number,
  ): Promise<Array<{ rank: 1 | 2 | 3; row: TruckRow }>> {
    const plate = normalizePlate(q);
    const unit = asciiLower(q.trim());
    const rows = await this.repo.search({ text: q.trim(), plate, scope: principal.yardIds, limit });
    const rankOf = (row: TruckRow): 1 | 2 | 3 => {
      const unitNumber = asciiLower(row.unitNumber ?? '');
      const rowPlate = normalizePlate(row.plate ?? '');
      if ((plate && rowPlate === plate) || unitNumber === unit) return 3;
      return (plate && rowPlate.startsWith(plate)) || unitNumber.startsWith(unit) ? 2 : 1;
    };
    return rows.map((row) => ({ rank: rankOf(row), row })).sort((a, b) => b.rank - a.rank);
  }

  /** A truck inside a yard the principal may not see is answered as not found. */
  async getFor(principal: Principal, id: string): Promise<TruckRow> {
    const row = await this.getRow(id);
    if (!canSeeUnit(principal, row.yardId)) throw new NotFoundError('Truck', id);
    return row;
  }

  async getRow(id: string): Promise<TruckRow> {
    const row = await this.repo.byId(id);
    if (!row) throw new NotFoundError('Truck', id);
    return row;
  }

  async create(input: TruckCreateT): Promise<TruckOutT> {
    if (!input.plate && !input.unitNumber) {
      throw new ValidationError([{ path: 'body.plate', message: 'a truck needs a plate or a unit number' }]);
    }
    const truck = {
      carrierId: input.carrierId ?? null,
      unitNumber: input.unitNumber ?? null,
      plate: input.plate ?? null,
      plateRegion: input.plateRegion ?? null,
      vin: input.vin ?? null,
    };
    await this.assertUsable(truck);
    const now = this.deps.clock.now();
    const row = await this.deps.changes.insert(this.deps.kysely, 'truck', {
      id: newId(),
      ...truck,
      status: input.status ?? 'active',
      yardId: null,
      createdAt: now,
      updatedAt: now,
    });
    return truckOut(row);
  }

  async update(principal: Principal, id: string, patch: TruckPatchT, expectedVersion?: number) {
    const current = await this.getFor(principal, id);
    const merged = {
      carrierId: patch.carrierId !== undefined ? patch.carrierId : current.carrierId,
      unitNumber: patch.unitNumber !== undefined ? patch.unitNumber : current.unitNumber,
      plate: patch.plate !== undefined ? patch.plate : current.plate,
      plateRegion: patch.plateRegion !== undefined ? patch.plateRegion : current.plateRegion,
      vin: patch.vin !== undefined ? patch.vin : current.vin,
    };
    if (!merged.plate && !merged.unitNumber) {
      const path = patch.plate === null ? 'body.plate' : 'body.unitNumber';
      throw new ValidationError([{ path, message: 'a truck needs a plate or a unit number' }]);
    }
    await this.assertUsable(merged, id, current.carrierId);
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'truck',
      id,
      patch,
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    if (!row) throw new NotFoundError('Truck', id);
    return truckOut(row);
  }

  /** Carrier exists; plate (within its region) and VIN belong to no other truck. */
  private async assertUsable(
    t: { carrierId: string | null; plate: string | null; plateRegion: string | null; vin: string | null },
    exceptId?: string,
    currentCarrierId?: string | null,
  ): Promise<void> {
    if (t.carrierId && t.carrierId !== currentCarrierId) await this.deps.carriers.getRow(t.carrierId);
    if (t.plate) {
      const holder = await this.repo.byPlate(t.plate, t.plateRegion);
      if (holder && holder.id !== exceptId) {
        throw new ConflictError('duplicate', `Another truck has plate ${t.plate}.`, {
          existingId: holder.id,
        });
      }
    }
    if (t.vin) {
      const holder = await this.repo.byVin(t.vin);
      if (holder && holder.id !== exceptId) {
        throw new ConflictError('duplicate', `Another truck has VIN ${t.vin}.`, { existingId: holder.id });
      }
    }
  }
}

export function truckOut(row: TruckRow): TruckOutT {
  return {
    id: row.id,
    carrierId: row.carrierId,
    unitNumber: row.unitNumber,
    plate: row.plate,
    plateRegion: row.plateRegion,
    vin: row.vin,
    status: row.status,
    yardId: row.yardId,
    inYard: row.yardId !== null,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}
