import { type Selectable, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { jsonArrayStrings, textContains } from '../../db/sql-helpers.js';
import type { DB, GateTable, LocationTable, YardTable } from '../../db/tables.js';

export type YardRow = Selectable<YardTable>;
export type GateRow = Selectable<GateTable>;
export type LocationRow = Selectable<LocationTable>;

/** Reads for yards, gates and locations. Writes go through core.changes in the services. */
export class YardRepo {
  constructor(private readonly db: Kdb) {}

  yardById(id: string): Promise<YardRow | undefined> {
    return this.db.selectFrom('yard').selectAll().where('id', '=', id).executeTakeFirst();
  }

  yardByCode(code: string): Promise<YardRow | undefined> {
    return this.db
      .selectFrom('yard')
      .selectAll()
      .where(sql<string>`lower(code)`, '=', sql<string>`lower(${code})`)
      .executeTakeFirst();
  }

  /** Ordered by code (unique); keyset paging after `afterCode`. `yardIds` limits to a scope. */
  listYards(opts: {
    limit: number;
    afterCode?: string | undefined;
    yardIds: string[] | null;
    q?: string | undefined;
    status?: YardRow['status'] | undefined;
  }): Promise<YardRow[]> {
    let q = this.db
      .selectFrom('yard')
      .selectAll()
      .orderBy('code')
      .limit(opts.limit + 1);
    if (opts.afterCode !== undefined) q = q.where('code', '>', opts.afterCode);
    if (opts.yardIds !== null) {
      if (opts.yardIds.length === 0) return Promise.resolve([]);
      q = q.where('id', 'in', opts.yardIds);
    }
    if (opts.status) q = q.where('status', '=', opts.status);
    if (opts.q) {
      const text = opts.q;
      q = q.where((eb) => eb.or([textContains(eb.ref('name'), text), textContains(eb.ref('code'), text)]));
    }
    return q.execute();
  }

  async yardIds(within: string[] | null): Promise<string[]> {
    if (within !== null && within.length === 0) return [];
    let q = this.db.selectFrom('yard').select('id').orderBy('code');
    if (within !== null) q = q.where('id', 'in', within);
    return (await q.execute()).map((r) => r.id);
  }

  gateById(id: string): Promise<GateRow | undefined> {
    return this.db.selectFrom('gate').selectAll().where('id', '=', id).executeTakeFirst();
  }

  gateByName(yardId: string, name: string): Promise<GateRow | undefined> {
    return byNameInYard(this.db.selectFrom('gate').selectAll(), yardId, name).executeTakeFirst();
  }

  /** Ordered by lower(name), id (pageInYardByName). */
  listGates(opts: {
    yardId: string;
    limit: number;
    after?: [string, string] | undefined;
    direction?: GateRow['direction'] | undefined;
  }): Promise<GateRow[]> {
    let q = pageInYardByName(this.db.selectFrom('gate').selectAll(), opts);
    if (opts.direction) q = q.where('direction', '=', opts.direction);
    return q.execute();
  }

  locationById(id: string): Promise<LocationRow | undefined> {
    return this.db.selectFrom('location').selectAll().where('id', '=', id).executeTakeFirst();
  }

  locationByName(yardId: string, name: string): Promise<LocationRow | undefined> {
    return byNameInYard(this.db.selectFrom('location').selectAll(), yardId, name).executeTakeFirst();
  }

  /** Ordered by lower(name), id (pageInYardByName). */
  listLocations(opts: {
    yardId: string;
    limit: number;
    after?: [string, string] | undefined;
    kind?: LocationRow['kind'] | undefined;
    status?: LocationRow['status'] | undefined;
    q?: string | undefined;
    free?: boolean | undefined;
    ids?: string[] | undefined;
  }): Promise<LocationRow[]> {
    let q = pageInYardByName(this.db.selectFrom('location').selectAll(), opts);
    if (opts.ids !== undefined) q = q.where('id', 'in', opts.ids);
    if (opts.kind) q = q.where('kind', '=', opts.kind);
    if (opts.status) q = q.where('status', '=', opts.status);
    if (opts.q) {
      const text = opts.q;
      q = q.where((eb) => textContains(eb.ref('name'), text));
    }
    if (opts.free !== undefined) {
      // Taken: trailers standing there plus trailers an open task is bringing there (a reserved spot).
      const taken = sql<number>`(
        (select count(*) from trailer t where t.location_id = location.id and t.yard_id = location.yard_id)
        + (select count(*) from yard_task k where k.to_location_id = location.id
             and k.status in ('QUEUED', 'ASSIGNED', 'IN_PROGRESS')
             and (k.trailer_id is null or not exists (
               select 1 from trailer t2 where t2.id = k.trailer_id and t2.location_id = location.id))))`;
      q = opts.free
        ? q.where('status', '=', 'active').where(sql<boolean>`${taken} < location.capacity`)
        : q.where(sql<boolean>`${taken} >= location.capacity`);
    }
    return q.execute();
  }

  /** Names of the kinds of record that still refer to the yard (empty when it can be deleted). */
  async yardReferences(yardId: string): Promise<string[]> {
    const found: string[] = [];
    const byYardId = [
      ['location', 'locations'],
      ['gate', 'gates'],
      ['trailer', 'trailers'],
      ['truck', 'trucks'],
      ['movement', 'movements'],
      ['gateActuation', 'gate actuations'],
      ['truckInspection', 'truck inspections'],
      ['visit', 'visits'],
    ] as const;
    for (const [table, label] of byYardId) {
      const hit = await this.db
        .selectFrom(table)
        .select('yardId')
        .where('yardId', '=', yardId)
        .limit(1)
        .executeTakeFirst();
      if (hit) found.push(label);
    }
    // User and API key scopes are JSON arrays of yard ids: one element equal to it (not a text
    // match, which ignores case on SQLite only).
    for (const [table, label] of [
      ['appUser', 'user scopes'],
      ['apiKey', 'API key scopes'],
    ] as const) {
      const hit = await this.db
        .selectFrom(table)
        .select('id')
        .where(
          (eb) =>
            sql<SqlBool>`exists (select 1 from ${jsonArrayStrings(this.db, eb.ref('yardIds'), 'scope')}
              where scope.value = ${yardId})`,
        )
        .limit(1)
        .executeTakeFirst();
      if (hit) found.push(label);
    }
    return found;
  }

  gateReferences(gateId: string): Promise<string[]> {
    return this.referencedBy('gateId', gateId, [
      ['movement', 'movements'],
      ['gateActuation', 'gate actuations'],
    ]);
  }

  locationReferences(locationId: string): Promise<string[]> {
    return this.referencedBy('locationId', locationId, [
      ['trailer', 'trailers'],
      ['movement', 'movements'],
    ]);
  }

  /** The labels of the tables that have at least one row with `column = value` (one indexed probe each). */
  private async referencedBy(
    column: 'gateId' | 'locationId',
    value: string,
    tables: ReadonlyArray<readonly ['movement' | 'gateActuation' | 'trailer', string]>,
  ): Promise<string[]> {
    const found: string[] = [];
    for (const [table, label] of tables) {
      const hit = await this.db
        .selectFrom(table)
        .select('id')
        .where(column as never, '=', value as never)
        .limit(1)
        .executeTakeFirst();
      if (hit) found.push(label);
    }
    return found;
  }
}

/** Gates and locations: each belongs to one yard and has a name unique in it, case-insensitive. */
type InYard<O> = SelectQueryBuilder<DB, 'gate' | 'location', O>;

/**
 * The gate or location of the yard with this name, ignoring case as the unique index does: lower()
 * on both sides in SQL (ASCII letters only on both databases; JavaScript's toLowerCase would also
 * lower Ä, and miss the "Ärea" that is there).
 */
function byNameInYard<Q extends InYard<object>>(q: Q, yardId: string, name: string): Q {
  return q
    .where('yardId', '=', yardId)
    .where(sql<string>`lower(name)`, '=', sql<string>`lower(${name})`) as Q;
}

/** A page of a yard's gates or locations: ordered by lower(name), id; keyset paging after `after`. */
function pageInYardByName<Q extends InYard<object>>(
  q: Q,
  opts: { yardId: string; limit: number; after?: [string, string] | undefined },
): Q {
  const page = q
    .where('yardId', '=', opts.yardId)
    .orderBy(sql`lower(name)`)
    .orderBy('id')
    .limit(opts.limit + 1);
  if (!opts.after) return page as Q;
  return page.where(sql<boolean>`(lower(name), id) > (${opts.after[0]}, ${opts.after[1]})`) as Q;
}
