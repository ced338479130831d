import { canSeeYard, carrierOf, type Principal, yardFilter } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { pageInMemory } from '../../http/cursor.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { YardService } from '../yards/service.js';
import { loadTypeOut } from './out.js';
import { AppointmentRepo, type LoadTypeRow } from './repo.js';
import type { LoadTypeCreateT, LoadTypeOutT, LoadTypePatchT } from './schema.js';

export type LoadTypeDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  yards: Pick<YardService, 'getRow'>;
};

/**
 * A yard's load types (docs/domain.md "Appointments"): how long a booking takes and at which doors.
 * A carrier user sees only carrier-visible ones, of the yards in its scope (carrier-rules.ts).
 */
export class LoadTypeService {
  private readonly repo: AppointmentRepo;

  constructor(private readonly deps: LoadTypeDeps) {
    this.repo = new AppointmentRepo(deps.kysely);
  }

  async list(
    principal: Principal,
    query: { yardId?: string | undefined; limit: number; cursor?: string | undefined },
  ) {
    const carrier = carrierOf(principal) !== null;
    // A carrier asking for a yard outside its scope gets an empty page, as if it had none.
    if (carrier && query.yardId !== undefined && !canSeeYard(principal, query.yardId)) {
      return { items: [], nextCursor: null };
    }
    const rows = await this.repo.loadTypes(yardFilter(principal, query.yardId), {
      carrierVisibleOnly: carrier,
    });
    return pageInMemory(rows.map(loadTypeOut), query, (t) => [t.yardId, t.name.toLowerCase(), t.id]);
  }

  /** The yards of the caller's scope a carrier user can book (scheduling on, a carrier-visible load type). */
  carrierBookableYardIds(principal: Principal): Promise<string[]> {
    return this.repo.carrierBookableYardIds(principal.yardIds);
  }

  /** The load type, 404 when absent or of a yard outside the caller's yards. */
  async getRow(principal: Principal, id: string): Promise<LoadTypeRow> {
    const row = await this.repo.loadTypeById(id);
    if (!row || !canSeeYard(principal, row.yardId)) throw new NotFoundError('Load type', id);
    return row;
  }

  async create(principal: Principal, input: LoadTypeCreateT): Promise<LoadTypeOutT> {
    this.deps.changes.assertMayWrite('loadType');
    if (!canSeeYard(principal, input.yardId)) throw new NotFoundError('Yard', input.yardId);
    await this.deps.yards.getRow(input.yardId);
    await this.assertDoors(input.yardId, input.doorIds);
    await this.assertNameFree(input.yardId, input.name);
    const now = this.deps.clock.now();
    const row = await this.deps.changes.insert(this.deps.kysely, 'loadType', {
      id: newId(),
      yardId: input.yardId,
      name: input.name,
      direction: input.direction,
      durationMinutes: input.durationMinutes,
      doorIds: JSON.stringify([...new Set(input.doorIds)]),
      carrierVisible: input.carrierVisible ? 1 : 0,
      createdAt: now,
      updatedAt: now,
    });
    return loadTypeOut(row);
  }

  async update(
    principal: Principal,
    id: string,
    patch: LoadTypePatchT,
    expectedVersion?: number,
  ): Promise<LoadTypeOutT> {
    this.deps.changes.assertMayWrite('loadType');
    const current = await this.getRow(principal, id);
    if (patch.doorIds !== undefined) await this.assertDoors(current.yardId, patch.doorIds);
    if (patch.name !== undefined) await this.assertNameFree(current.yardId, patch.name, id);
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'loadType',
      id,
      {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.direction !== undefined ? { direction: patch.direction } : {}),
        ...(patch.durationMinutes !== undefined ? { durationMinutes: patch.durationMinutes } : {}),
        ...(patch.doorIds !== undefined ? { doorIds: JSON.stringify([...new Set(patch.doorIds)]) } : {}),
        ...(patch.carrierVisible !== undefined ? { carrierVisible: patch.carrierVisible ? 1 : 0 } : {}),
      },
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    if (!row) throw new NotFoundError('Load type', id);
    return loadTypeOut(row);
  }

  /** A load type that appointments name is kept for their record (409 in-use). */
  async delete(principal: Principal, id: string): Promise<void> {
    this.deps.changes.assertMayWrite('loadType');
    await this.getRow(principal, id);
    if (await this.repo.loadTypeInUse(id)) {
      throw new ConflictError(
        'in-use',
        'Appointments were booked with this load type. Hide it from carriers or rename it instead.',
      );
    }
    await this.deps.changes.delete(this.deps.kysely, 'loadType', id);
  }

  private async assertDoors(yardId: string, doorIds: string[]): Promise<void> {
    const doors = await this.repo.doorIdsOf(yardId, doorIds);
    const errors = doorIds
      .map((doorId, i) => ({ doorId, i }))
      .filter(({ doorId }) => !doors.has(doorId))
      .map(({ i }) => ({
        path: `doorIds.${i}`,
        code: 'not-a-door',
        message: 'This is not a door of the yard.',
      }));
    if (errors.length > 0) throw new ValidationError(errors);
  }

  private async assertNameFree(yardId: string, name: string, exceptId?: string): Promise<void> {
    const existing = await this.repo.loadTypeByName(yardId, name);
    if (existing && existing.id !== exceptId) {
      throw new ConflictError('duplicate', `The yard already has a load type named ${existing.name}.`, {
        existingId: existing.id,
      });
    }
  }
}
