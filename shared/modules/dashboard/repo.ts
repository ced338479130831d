import { sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { EVERY_YARD, EVERY_YARD_SCOPES, FIGURE } from './rollups/rules.js';

type YardIds = string[] | null;

/**
 * Reads for the dashboard. Figures come from the rollups (rollups/rules.ts), written with each
 * change: every read is a primary-key range of a few hundred to a few tens of thousands of rows,
 * whatever the history holds. The service hands it the read pool's builder (shared/db/read-pool.ts),
 * so these run in a worker thread, each at its own snapshot.
 */
export class DashboardRepo {
  constructor(private readonly db: Kdb) {}

  yards(yardIds: YardIds) {
    let q = this.db.selectFrom('yard').select(['id', 'code', 'name', 'timeZone']).orderBy('code');
    if (yardIds) q = q.where('id', 'in', scopeInList(yardIds));
    return q.execute();
  }

  /**
   * Movement counts of these scopes (yard ids, or EVERY_YARD) in buckets of `grain` within [from, to).
   * EVERY_YARD is the sum of its shards (rollups/rules.ts EVERY_YARD_SCOPES).
   */
  movementCounts(opts: { scopes: string[]; grain: number; from: number; to: number }) {
    const scopes = opts.scopes.flatMap((s) => (s === EVERY_YARD ? EVERY_YARD_SCOPES : [s]));
    return this.db
      .selectFrom('dashboardMovementCount')
      .select((eb) => ['bucket', 'direction', eb.fn.sum<number>('n').as('n')])
      .where('scope', 'in', scopeInList(scopes))
      .where('grain', '=', opts.grain)
      .where('bucket', '>=', opts.from)
      .where('bucket', '<', opts.to)
      .groupBy(['bucket', 'direction'])
      .execute();
  }

  /**
   * In and out per scope, each group of scopes over its own window [from, to) in buckets of its
   * grain: one statement for many yards, each a primary-key range (yards of one time zone share a
   * window, so there are as many ranges as zones).
   */
  movementCountsPerScope(windows: Array<{ scopes: string[]; grain: number; from: number; to: number }>) {
    if (windows.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('dashboardMovementCount')
      .select((eb) => ['scope', 'direction', eb.fn.sum<number>('n').as('n')])
      .where((eb) =>
        eb.or(
          windows.map((w) =>
            eb.and([
              eb('scope', 'in', scopeInList(w.scopes)),
              eb('grain', '=', w.grain),
              eb('bucket', '>=', w.from),
              eb('bucket', '<', w.to),
            ]),
          ),
        ),
      )
      .groupBy(['scope', 'direction'])
      .execute();
  }

  errorCounts(opts: { yardIds: string[]; from: number; to: number; minStatus: number; maxStatus: number }) {
    return this.db
      .selectFrom('httpErrorStat')
      .select((eb) => ['yardId', 'status', eb.fn.sum<number>('count').as('n')])
      .where('minute', '>=', Math.floor(opts.from / 60_000) * 60_000)
      .where('minute', '<=', opts.to)
      .where('status', '>=', opts.minStatus)
      .where('status', '<=', opts.maxStatus)
      .where('yardId', 'in', scopeInList(opts.yardIds))
      .groupBy(['yardId', 'status'])
      .orderBy('status')
      .execute();
  }

  /**
   * The yards' counters of these figures (rollups/rules.ts FIGURE), with the mean of the summed
   * values (check-in times) where there is one. The mean is taken in SQL: a yard's sum of epoch
   * milliseconds can pass 2^53, which a JavaScript number would round.
   */
  figures(yardIds: string[], figures: string[]) {
    return this.db
      .selectFrom('dashboardYardFigure')
      .select([
        'yardId',
        'figure',
        'item',
        'n',
        sql<number | null>`case when n > 0 then total * 1.0 / n end`.as('mean'),
      ])
      .where('yardId', 'in', scopeInList(yardIds))
      .where('figure', 'in', figures)
      .where('n', '<>', 0)
      .execute();
  }

  carrierNames(ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('carrier').select(['id', 'name']).where('id', 'in', ids).execute();
  }
}

export const TRAILER_FIGURES = [FIGURE.trailerLoad, FIGURE.trailerCarrier, FIGURE.trailerVisit];
export const TRUCK_FIGURES = [FIGURE.truck, FIGURE.truckArrival];
