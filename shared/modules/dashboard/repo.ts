import { sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';

/** Movement counts are grouped by quarter hour: every real time-zone offset is a multiple of 15 min. */
export const QUARTER_HOUR_MS = 900_000;

type YardIds = string[] | null;

/** Aggregate reads for the dashboard; every figure is one grouped query. */
export class DashboardRepo {
  constructor(private readonly db: Kdb) {}

  yards(yardIds: YardIds) {
    let q = this.db.selectFrom('yard').select(['id', 'code', 'name', 'timeZone']).orderBy('code');
    if (yardIds) q = q.where('id', 'in', scopeInList(yardIds));
    return q.execute();
  }

  movementQuarterHours(opts: { yardIds: YardIds; from: number; to: number }) {
    let q = this.db
      .selectFrom('movement')
      .select((eb) => [
        'direction',
        sql<number>`${eb.ref('at')} / ${sql.lit(QUARTER_HOUR_MS)}`.as('quarter'),
        eb.fn.countAll<number>().as('n'),
      ])
      .where('at', '>=', opts.from)
      .where('at', '<', opts.to)
      .groupBy(['quarter', 'direction']);
    if (opts.yardIds) q = q.where('yardId', 'in', scopeInList(opts.yardIds));
    return q.execute();
  }

  errorCounts(opts: { yardIds: YardIds; from: number; to: number; minStatus: number; maxStatus: number }) {
    let q = this.db
      .selectFrom('httpErrorStat')
      .select((eb) => ['yardId', 'status', eb.fn.sum<number>('count').as('n')])
      .where('minute', '>=', Math.floor(opts.from / 60_000) * 60_000)
      .where('minute', '<=', opts.to)
      .where('status', '>=', opts.minStatus)
      .where('status', '<=', opts.maxStatus)
      .groupBy(['yardId', 'status'])
      .orderBy('status');
    if (opts.yardIds) q = q.where('yardId', 'in', scopeInList(opts.yardIds));
    return q.execute();
  }

  trailersByLoadStatus(yardIds: YardIds) {
    let q = this.db
      .selectFrom('trailer')
      .select((eb) => ['yardId', 'loadStatus', eb.fn.countAll<number>().as('n')])
      .where('yardId', 'is not', null)
      .groupBy(['yardId', 'loadStatus']);
    if (yardIds) q = q.where('yardId', 'in', scopeInList(yardIds));
    return q.execute();
  }

  trailersByCarrier(yardIds: YardIds) {
    let q = this.db
      .selectFrom('trailer')
      .leftJoin('carrier', 'carrier.id', 'trailer.carrierId')
      .select((eb) => [
        'trailer.yardId',
        'trailer.carrierId',
        'carrier.name as carrierName',
        eb.fn.countAll<number>().as('n'),
      ])
      .where('trailer.yardId', 'is not', null)
      .groupBy(['trailer.yardId', 'trailer.carrierId', 'carrier.name'])
      .orderBy('n', 'desc');
    if (yardIds) q = q.where('trailer.yardId', 'in', scopeInList(yardIds));
    return q.execute();
  }

  /** Per yard: open trailer visits and the mean of their check-in times. */
  openTrailerVisits(yardIds: YardIds) {
    let q = this.db
      .selectFrom('visit')
      .select((eb) => ['yardId', eb.fn.countAll<number>().as('n'), eb.fn.avg<number>('inAt').as('meanInAt')])
      .where('outAt', 'is', null)
      .where('unitKind', '=', 'trailer')
      .groupBy('yardId');
    if (yardIds) q = q.where('yardId', 'in', scopeInList(yardIds));
    return q.execute();
  }

  /** Per yard: trucks in the yard and the mean of each one's latest check-in there. */
  trucksInYard(yardIds: YardIds) {
    let q = this.db
      .selectFrom('truck')
      .select((eb) => [
        'truck.yardId',
        eb.fn.countAll<number>().as('n'),
        sql<
          number | null
        >`avg((select max(v.in_at) from visit v where v.truck_id = truck.id and v.yard_id = truck.yard_id))`.as(
          'meanInAt',
        ),
      ])
      .where('truck.yardId', 'is not', null)
      .groupBy('truck.yardId');
    if (yardIds) q = q.where('truck.yardId', 'in', scopeInList(yardIds));
    return q.execute();
  }
}
