import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { BillingCarrierConfigTable, BillingYardConfigTable, DB } from '../../db/tables.js';
import { APPOINTMENT_STATUS_SQL } from '../appointments/status.js';
import type { CarrierService } from '../carriers/service.js';
import type { YardService } from '../yards/service.js';
import { BILLED_TASK_TYPES } from './compute/index.js';
import type { BillingInput, Rates, Visit } from './compute/types.js';
import { VisitInputs, type Window } from './visit-inputs.js';

/** The other modules billing reads: yards (time zone, code, site), carriers (name, SCAC). */
export interface BillingReads {
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
}

export type YardConfigRow = Selectable<BillingYardConfigTable>;
export type CarrierConfigRow = Selectable<BillingCarrierConfigTable>;

/** How many of each input went into a computation (stored beside it). */
export interface InputCounts {
  visits: number;
  moves: number;
  checkIns: number;
  lateArrivals: number;
  noShows: number;
  adjustments: number;
}

/**
 * Gathers what the pure computation needs for one yard, carrier and window, from the movements,
 * visits (visit-inputs.ts), tasks and appointments recorded (or synced) here, and reads the billing
 * configs. Every query is on an index (migration 0007 adds the two that the carrier-first reads
 * need).
 */
export class BillingInputs {
  constructor(
    private readonly db: Kdb,
    private readonly visitReads = new VisitInputs(db),
  ) {}

  yardConfig(yardId: string): Promise<YardConfigRow | undefined> {
    return this.db
      .selectFrom('billingYardConfig')
      .selectAll()
      .where('yardId', '=', yardId)
      .executeTakeFirst();
  }

  yardConfigs(): Promise<YardConfigRow[]> {
    return this.db.selectFrom('billingYardConfig').selectAll().orderBy('yardId').execute();
  }

  carrierConfig(yardId: string, carrierId: string): Promise<CarrierConfigRow | undefined> {
    return this.db
      .selectFrom('billingCarrierConfig')
      .selectAll()
      .where('yardId', '=', yardId)
      .where('carrierId', '=', carrierId)
      .executeTakeFirst();
  }

  /**
   * The carriers that may owe something in the window: those with a carrier config in the yard (booked
   * spaces, minimum), and those with a trailer visit present, a check-in or a billed move in it.
   */
  async carriersOf(yardId: string, w: Window): Promise<string[]> {
    const ids = new Set<string>();
    const configs = await this.db
      .selectFrom('billingCarrierConfig')
      .select('carrierId')
      .where('yardId', '=', yardId)
      .execute();
    for (const r of configs) ids.add(r.carrierId);
    // A visit begun in the window begins with a check-in of its carrier (below); those begun before
    // it and present at its start come from visit_yard_open (yard, out_at).
    const presentAtStart = (left: 'still-in' | 'left-after-start') =>
      this.db
        .selectFrom('visit as v')
        .select('v.carrierId')
        .where('v.yardId', '=', yardId)
        .where((eb) => (left === 'still-in' ? eb('v.outAt', 'is', null) : eb('v.outAt', '>', w.start)))
        .where(sql<number>`+v.in_at`, '<', w.start)
        .where('v.unitKind', '=', 'trailer')
        .execute();
    const carried = [...(await presentAtStart('still-in')), ...(await presentAtStart('left-after-start'))];
    for (const r of carried) if (r.carrierId) ids.add(r.carrierId);
    const checkIns = await this.db
      .selectFrom('movement as m')
      .select('m.carrierId')
      .distinct()
      .where('m.yardId', '=', yardId)
      .where('m.at', '>=', w.start)
      .where('m.at', '<', w.end)
      .where('m.direction', '=', 'in')
      .where('m.carrierId', 'is not', null)
      .where(notCorrected)
      .execute();
    for (const r of checkIns) if (r.carrierId) ids.add(r.carrierId);
    const moves = await this.db
      .selectFrom('yardTask')
      .select('billedCarrierId')
      .distinct()
      .where('yardId', '=', yardId)
      .where('status', '=', 'COMPLETED')
      .where('completedAt', '>=', w.start)
      .where('completedAt', '<', w.end)
      .where('type', 'in', BILLED_TASK_TYPES)
      .where('billedCarrierId', 'is not', null)
      .execute();
    for (const r of moves) if (r.billedCarrierId) ids.add(r.billedCarrierId);
    // Appointment fees: a carrier with nothing but a late arrival or a no-show still owes them.
    const appointments = await this.db
      .selectFrom('appointment as a')
      .select('a.carrierId')
      .distinct()
      .where('a.yardId', '=', yardId)
      .where((eb) =>
        eb.or([
          eb.and([eb('a.arrivedAt', '>=', w.start), eb('a.arrivedAt', '<', w.end)]),
          eb.and([eb('a.noShowAt', '>=', w.start), eb('a.noShowAt', '<', w.end)]),
        ]),
      )
      .execute();
    for (const r of appointments) ids.add(r.carrierId);
    return [...ids].sort();
  }

