import { type Selectable, sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import type { MovementTable, TrailerTable, TruckTable, VisitTable } from '../../db/tables.js';
import type { Direction } from '../../enums.js';
import { trailerNumberKey } from '../trailers/schema.js';
import {
  carrierById,
  driverById,
  gateById,
  locationById,
  movementById,
  trailerById,
  trailersByLowerNumber,
  trailersByLowerNumberOfCarrier,
  truckById,
  trucksByPlateAndRegion,
  trucksByPlateOnly,
  yardById,
} from './gate-lookups.js';

const first = <R>(rows: R[]): R | undefined => rows[0];

export type MovementRow = Selectable<MovementTable>;
export type VisitRow = Selectable<VisitTable>;
export type TrailerRow = Selectable<TrailerTable>;
export type TruckRow = Selectable<TruckTable>;

type Keyset = { at: number; id: string };

/**
 * SQL of gate movements and visits. Construct with a transaction to read and write inside it.
 * Synced rows are written by the service through core.changes; visits (derived, not synced) are
 * read here and written by the visit rule (visits.ts).
 */
export class MovementRepo {
  constructor(private readonly db: Kdb) {}

  yard(id: string) {
    return yardById(this.db, id).then(first);
  }

  gate(id: string) {
    return gateById(this.db, id).then(first);
  }

  location(id: string) {
    return locationById(this.db, id).then(first);
  }

  carrier(id: string) {
    return carrierById(this.db, id).then(first);
  }

  driver(id: string) {
    return driverById(this.db, id).then(first);
  }

  movement(id: string): Promise<MovementRow | undefined> {
    return movementById(this.db, id).then(first);
  }

  trailer(id: string): Promise<TrailerRow | undefined> {
    return trailerById(this.db, id).then(first);
  }

  trailersByNumber(number: string, carrierId: string | undefined): Promise<TrailerRow[]> {
    const lower = trailerNumberKey(number);
    return carrierId
      ? trailersByLowerNumberOfCarrier(this.db, lower, carrierId)
      : trailersByLowerNumber(this.db, lower);
  }

  /** Every trailer with this number, whatever its carrier, with the names a clerk knows it by. */
  sameNumberTrailers(number: string) {
    return this.db
      .selectFrom('trailer')
      .leftJoin('carrier', 'carrier.id', 'trailer.carrierId')
      .leftJoin('location', 'location.id', 'trailer.locationId')
      .select([
        'trailer.id as id',
        'trailer.number as number',
        'trailer.carrierId as carrierId',
        'carrier.name as carrierName',
        'trailer.yardId as yardId',
        'trailer.locationId as locationId',
        'location.name as locationName',
      ])
      .where(sql<string>`lower(trailer.number)`, '=', trailerNumberKey(number))
      .orderBy('trailer.id')
      .limit(10)
      .execute();
  }

  truck(id: string): Promise<TruckRow | undefined> {
    return truckById(this.db, id).then(first);
  }

  trucksByPlate(plate: string, plateRegion: string | undefined): Promise<TruckRow[]> {
    return plateRegion
      ? trucksByPlateAndRegion(this.db, plate, plateRegion)
      : trucksByPlateOnly(this.db, plate);
  }

  /** Newest first by (at, id). */
  list(opts: {
    limit: number;
    after?: Keyset | undefined;
    yardIds?: string[] | undefined;
    direction?: Direction | undefined;
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
    if (opts.yardIds) q = q.where('yardId', 'in', scopeInList(opts.yardIds));
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
    if (opts.yardIds) q = q.where('yardId', 'in', scopeInList(opts.yardIds));
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

  /**
   * The latest visit (by check-in time) of each unit, open or closed, with the gate of the
   * check-out that closed it: the visit_trailer / visit_truck index, one probe per unit. A truck's
   * visits are its own and those of the trailers it brought (a trailer's visit names its truck).
   */
  latestVisits(
    kind: 'trailer' | 'truck',
    ids: string[],
  ): Promise<Array<VisitRow & { unitId: string; outGateId: string | null }>> {
    if (ids.length === 0) return Promise.resolve([]);
    const unit = kind === 'trailer' ? 'trailerId' : 'truckId';
    return this.db
      .selectFrom('visit as v')
      .leftJoin('movement as m', 'm.id', 'v.outMovementId')
      .selectAll('v')
      .select([`v.${unit} as unitId`, 'm.gateId as outGateId'])
      .where(`v.${unit}`, 'in', ids)
      .where((eb) =>
        eb(
          'v.inAt',
          '=',
          eb
            .selectFrom('visit as w')
            .select((w) => w.fn.max('w.inAt').as('inAt'))
            .whereRef(`w.${unit}`, '=', `v.${unit}`),
        ),
      )
      .orderBy('v.id', 'desc')
      .execute() as Promise<Array<VisitRow & { unitId: string; outGateId: string | null }>>;
  }

  /**
   * The unit's latest open check-in and latest check-out (a trailer's visits, or a truck's own
   * truck visits), for refusing a movement that would invert a visit.
   */
  async visitBounds(
    unit: { kind: 'trailer'; trailerId: string } | { kind: 'truck'; truckId: string },
  ): Promise<{ openInAt: number | null; lastOutAt: number | null }> {
    const row = await this.db
      .selectFrom('visit')
      .select([
        sql<number | null>`max(case when out_at is null then in_at end)`.as('openInAt'),
        sql<number | null>`max(out_at)`.as('lastOutAt'),
      ])
      .where('unitKind', '=', unit.kind)
      .where(
        unit.kind === 'trailer' ? 'trailerId' : 'truckId',
        '=',
        unit.kind === 'trailer' ? unit.trailerId : unit.truckId,
      )
      .executeTakeFirst();
    return { openInAt: row?.openInAt ?? null, lastOutAt: row?.lastOutAt ?? null };
  }
}
