import { type Selectable, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { MovementTable, TrailerTable, TruckTable, VisitTable } from '../../db/tables.js';

export type MovementRow = Selectable<MovementTable>;
export type VisitRow = Selectable<VisitTable>;
export type TrailerRow = Selectable<TrailerTable>;
export type TruckRow = Selectable<TruckTable>;

type Keyset = { at: number; id: string };

/**
 * SQL of gate movements and visits. Construct with a transaction to read and write inside it.
 * Synced rows are written by the service through core.changes; `visit` (derived, not synced) here.
 */
export class MovementRepo {
  constructor(private readonly db: Kdb) {}

  yard(id: string) {
    return this.db.selectFrom('yard').select(['id', 'timeZone']).where('id', '=', id).executeTakeFirst();
  }

  gate(id: string) {
    return this.db.selectFrom('gate').selectAll().where('id', '=', id).executeTakeFirst();
  }

  location(id: string) {
    return this.db.selectFrom('location').select(['id', 'yardId']).where('id', '=', id).executeTakeFirst();
  }

  carrier(id: string) {
    return this.db.selectFrom('carrier').select(['id', 'status']).where('id', '=', id).executeTakeFirst();
  }

  driver(id: string) {
    return this.db.selectFrom('driver').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async missingAttachments(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const found = await this.db.selectFrom('attachment').select('id').where('id', 'in', ids).execute();
    const known = new Set(found.map((r) => r.id));
    return ids.filter((id) => !known.has(id));
  }

  movement(id: string): Promise<MovementRow | undefined> {
    return this.db.selectFrom('movement').selectAll().where('id', '=', id).executeTakeFirst();
  }

  trailer(id: string): Promise<TrailerRow | undefined> {
    return this.db.selectFrom('trailer').selectAll().where('id', '=', id).executeTakeFirst();
  }

  trailersByNumber(number: string, carrierId: string | undefined): Promise<TrailerRow[]> {
    let q = this.db
      .selectFrom('trailer')
      .selectAll()
      .where(sql<string>`lower(number)`, '=', number.toLowerCase())
      .orderBy('id')
      .limit(10);
    if (carrierId) q = q.where('carrierId', '=', carrierId);
    return q.execute();
  }

  truck(id: string): Promise<TruckRow | undefined> {
    return this.db.selectFrom('truck').selectAll().where('id', '=', id).executeTakeFirst();
  }

  trucksByPlate(plate: string, plateRegion: string | undefined): Promise<TruckRow[]> {
    let q = this.db.selectFrom('truck').selectAll().where('plate', '=', plate).orderBy('id').limit(10);
    if (plateRegion) q = q.where('plateRegion', '=', plateRegion);
    return q.execute();
  }

  /** Newest first by (at, id). */
  list(opts: {
    limit: number;
    after?: Keyset | undefined;
    yardIds?: string[] | undefined;
    direction?: 'in' | 'out' | undefined;
    from?: number | undefined;
    to?: number | undefined;
    carrierId?: string | undefined;
    trailerId?: string | undefined;
    truckId?: string | undefined;
    driverId?: string | undefined;
  }): Promise<MovementRow[]> {
    let q = this.db
      .selectFrom('movement')
      .selectAll()
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit + 1);
    if (opts.yardIds) q = q.where('yardId', 'in', opts.yardIds.length > 0 ? opts.yardIds : ['']);
    if (opts.direction) q = q.where('direction', '=', opts.direction);
    if (opts.from !== undefined) q = q.where('at', '>=', opts.from);
    if (opts.to !== undefined) q = q.where('at', '<', opts.to);
    if (opts.carrierId) q = q.where('carrierId', '=', opts.carrierId);
    if (opts.trailerId) q = q.where('trailerId', '=', opts.trailerId);
    if (opts.truckId) q = q.where('truckId', '=', opts.truckId);
    if (opts.driverId) q = q.where('driverId', '=', opts.driverId);
    const after = opts.after;
    if (after) {
      q = q
        .where('at', '<=', after.at)
        .where((eb) => eb.or([eb('at', '<', after.at), eb('id', '<', after.id)]));
    }
    return q.execute();
  }

  /** Newest first by (inAt, id). */
  listVisits(opts: {
    limit: number;
    after?: Keyset | undefined;
    yardIds?: string[] | undefined;
    open?: boolean | undefined;
    trailerId?: string | undefined;
    truckId?: string | undefined;
    carrierId?: string | undefined;
    from?: number | undefined;
    to?: number | undefined;
  }): Promise<VisitRow[]> {
    let q = this.db
      .selectFrom('visit')
      .selectAll()
      .orderBy('inAt', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit + 1);
    if (opts.yardIds) q = q.where('yardId', 'in', opts.yardIds.length > 0 ? opts.yardIds : ['']);
    if (opts.open !== undefined) q = q.where('outAt', opts.open ? 'is' : 'is not', null);
    if (opts.trailerId) q = q.where('trailerId', '=', opts.trailerId);
    if (opts.truckId) q = q.where('truckId', '=', opts.truckId);
    if (opts.carrierId) q = q.where('carrierId', '=', opts.carrierId);
    if (opts.from !== undefined) q = q.where('inAt', '>=', opts.from);
    if (opts.to !== undefined) q = q.where('inAt', '<', opts.to);
    const after = opts.after;
    if (after) {
      q = q
        .where('inAt', '<=', after.at)
        .where((eb) => eb.or([eb('inAt', '<', after.at), eb('id', '<', after.id)]));
    }
    return q.execute();
  }

  async openVisit(visit: Omit<VisitRow, 'outMovementId' | 'outAt'>): Promise<void> {
    await this.db
      .insertInto('visit')
      .values({ ...visit, outMovementId: null, outAt: null })
      .execute();
  }

  /** Closes the unit's open visits (a trailer's, or a truck's own truck visits). */
  async closeVisits(
    unit: { kind: 'trailer'; trailerId: string } | { kind: 'truck'; truckId: string },
    outMovementId: string | null,
    outAt: number,
  ): Promise<void> {
    let q = this.db.updateTable('visit').set({ outMovementId, outAt }).where('outAt', 'is', null);
    q =
      unit.kind === 'trailer'
        ? q.where('trailerId', '=', unit.trailerId).where('unitKind', '=', 'trailer')
        : q.where('truckId', '=', unit.truckId).where('unitKind', '=', 'truck');
    await q.execute();
  }
}
