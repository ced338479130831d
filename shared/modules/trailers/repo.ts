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

  /** The rows of one page, ordered by id (keyset paging after `afterId`). */
  list(opts: TrailerFilter & { limit: number }): Promise<TrailerRow[]> {
    return this.filtered(opts)
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1)
      .execute();
  }

  /**
   * The same page as a JSON array text, joined from each row's api_json (a generated column kept
   * by SQLite: see the migration), with its row count and last id. Items equal trailerOut(row).
   */
  async listJson(
    opts: TrailerFilter & { limit: number },
  ): Promise<{ items: string; count: number; lastId: string | null }> {
    const page = this.filtered(opts).select(['id', 'apiJson']).orderBy('id').limit(opts.limit).as('t');
    const row = await this.db
      .selectFrom(page)
      .select([
        sql<string>`'[' || coalesce(group_concat(t.api_json, ',' ORDER BY t.id), '') || ']'`.as('items'),
        sql<number>`count(*)`.as('count'),
        sql<string | null>`max(t.id)`.as('lastId'),
      ])
      .executeTakeFirstOrThrow();
    return { items: row.items, count: Number(row.count), lastId: row.lastId };
  }

  /** Whether a row matching the filter comes after `id` (is there a next page?). Index-only for yard filters. */
  async existsAfter(opts: TrailerFilter, id: string): Promise<boolean> {
    const hit = await this.filtered({ ...opts, afterId: id })
      .select('id')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return hit !== undefined;
  }

  /**
   * The filtered query. With `yardId` it is `yard_id = ? AND id > ? ORDER BY id`, which the
   * trailer_yard (yard_id, id) index answers without sorting.
   */
  private filtered(opts: TrailerFilter) {
    let q = this.db.selectFrom('trailer');
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
    return q;
  }
}

export interface TrailerFilter {
  afterId?: string | undefined;
  yardId?: string | undefined;
  carrierId?: string | undefined;
  inYard?: boolean | undefined;
  loadStatus?: TrailerRow['loadStatus'] | undefined;
  q?: string | undefined;
  scope: string[] | null;
}
