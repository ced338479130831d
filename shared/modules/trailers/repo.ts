import { type Selectable, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { TrailerTable } from '../../db/tables.js';
import { likeContains } from '../drivers/repo.js';
import { inScope } from '../trucks/repo.js';
import { normalizePlate } from '../trucks/schema.js';

export type TrailerRow = Selectable<TrailerTable>;

/** Reads for trailers. Writes go through core.changes (ChangeCapture) in the service. */
export class TrailerRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<TrailerRow | undefined> {
    return this.db.selectFrom('trailer').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Same number (case-insensitive, via the trailer_number index) with the same carrier, or both without one. */
  byNumber(carrierId: string | null, number: string): Promise<TrailerRow | undefined> {
    let q = this.db.selectFrom('trailer').selectAll().where(sql`lower(number)`, '=', number.toLowerCase());
    q = carrierId === null ? q.where('carrierId', 'is', null) : q.where('carrierId', '=', carrierId);
    return q.executeTakeFirst();
  }

  /**
   * One query, ordered by id with keyset paging. With `yardId` it is `yard_id = ? AND id > ?
   * ORDER BY id LIMIT n`, which the trailer_yard (yard_id, id) index answers without sorting.
   */
  list(opts: {
    limit: number;
    afterId?: string | undefined;
    yardId?: string | undefined;
    carrierId?: string | undefined;
    inYard?: boolean | undefined;
    loadStatus?: TrailerRow['loadStatus'] | undefined;
    q?: string | undefined;
    scope: string[] | null;
  }): Promise<TrailerRow[]> {
    let q = this.db
      .selectFrom('trailer')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.afterId) q = q.where('id', '>', opts.afterId);
    if (opts.yardId) q = q.where('yardId', '=', opts.yardId);
    if (opts.carrierId) q = q.where('carrierId', '=', opts.carrierId);
    if (opts.loadStatus) q = q.where('loadStatus', '=', opts.loadStatus);
    if (opts.inYard !== undefined) q = q.where('yardId', opts.inYard ? 'is not' : 'is', null);
    if (opts.scope && !opts.yardId) q = q.where(inScope<'trailer'>(opts.scope));
    if (opts.q) {
      const numberLike = likeContains(opts.q.toLowerCase());
      const plate = normalizePlate(opts.q);
      q = q.where((eb) =>
        eb.or([
          sql<boolean>`lower(${eb.ref('number')}) like ${numberLike} escape '\\'`,
          ...(plate ? [sql<boolean>`${eb.ref('plate')} like ${likeContains(plate)} escape '\\'`] : []),
        ]),
      );
    }
    return q.execute();
  }
}
