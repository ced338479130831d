import { assertCanSeeYard, type Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { type GateDeps, type GateRecord, GateService } from './gate-service.js';
import { LocationService } from './location-service.js';
import { type OccupancyOutT, readOccupancy } from './occupancy.js';
import { type LocationRow, YardRepo, type YardRow } from './repo.js';
import type { YardCreateT, YardOutT, YardPatchT } from './schema.js';

export type YardDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'config' | 'reads'> &
  Pick<GateDeps, 'cameras' | 'hardware'>;

/**
 * Yards and, through `gates` and `locations`, their gates and locations.
 * Other modules use getRow, getTimeZone, getGateRow, getLocationRow and listYardIdsInScope.
 */
export class YardService {
  private readonly repo: YardRepo;
  readonly gates: GateService;
  readonly locations: LocationService;

  constructor(private readonly deps: YardDeps) {
    this.repo = new YardRepo(deps.kysely);
    this.gates = new GateService({ ...deps, yards: this });
    this.locations = new LocationService({ ...deps, yards: this });
  }

  async list(
    principal: Principal,
    opts: { limit: number; cursor?: string | undefined; q?: string | undefined; status?: YardRow['status'] },
  ) {
    const afterCode = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const rows = await this.repo.listYards({ ...opts, afterCode, yardIds: principal.yardIds });
    return toPage(rows, opts.limit, yardOut, (r) => [r.code]);
  }

  async get(principal: Principal, id: string): Promise<YardOutT> {
    return yardOut(await this.getVisibleRow(principal, id));
  }

  /** Trailers against capacity and places in use (occupancy.ts), read off the event loop; 403/404 as get. */
  async occupancy(principal: Principal, id: string): Promise<OccupancyOutT> {
    return readOccupancy(this.deps.reads.kysely, await this.getVisibleRow(principal, id));
  }

  async getRow(id: string): Promise<YardRow> {
    const row = await this.repo.yardById(id);
    if (!row) throw new NotFoundError('Yard', id);
    return row;
  }

  /** The yard, 403 when it is outside the principal's yard scope, 404 when it does not exist. */
  async getVisibleRow(principal: Principal, id: string): Promise<YardRow> {
    this.assertInScope(principal, id);
    return this.getRow(id);
  }

  async getTimeZone(yardId: string): Promise<string> {
    return (await this.getRow(yardId)).timeZone;
  }

  /** The gate with its relay binding parsed; with a yardId, a gate of another yard is 404. */
  getGateRow(yardId: string | undefined, gateId: string): Promise<GateRecord> {
    return this.gates.getRecord(yardId, gateId);
  }

  /** The location; 404 when it does not exist or belongs to another yard. */
  getLocationRow(yardId: string, locationId: string): Promise<LocationRow> {
    return this.locations.getRow(yardId, locationId);
  }

  /** Ids of the existing yards the principal may see (every yard when it has no yard scope). */
  listYardIdsInScope(principal: Principal): Promise<string[]> {
    return this.repo.yardIds(principal.yardIds);
  }

  /** Which of the given yard ids exist (an admin grants only existing yards: auth/admin-scope.ts). */
  existingYardIds(yardIds: string[]): Promise<string[]> {
    return this.repo.yardIds(yardIds);
  }

  /** 403 when the yard is outside the principal's yard scope. */
  assertInScope(principal: Principal, yardId: string): void {
    assertCanSeeYard(principal, yardId);
  }

  async create(principal: Principal, input: YardCreateT): Promise<YardOutT> {
    // Ownership first (a linked edge answers cloud-owned), before scope, duplicate or in-use checks.
    this.deps.changes.assertMayWrite('yard');
    if (principal.yardIds !== null) {
      throw new ForbiddenError('Only principals without a yard scope may create yards.');
    }
    const now = this.deps.clock.now();
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      await this.assertCodeFree(trx, input.code);
      return this.deps.changes.insert(trx, 'yard', {
        id: newId(),
        code: input.code,
        name: input.name,
        timeZone: input.timeZone,
        address: input.address ? JSON.stringify(input.address) : null,
        capacity: input.capacity ?? null,
        status: input.status ?? 'active',
        siteId: input.siteId ?? this.deps.config.siteId,
        createdAt: now,
        updatedAt: now,
      });
    });
    return yardOut(row);
  }

  async update(
    principal: Principal,
    id: string,
    patch: YardPatchT,
    expectedVersion?: number,
  ): Promise<YardOutT> {
    this.deps.changes.assertMayWrite('yard');
    this.assertInScope(principal, id);
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      if (!(await new YardRepo(trx).yardById(id))) throw new NotFoundError('Yard', id);
      if (patch.code !== undefined) await this.assertCodeFree(trx, patch.code, id);
      return this.deps.changes.update(
        trx,
        'yard',
        id,
        {
          ...(patch.code !== undefined ? { code: patch.code } : {}),
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.timeZone !== undefined ? { timeZone: patch.timeZone } : {}),
          ...(patch.address !== undefined
            ? { address: patch.address ? JSON.stringify(patch.address) : null }
            : {}),
          ...(patch.capacity !== undefined ? { capacity: patch.capacity } : {}),
          ...(patch.status !== undefined ? { status: patch.status } : {}),
          ...(patch.siteId !== undefined ? { siteId: patch.siteId } : {}),
        },
        expectedVersion === undefined ? {} : { expectedVersion },
      );
    });
    if (!row) throw new NotFoundError('Yard', id);
    return yardOut(row);
  }

  /** A yard with locations, gates or history is kept for the record: set it inactive instead. */
  async delete(principal: Principal, id: string): Promise<void> {
    this.deps.changes.assertMayWrite('yard');
    this.assertInScope(principal, id);
    await this.deps.kysely.transaction().execute(async (trx) => {
      const repo = new YardRepo(trx);
      if (!(await repo.yardById(id))) throw new NotFoundError('Yard', id);
      const refs = await repo.yardReferences(id);
      if (refs.length > 0) {
        throw new ConflictError(
          'in-use',
          `The yard still has ${refs.join(', ')}. Set its status to inactive instead.`,
          { references: refs },
        );
      }
      await this.deps.changes.delete(trx, 'yard', id);
    });
  }

  private async assertCodeFree(db: Kdb, code: string, exceptId?: string): Promise<void> {
    const existing = await new YardRepo(db).yardByCode(code);
    if (existing && existing.id !== exceptId) {
      throw new ConflictError('duplicate', `Yard ${existing.name} already has code ${existing.code}.`, {
        existingId: existing.id,
      });
    }
  }
}

export function yardOut(row: YardRow): YardOutT {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    timeZone: row.timeZone,
    address: row.address ? (JSON.parse(row.address) as YardOutT['address']) : null,
    capacity: row.capacity,
    status: row.status,
    siteId: row.siteId,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}
