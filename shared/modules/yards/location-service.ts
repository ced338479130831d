import type { Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { afterName, assertNameFree, ofYard, pageByName, type YardAccess } from './in-yard.js';
import type { LocationCreateT, LocationOutT, LocationPatchT, LocationPlanT } from './location-schema.js';
import { type LocationRow, YardRepo } from './repo.js';

export type LocationDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & { yards: YardAccess };

export class LocationService {
  private readonly repo: YardRepo;

  constructor(private readonly deps: LocationDeps) {
    this.repo = new YardRepo(deps.kysely);
  }

  async list(
    principal: Principal,
    yardId: string,
    opts: {
      limit: number;
      cursor?: string | undefined;
      kind?: LocationRow['kind'] | undefined;
      status?: LocationRow['status'] | undefined;
      q?: string | undefined;
      free?: boolean | undefined;
      ids?: string[] | undefined;
    },
  ) {
    await this.deps.yards.getVisibleRow(principal, yardId);
    const rows = await this.repo.listLocations({ ...opts, yardId, after: afterName(opts.cursor) });
    return pageByName(rows, opts.limit, locationOut);
  }

  /** The location; 404 when it does not exist or belongs to another yard. */
  getRow(yardId: string, locationId: string): Promise<LocationRow> {
    return getLocationOfYard(this.deps.kysely, yardId, locationId);
  }

  async create(principal: Principal, yardId: string, input: LocationCreateT): Promise<LocationOutT> {
    // Ownership first (a linked edge answers cloud-owned), before scope, duplicate or in-use checks.
    this.deps.changes.assertMayWrite('location');
    await this.deps.yards.getVisibleRow(principal, yardId);
    const now = this.deps.clock.now();
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      await assertLocationNameFree(trx, yardId, input.name);
      return this.deps.changes.insert(trx, 'location', {
        id: newId(),
        yardId,
        kind: input.kind,
        name: input.name,
        capacity: input.capacity ?? 1,
        status: input.status ?? 'active',
        ...planColumns(input.plan ?? null),
        createdAt: now,
        updatedAt: now,
      });
    });
    return locationOut(row);
  }

  async update(
    principal: Principal,
    yardId: string,
    locationId: string,
    patch: LocationPatchT,
    expectedVersion?: number,
  ): Promise<LocationOutT> {
    this.deps.changes.assertMayWrite('location');
    this.deps.yards.assertInScope(principal, yardId);
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      await getLocationOfYard(trx, yardId, locationId);
      if (patch.name !== undefined) await assertLocationNameFree(trx, yardId, patch.name, locationId);
      return this.deps.changes.update(
        trx,
        'location',
        locationId,
        {
          ...(patch.kind !== undefined ? { kind: patch.kind } : {}),
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.capacity !== undefined ? { capacity: patch.capacity } : {}),
          ...(patch.status !== undefined ? { status: patch.status } : {}),
          ...(patch.plan !== undefined ? planColumns(patch.plan) : {}),
        },
        expectedVersion === undefined ? {} : { expectedVersion },
      );
    });
    if (!row) throw new NotFoundError('Location', locationId);
    return locationOut(row);
  }

  /** A location that trailers stand on or movements name stays: set it inactive instead. */
  async delete(principal: Principal, yardId: string, locationId: string): Promise<void> {
    this.deps.changes.assertMayWrite('location');
    this.deps.yards.assertInScope(principal, yardId);
    await this.deps.kysely.transaction().execute(async (trx) => {
      await getLocationOfYard(trx, yardId, locationId);
      const refs = await new YardRepo(trx).locationReferences(locationId);
      if (refs.length > 0) {
        throw new ConflictError(
          'in-use',
          `The location is referred to by ${refs.join(' and ')}. Set its status to inactive instead.`,
          { references: refs },
        );
      }
      await this.deps.changes.delete(trx, 'location', locationId);
    });
  }
}

async function getLocationOfYard(db: Kdb, yardId: string, locationId: string): Promise<LocationRow> {
  return ofYard(await new YardRepo(db).locationById(locationId), yardId, 'Location', locationId);
}

async function assertLocationNameFree(
  db: Kdb,
  yardId: string,
  name: string,
  exceptId?: string,
): Promise<void> {
  assertNameFree(await new YardRepo(db).locationByName(yardId, name), 'location', exceptId);
}

export function locationOut(row: LocationRow): LocationOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    kind: row.kind,
    name: row.name,
    capacity: row.capacity,
    status: row.status,
    plan: planOf(row),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}

/** The five plan columns of a position, all null for "not placed" (the table allows all or none). */
function planColumns(plan: LocationPlanT | null) {
  return {
    planX: plan?.x ?? null,
    planY: plan?.y ?? null,
    planWidth: plan?.width ?? null,
    planHeight: plan?.height ?? null,
    planRotation: plan?.rotation ?? null,
  };
}

function planOf(row: LocationRow): LocationPlanT | null {
  const { planX: x, planY: y, planWidth: width, planHeight: height, planRotation: rotation } = row;
  if (x === null || y === null || width === null || height === null || rotation === null) return null;
  return { x, y, width, height, rotation };
}
