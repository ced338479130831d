import { type Selectable, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { ShapeCache } from '../../db/prepared.js';
import { asciiLower, likeContains, textStartsWithKey, unitInScope } from '../../db/sql-helpers.js';
import type { TrailerTable } from '../../db/tables.js';
import { normalizePlate } from '../trucks/schema.js';
import { trailerNumberKey } from './schema.js';

export type TrailerRow = Selectable<TrailerTable>;

/** Reads for trailers. Writes go through core.changes (ChangeCapture) in the service. */
export class TrailerRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<TrailerRow | undefined> {
    return this.db.selectFrom('trailer').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Same number (case-insensitive, via the trailer_number index) with the same carrier, or both without one. */
  byNumber(carrierId: string | null, number: string): Promise<TrailerRow | undefined> {
    let q = this.db
      .selectFrom('trailer')
      .selectAll()
      .where(sql`lower(number)`, '=', trailerNumberKey(number));
    q = carrierId === null ? q.where('carrierId', 'is', null) : q.where('carrierId', '=', carrierId);
    return q.executeTakeFirst();
  }

  /**
   * The same page as a JSON array text, joined from each row's api_json (a generated column kept
   * by the database, the same text on SQLite and PostgreSQL: see the migration), with its row count and last id. Items equal trailerOut(row).
   * Compiled once per filter shape (shared/db/prepared.ts): this is the gate house's hottest list.
   */
  async listJson(
    opts: TrailerFilter & { limit: number },
  ): Promise<{ items: string; count: number; lastId: string | null }> {
    const shape = shapeOf(derive(opts));
    const [row] = await listShapes.run(this.db, `page|${shape.key}`, [...shape.values, opts.limit], (ph) => {
      const page = this.filtered(shape.rebuild(ph))
        .select(['id', 'apiJson'])
        .orderBy('id')
        .limit(ph.at(-1) as unknown as number)
        .as('t');
      return this.db.selectFrom(page).select([
        // string_agg with ORDER BY: PostgreSQL's aggregate, which SQLite (3.44+) also has.
        sql<string>`'[' || coalesce(string_agg(t.api_json, ',' ORDER BY t.id), '') || ']'`.as('items'),
        sql<number>`count(*)`.as('count'),
        sql<string | null>`max(t.id)`.as('lastId'),
      ]);
    });
    return { items: row?.items ?? '[]', count: Number(row?.count ?? 0), lastId: row?.lastId ?? null };
  }

  /** Whether a row matching the filter comes after `id` (is there a next page?). Index-only for yard filters. */
  async existsAfter(opts: TrailerFilter, id: string): Promise<boolean> {
    const shape = shapeOf(derive({ ...opts, afterId: id }));
    const rows = await listShapes.run(this.db, `exists|${shape.key}`, shape.values, (ph) =>
      this.filtered(shape.rebuild(ph)).select('id').orderBy('id').limit(1),
    );
    return rows.length > 0;
  }

  /**
   * Trailers for a search by number or plate, within `scope` (null: every yard): first those whose
   * number is or starts with `key` (trailerNumberKey) or whose plate is `plate`, from the
   * trailer_number and trailer_plate indexes; then, only while fewer than `limit` were found,
   * those whose number contains `compact` (spaces ignored), which reads the whole table
   * (docs/api.md "Search"). By number within each part.
   */
  async search(opts: {
    key: string;
    compact: string;
    plate: string | null;
    scope: string[] | null;
    limit: number;
  }): Promise<{ starts: TrailerRow[]; contains: TrailerRow[] }> {
    const scoped = () => {
      const q = this.db.selectFrom('trailer').selectAll();
      return opts.scope === null ? q : q.where(unitInScope<'trailer'>(opts.scope));
    };
    const starts = await scoped()
      .where((eb) => {
        const byNumber = textStartsWithKey(sql<string>`lower(${eb.ref('number')})`, opts.key);
        return opts.plate ? eb.or([byNumber, eb('plate', '=', opts.plate)]) : byNumber;
      })
      .orderBy(sql`lower(number)`)
      .orderBy('id')
      .limit(opts.limit)
      .execute();
    if (starts.length >= opts.limit || opts.compact === '') return { starts, contains: [] };
    const found = starts.map((r) => r.id);
    let rest = scoped()
      .where(sql<boolean>`replace(lower(number), ' ', '') like ${likeContains(opts.compact)} escape '\\'`)
      .orderBy(sql`lower(number)`)
      .orderBy('id')
      .limit(opts.limit - starts.length);
    if (found.length > 0) rest = rest.where('id', 'not in', found);
    return { starts, contains: await rest.execute() };
  }

  /**
   * The filtered query. With `yardId` it is `yard_id = ? AND id > ? ORDER BY id`, which the
   * trailer_yard (yard_id, id) index answers without sorting.
   */
  private filtered(f: DerivedFilter) {
    let q = this.db.selectFrom('trailer');
    if (f.afterId !== undefined) q = q.where('id', '>', f.afterId);
    if (f.ids !== undefined) q = q.where('id', 'in', f.ids);
    if (f.yardId !== undefined) q = q.where('yardId', '=', f.yardId);
    if (f.carrierId !== undefined) q = q.where('carrierId', '=', f.carrierId);
    if (f.loadStatus !== undefined) q = q.where('loadStatus', '=', f.loadStatus as TrailerRow['loadStatus']);
    if (f.inYard !== undefined) q = q.where('yardId', f.inYard ? 'is not' : 'is', null);
    if (f.scope !== undefined) q = q.where(unitInScope<'trailer'>(f.scope));
    if (f.numberIs !== undefined) {
      const numberIs = f.numberIs;
      q = q.where((eb) => sql<boolean>`replace(lower(${eb.ref('number')}), ' ', '') = ${numberIs}`);
    }
    if (f.numberLike !== undefined) {
      const numberLike = f.numberLike;
      const plateLike = f.plateLike;
      q = q.where((eb) =>
        eb.or([
          sql<boolean>`replace(lower(${eb.ref('number')}), ' ', '') like ${numberLike} escape '\\'`,
          ...(plateLike !== undefined
            ? [sql<boolean>`lower(${eb.ref('plate')}) like ${plateLike} escape '\\'`]
            : []),
        ]),
      );
    }
    return q;
  }
}

const listShapes = new ShapeCache();

/** The filter with every value the SQL binds already computed (LIKE patterns, normalised plate). */
interface DerivedFilter {
  afterId?: string | undefined;
  ids?: string[] | undefined;
  yardId?: string | undefined;
  carrierId?: string | undefined;
  loadStatus?: string | undefined;
  inYard?: boolean | undefined;
  scope?: string[] | undefined;
  numberLike?: string | undefined;
  plateLike?: string | undefined;
  numberIs?: string | undefined;
}

function derive(opts: TrailerFilter): DerivedFilter {
  const plate = opts.q ? normalizePlate(opts.q) : undefined;
  return {
    afterId: opts.afterId,
    ids: opts.ids,
    yardId: opts.yardId,
    carrierId: opts.carrierId,
    loadStatus: opts.loadStatus,
    inYard: opts.inYard,
    scope: opts.scope && !opts.yardId ? opts.scope : undefined,
    // Spaces do not count in a number: "prfu482113" finds "PRFU 482113" (a scanner or a hurried clerk).
    numberLike: opts.q ? likeContains(trailerNumberKey(opts.q).replace(/ /g, '')) : undefined,
    // Lower-cased on both sides (as textContains): SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
    plateLike: opts.q && plate ? likeContains(asciiLower(plate)) : undefined,
    // "Where is it?" asks for this very number first: a contains search would also answer the
    // trailers whose numbers start the same.
    numberIs: opts.number ? trailerNumberKey(opts.number).replace(/ /g, '') : undefined,
  };
}

const SCALARS = [
  'afterId',
  'yardId',
  'carrierId',
  'loadStatus',
  'numberLike',
  'plateLike',
  'numberIs',
] as const;

/** The filter's shape (which parts are present), its bound values in order, and how to rebuild it from placeholders. */
function shapeOf(f: DerivedFilter): {
  key: string;
  values: unknown[];
  rebuild: (ph: string[]) => DerivedFilter;
} {
  const present = SCALARS.filter((k) => f[k] !== undefined);
  const scope = f.scope ?? null;
  const ids = f.ids ?? null;
  const key = `${present.join(',')}|inYard=${f.inYard ?? '-'}|scope=${scope ? scope.length : '-'}|ids=${ids ? ids.length : '-'}`;
  const values = [...present.map((k) => f[k]), ...(scope ?? []), ...(ids ?? [])];
  const scopeEnd = present.length + (scope?.length ?? 0);
  const rebuild = (ph: string[]): DerivedFilter => ({
    ...Object.fromEntries(present.map((k, i) => [k, ph[i]])),
    inYard: f.inYard,
    scope: scope ? ph.slice(present.length, scopeEnd) : undefined,
    ids: ids ? ph.slice(scopeEnd, scopeEnd + ids.length) : undefined,
  });
  return { key, values, rebuild };
}

export interface TrailerFilter {
  afterId?: string | undefined;
  /** Only these trailers (the tasks screen names the trailers of the tasks it lists in one request). */
  ids?: string[] | undefined;
  yardId?: string | undefined;
  carrierId?: string | undefined;
  inYard?: boolean | undefined;
  loadStatus?: TrailerRow['loadStatus'] | undefined;
  q?: string | undefined;
  number?: string | undefined;
  scope: string[] | null;
}
