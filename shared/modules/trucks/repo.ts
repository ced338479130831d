import { type Selectable, type SqlBool, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { likeContains, textContains, textStartsWithKey, unitInScope } from '../../db/sql-helpers.js';
import type { TruckInspectionTable, TruckTable } from '../../db/tables.js';

export type TruckRow = Selectable<TruckTable>;
export type InspectionRow = Selectable<TruckInspectionTable>;

/** Reads for trucks and their inspections. Writes go through core.changes in the services. */
export class TruckRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<TruckRow | undefined> {
    return this.db.selectFrom('truck').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byPlate(plate: string, plateRegion: string | null): Promise<TruckRow | undefined> {
    let q = this.db.selectFrom('truck').selectAll().where('plate', '=', plate);
    q = plateRegion === null ? q.where('plateRegion', 'is', null) : q.where('plateRegion', '=', plateRegion);
    return q.executeTakeFirst();
  }

  byVin(vin: string): Promise<TruckRow | undefined> {
    return this.db.selectFrom('truck').selectAll().where('vin', '=', vin).executeTakeFirst();
  }

  /** Ordered by id (creation order); keyset paging after `afterId`. */
  list(opts: {
    limit: number;
    afterId?: string | undefined;
    carrierId?: string | undefined;
    plate?: string | undefined;
    inYard?: boolean | undefined;
    yardId?: string | undefined;
    status?: TruckRow['status'] | undefined;
    scope: string[] | null;
  }): Promise<TruckRow[]> {
    let q = this.db
      .selectFrom('truck')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.afterId) q = q.where('id', '>', opts.afterId);
    if (opts.carrierId) q = q.where('carrierId', '=', opts.carrierId);
    if (opts.plate) q = q.where('plate', '=', opts.plate);
    if (opts.yardId) q = q.where('yardId', '=', opts.yardId);
    if (opts.status) q = q.where('status', '=', opts.status);
    if (opts.inYard !== undefined) q = q.where('yardId', opts.inYard ? 'is not' : 'is', null);
    if (opts.scope && !opts.yardId) q = q.where(unitInScope<'truck'>(opts.scope));
    return q.execute();
  }

  /**
   * Trucks for a search by plate or unit number, within `scope` (null: every yard): first those
   * whose plate starts with `plate` (normalizePlate: the truck_plate index, for plates stored
   * normalised), then, only while fewer than `limit` were found, those whose plate (spaces and
   * dashes ignored) or unit number contains the text, which reads the whole table (docs/api.md
   * "Search").
   */
  async search(opts: {
    text: string;
    plate: string;
    scope: string[] | null;
    limit: number;
  }): Promise<TruckRow[]> {
    const scoped = () => {
      const q = this.db.selectFrom('truck').selectAll().orderBy('plate').orderBy('id');
      return opts.scope === null ? q : q.where(unitInScope<'truck'>(opts.scope));
    };
    const starts = opts.plate
      ? await scoped()
          .where((eb) => textStartsWithKey(eb.ref('plate'), opts.plate))
          .limit(opts.limit)
          .execute()
      : [];
    if (starts.length >= opts.limit) return starts;
    const found = starts.map((r) => r.id);
    let rest = scoped()
      .where((eb) =>
        eb.or([
          textContains(eb.ref('unitNumber'), opts.text),
          // A plate as typed at the gate keeps its spaces and dashes ("IL 77 204"): compared without them.
          ...(opts.plate
            ? [
                sql<SqlBool>`replace(replace(upper(plate), ' ', ''), '-', '') like ${likeContains(opts.plate)} escape '\\'`,
              ]
            : []),
        ]),
      )
      .limit(opts.limit - starts.length);
    if (found.length > 0) rest = rest.where('id', 'not in', found);
    return [...starts, ...(await rest.execute())];
  }

  /** Newest first by (inspectedAt, id); keyset paging after the cursor pair. */
  inspections(opts: {
    truckId: string;
    limit: number;
    after?: { inspectedAt: number; id: string } | undefined;
    yardIds: string[] | null;
  }): Promise<InspectionRow[]> {
    let q = this.db
      .selectFrom('truckInspection')
      .selectAll()
      .where('truckId', '=', opts.truckId)
      .orderBy('inspectedAt', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit + 1);
    const after = opts.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb('inspectedAt', '<', after.inspectedAt),
          eb.and([eb('inspectedAt', '=', after.inspectedAt), eb('id', '<', after.id)]),
        ]),
      );
    }
    if (opts.yardIds) {
      if (opts.yardIds.length === 0) return Promise.resolve([]);
      q = q.where('yardId', 'in', opts.yardIds);
    }
    return q.execute();
  }
}
