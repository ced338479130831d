import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { unitInScope } from '../../db/sql-helpers.js';
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