  /** The carrier's completed relocating tasks with completedAt in the window. */
  async moves(yardId: string, carrierId: string, w: Window): Promise<number> {
    const row = await this.db
      .selectFrom('yardTask')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('yardId', '=', yardId)
      .where('billedCarrierId', '=', carrierId)
      .where('status', '=', 'COMPLETED')
      .where('completedAt', '>=', w.start)
      .where('completedAt', '<', w.end)
      .where('type', 'in', BILLED_TASK_TYPES)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The carrier's gate check-ins of trailers with `at` in the window that no movement corrects: a
   * corrected check-in is billed once, as its correction (to the correction's carrier).
   */
  async checkIns(yardId: string, carrierId: string, w: Window): Promise<number> {
    const row = await this.db
      .selectFrom('movement as m')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('m.carrierId', '=', carrierId)
      .where('m.at', '>=', w.start)
      .where('m.at', '<', w.end)
      .where('m.yardId', '=', yardId)
      .where('m.direction', '=', 'in')
      .where('m.trailerId', 'is not', null)
      .where(notCorrected)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The carrier's appointments in the yard that arrived late with arrivedAt in the window
   * (docs/domain.md "Billing", LATE). A no-show that arrived later is arrived, late: counted here
   * and not as a no-show.
   */
  async lateArrivals(yardId: string, carrierId: string, w: Window): Promise<number> {
    const row = await this.db
      .selectFrom('appointment as a')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('a.yardId', '=', yardId)
      .where('a.carrierId', '=', carrierId)
      .where('a.arrival', '=', 'late')
      .where('a.arrivedAt', '>=', w.start)
      .where('a.arrivedAt', '<', w.end)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The carrier's appointments in the yard marked no-show with noShowAt in the window, still
   * no-show now (NO_SHOW): the status rule of the appointments module decides (status.ts), so an
   * undone no-show (noShowAt cleared) or one that arrived later is not billed as a no-show.
   */
  async noShows(yardId: string, carrierId: string, w: Window): Promise<number> {
    const row = await this.db
      .selectFrom('appointment as a')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('a.yardId', '=', yardId)
      .where('a.carrierId', '=', carrierId)
      .where('a.noShowAt', '>=', w.start)
      .where('a.noShowAt', '<', w.end)
      .where(sql<string>`${sql.raw(APPOINTMENT_STATUS_SQL)}`, '=', 'no_show')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The carrier's trailer visits present at some instant of the window (visit-inputs.ts). */
  visits(yardId: string, carrierId: string, w: Window): Promise<Visit[]> {
    return this.visitReads.visits(yardId, carrierId, w);
  }

  async adjustments(yardId: string, carrierId: string, period: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('invoiceAdjustment')
      .select('amount')
      .where('yardId', '=', yardId)
      .where('carrierId', '=', carrierId)
      .where('period', '=', period)
      .orderBy('id')
      .execute();
    return rows.map((r) => Number(r.amount));
  }

  /** Everything the computation needs for (yard, carrier, period), and how many of each. */
  async gather(args: {
    yardId: string;
    carrierId: string;
    period: string;
    timeZone: string;
    now: number;
    window: Window;
    rates: Rates;
    yardConfig: YardConfigRow;
  }): Promise<{ input: BillingInput; counts: InputCounts }> {
    const { yardId, carrierId, window: w } = args;
    const [visits, moves, checkIns, lateArrivals, noShows, adjustments] = await Promise.all([
      this.visits(yardId, carrierId, w),
      this.moves(yardId, carrierId, w),
      this.checkIns(yardId, carrierId, w),
      this.lateArrivals(yardId, carrierId, w),
      this.noShows(yardId, carrierId, w),
      this.adjustments(yardId, carrierId, args.period),
    ]);
    return {
      input: {
        period: args.period,
        timeZone: args.timeZone,
        now: args.now,
        rates: args.rates,
        graceMinutes: args.yardConfig.graceMinutes,
        taxRateBp: args.yardConfig.taxRateBp,
        visits,
        moves,
        checkIns,
        lateArrivals,
        noShows,
        adjustments,
      },
      counts: {
        visits: visits.length,
        moves,
        checkIns,
        lateArrivals,
        noShows,
        adjustments: adjustments.length,
      },
    };
  }
}

/** No movement corrects `m` (correctsId; on the index movement_corrects, migration 0013). */
function notCorrected(eb: ExpressionBuilder<DB & { m: DB['movement'] }, 'm'>) {
  return eb.not(
    eb.exists(eb.selectFrom('movement as c').select('c.id').whereRef('c.correctsId', '=', 'm.id')),
  );
}
