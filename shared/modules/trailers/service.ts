import type { Principal } from '../../auth/principal.js';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { PageCache } from '../../http/page-cache.js';
import { RawJson } from '../../http/raw-json.js';
import { newId } from '../../ids.js';
import type { CarrierService } from '../carriers/service.js';
import { normalizePlate } from '../trucks/schema.js';
import { assertYardFilterAllowed, canSeeUnit } from '../trucks/yard-scope.js';
import type { YardService } from '../yards/service.js';
import { type TrailerAtGate, writeTrailerAtGate } from './at-gate.js';
import { readInYard } from './in-yard.js';
import { TrailerRepo, type TrailerRow } from './repo.js';
import {
  type TrailerCreateT,
  type TrailerListQueryT,
  type TrailerOutT,
  type TrailerPatchT,
  trailerNumberKey,
} from './schema.js';

export type TrailerDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  yards: YardService;
  carriers: CarrierService;
};

export class TrailerService {
  private readonly repo: TrailerRepo;

  /** Rendered list pages, reused until the next trailer write (gate screens poll this list). */
  private readonly pages: PageCache;

  constructor(private readonly deps: TrailerDeps) {
    this.repo = new TrailerRepo(deps.kysely);
    this.pages = new PageCache(deps.changes.generations, 'trailer');
  }

  /** A page of the list as JSON text, with an ETag that changes whenever any trailer changes. */

  /**
   * A gate movement's trailer, in the movement's transaction: a new one is registered, a known one
   * is placed in or out of the yard (with its spot, load and seal). Returns its id.
   */
  atGate(trx: Kdb, seen: TrailerAtGate, now: number): Promise<string> {
    return writeTrailerAtGate(this.deps, trx, seen, now);
  }

  /** A completed yard move: the trailer now stands on this spot (in the task's transaction). */
  async placeOnSpot(trx: Kdb, trailerId: string, locationId: string): Promise<void> {
    await this.deps.changes.update(trx, 'trailer', trailerId, { locationId });
  }
  async list(principal: Principal, query: TrailerListQueryT): Promise<{ body: RawJson; etag: string }> {
    assertYardFilterAllowed(principal, query.yardId);
    const afterId = query.cursor ? String(decodeCursor(query.cursor, 1)[0]) : undefined;
    const filter = { ...query, afterId, scope: principal.yardIds };
    const page = await this.pages.get(JSON.stringify(filter), async () => {
      const rows = await this.repo.listJson(filter);
      const more =
        rows.count === query.limit &&
        rows.lastId !== null &&
        (await this.repo.existsAfter(filter, rows.lastId));
      const nextCursor = more ? JSON.stringify(encodeCursor([rows.lastId!])) : 'null';
      return `{"items":${rows.items},"nextCursor":${nextCursor}}`;
    });
    return { body: new RawJson(page.text), etag: page.etag };
  }

  /** Trailers in a yard by place and the longest there (in-yard.ts); 403 outside the scope, 404 no such yard. */
  async inYard(principal: Principal, yardId: string, longest: number, byLocation = true): Promise<RawJson> {
    await this.deps.yards.getVisibleRow(principal, yardId);
    return readInYard(this.deps.kysely, yardId, longest, byLocation);
  }

  /**
   * Trailers matching a typed number or plate, best first, with how well: 3 the number (spaces
   * ignored) or plate is the text, 2 the number starts with it, 1 contains it. Trailers in yards
   * the principal may not see are left out (canSeeUnit).
   */
  async search(
    principal: Principal,
    q: string,
    limit: number,
  ): Promise<Array<{ rank: 1 | 2 | 3; row: TrailerRow }>> {
    const key = trailerNumberKey(q);
    const compact = key.replace(/ /g, '');
    const plate = normalizePlate(q) || null;
    const found = await this.repo.search({ key, compact, plate, scope: principal.yardIds, limit });
    const rankOf = (row: TrailerRow): 1 | 2 | 3 => {
      const number = trailerNumberKey(row.number).replace(/ /g, '');
      if (number === compact || (plate !== null && row.plate === plate)) return 3;
      return number.startsWith(compact) ? 2 : 1;
    };
    return [...found.starts, ...found.contains]
      .map((row) => ({ rank: rankOf(row), row }))
      .sort((a, b) => b.rank - a.rank);
  }

