import { type Selectable, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { textContains, textMatchRank } from '../../db/sql-helpers.js';
import type { CarrierTable } from '../../db/tables.js';

export type CarrierRow = Selectable<CarrierTable>;

/** Reads for carriers. Writes go through core.changes (ChangeCapture) in the service. */
export class CarrierRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<CarrierRow | undefined> {
    return this.db.selectFrom('carrier').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byScac(scac: string): Promise<CarrierRow | undefined> {
    return this.db.selectFrom('carrier').selectAll().where('scac', '=', scac).executeTakeFirst();
  }

  /** Ordered by id (creation order); keyset paging after `afterId`. */
  list(opts: {
    limit: number;
    afterId?: string | undefined;
    q?: string | undefined;
    status?: string | undefined;
    ids?: string[] | undefined;
  }) {
    let q = this.db
      .selectFrom('carrier')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.afterId) q = q.where('id', '>', opts.afterId);
    if (opts.ids !== undefined) q = q.where('id', 'in', opts.ids);
    if (opts.status) q = q.where('status', '=', opts.status as CarrierRow['status']);
    if (opts.q) {
      const text = opts.q;
      q = q.where((eb) => eb.or([textContains(eb.ref('name'), text), textContains(eb.ref('scac'), text)]));
    }
    return q.execute();
  }

  /**
   * Carriers whose name or SCAC matches `q`, best first (textMatchRank of the better of the two),
   * then by name. Reads the carrier table, which holds an organisation's carriers (hundreds).
   */
  search(
    q: string,
    limit: number,
  ): Promise<Array<CarrierRow & { rank: number; nameRank: number; scacRank: number }>> {
    return (
      this.db
        .selectFrom((eb) =>
          eb
            .selectFrom('carrier')
            .selectAll()
            .select((s) => [
              textMatchRank(s.ref('name'), q).as('nameRank'),
              textMatchRank(s.ref('scac'), q).as('scacRank'),
            ])
            .where((w) => w.or([textContains(w.ref('name'), q), textContains(w.ref('scac'), q)]))
            .as('matched'),
        )
        .selectAll()
        // The better of the two (no scalar max() that both databases have: SQLite's max, PostgreSQL's greatest).
        .select(sql<number>`case when name_rank >= scac_rank then name_rank else scac_rank end`.as('rank'))
        .orderBy('rank', 'desc')
        .orderBy(sql`lower(name)`)
        .orderBy('id')
        .limit(limit)
        .execute() as Promise<Array<CarrierRow & { rank: number; nameRank: number; scacRank: number }>>
    );
  }

  /** Whether any record refers to the carrier (then it can be blocked but not deleted). */
  async isReferenced(id: string): Promise<boolean> {
    const tables = ['driver', 'truck', 'trailer', 'movement'] as const;
    for (const table of tables) {
      const hit = await this.db
        .selectFrom(table)
        .select('id')
        .where('carrierId', '=', id)
        .limit(1)
        .executeTakeFirst();
      if (hit) return true;
    }
    return false;
  }
}