  /** A trailer inside a yard the principal may not see is answered as not found. */
  async getFor(principal: Principal, id: string): Promise<TrailerRow> {
    const row = await this.getRow(id);
    if (!canSeeUnit(principal, row.yardId)) throw new NotFoundError('Trailer', id);
    return row;
  }

  async getRow(id: string): Promise<TrailerRow> {
    const row = await this.repo.byId(id);
    if (!row) throw new NotFoundError('Trailer', id);
    return row;
  }

  trailerOut(row: TrailerRow): TrailerOutT {
    return trailerOut(row);
  }

  /** A new trailer is outside any yard: gate check-ins put it in one. */
  async create(input: TrailerCreateT): Promise<TrailerOutT> {
    const carrierId = input.carrierId ?? null;
    await this.assertUsable(carrierId, input.number);
    const now = this.deps.clock.now();
    const row = await this.deps.changes.insert(this.deps.kysely, 'trailer', {
      id: newId(),
      carrierId,
      number: input.number,
      plate: input.plate ?? null,
      plateRegion: input.plateRegion ?? null,
      type: input.type ?? 'dry_van',
      lengthFt: input.lengthFt ?? null,
      loadStatus: input.loadStatus ?? 'unknown',
      sealNumber: input.sealNumber ?? null,
      yardId: null,
      locationId: null,
      arrivedAt: null,
      notes: input.notes ?? null,
      createdAt: now,
      updatedAt: now,
    });
    return trailerOut(row);
  }

  async update(principal: Principal, id: string, patch: TrailerPatchT, expectedVersion?: number) {
    const current = await this.getFor(principal, id);
    const carrierId = patch.carrierId !== undefined ? patch.carrierId : current.carrierId;
    const number = patch.number ?? current.number;
    if (carrierId !== current.carrierId || number !== current.number) {
      await this.assertUsable(carrierId, number, id, current.carrierId);
    }
    if (patch.locationId) {
      if (current.yardId === null) {
        throw new ConflictError(
          'not-in-yard',
          'The trailer is not in a yard, so it has no location to change.',
        );
      }
      await this.deps.yards.getLocationRow(current.yardId, patch.locationId);
    }
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'trailer',
      id,
      patch,
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    if (!row) throw new NotFoundError('Trailer', id);
    return trailerOut(row);
  }

  /** The carrier exists and has no other trailer with this number. */
  private async assertUsable(
    carrierId: string | null,
    number: string,
    exceptId?: string,
    currentCarrierId?: string | null,
  ): Promise<void> {
    if (carrierId && carrierId !== currentCarrierId) await this.deps.carriers.getRow(carrierId);
    const holder = await this.repo.byNumber(carrierId, number);
    if (holder && holder.id !== exceptId) {
      throw new ConflictError('duplicate', `The carrier already has trailer ${number}.`, {
        existingId: holder.id,
      });
    }
  }
}

export function trailerOut(row: TrailerRow): TrailerOutT {
  return {
    id: row.id,
    carrierId: row.carrierId,
    number: row.number,
    plate: row.plate,
    plateRegion: row.plateRegion,
    type: row.type,
    lengthFt: row.lengthFt,
    loadStatus: row.loadStatus,
    sealNumber: row.sealNumber,
    yardId: row.yardId,
    locationId: row.locationId,
    inYard: row.yardId !== null,
    arrivedAt: toIsoOrNull(row.arrivedAt),
    notes: row.notes,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}
