import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { BillingCarrierConfigTable, BillingYardConfigTable, DB } from '../../db/tables.js';
import { APPOINTMENT_STATUS_SQL } from '../appointments/status.js';
import type { CarrierService } from '../carriers/service.js';
import type { YardService } from '../yards/service.js';
import { BILLED_TASK_TYPES } from './compute/index.js';
import type { BillingInput, Rates, Visit } from './compute/types.js';

/** The other modules billing reads: yards (time zone, code, site), carriers (name, SCAC). */
export interface BillingReads {
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
}

export type YardConfigRow = Selectable<BillingYardConfigTable>;
export type CarrierConfigRow = Selectable<BillingCarrierConfigTable>;

/** [start, end) epoch ms. */
export interface Window {
  start: number;
  end: number;
}

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
 * visits and tasks recorded (or synced) here, and reads the billing configs. Every query is on an
 * index (migration 0007 adds the two that the carrier-first reads need); the visits are read in two
 * index ranges (begun in the window; begun before it and still present at its start) rather than
 * scanning the carrier's whole history.
 */
export class BillingInputs {
  constructor(private readonly db: Kdb) {}

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

  /** The carrier's trailer visits present at some instant of the window, with their annex details. */
  async visits(yardId: string, carrierId: string, w: Window): Promise<Visit[]> {
    const base = () =>
      this.db
        .selectFrom('visit as v')
        .leftJoin('trailer as t', 't.id', 'v.trailerId')
        .innerJoin('movement as mi', 'mi.id', 'v.inMovementId')
        .leftJoin('movement as mo', 'mo.id', 'v.outMovementId')
        .select([
          'v.trailerId',
          't.number as trailerNumber',
          'v.inAt',
          'v.outAt',
          'v.inMovementId',
          'v.outMovementId',
          'mi.attachmentIds as inAttachments',
          'mo.attachmentIds as outAttachments',
        ])
        .where('v.yardId', '=', yardId)
        .where('v.carrierId', '=', carrierId)
        .where('v.unitKind', '=', 'trailer');
    // `+v.in_at` keeps SQLite on visit_carrier_out (yard, carrier, out_at) for the visits begun
    // before the window: a range on in_at would walk the carrier's whole history.
    const beganBefore = sql<number>`+v.in_at`;
    const rows = (
      await Promise.all([
        // Begun before the window and still in, or gone after its start (visit_carrier_out) ...
        base().where('v.outAt', 'is', null).where(beganBefore, '<', w.start).execute(),
        base().where('v.outAt', '>', w.start).where(beganBefore, '<', w.start).execute(),
        // ... or begun in it (visit_carrier: yard, carrier, in_at).
        base().where('v.inAt', '>=', w.start).where('v.inAt', '<', w.end).execute(),
      ])
    ).flat();
    const linked = await this.linkedToMovements(
      rows.flatMap((r) => (r.outMovementId ? [r.inMovementId, r.outMovementId] : [r.inMovementId])),
    );
    return rows.map((r) => ({
      trailerId: r.trailerId ?? '',
      ...(r.trailerNumber ? { trailerNumber: r.trailerNumber } : {}),
      inAt: r.inAt,
      outAt: r.outAt,
      inMovementId: r.inMovementId,
      outMovementId: r.outMovementId,
      attachmentIds: [
        ...new Set([
          ...parseIds(r.inAttachments),
          ...parseIds(r.outAttachments),
          ...(linked.get(r.inMovementId) ?? []),
          ...((r.outMovementId && linked.get(r.outMovementId)) || []),
        ]),
      ].sort(),
    }));
  }

  /**
   * Attachments uploaded later against these movements (refType 'movement'), besides those a
   * movement lists itself, per movement id: read on attachment_ref in chunks of ids, and grouped
   * here rather than with an aggregate of the database's own (SQLite's json_group_array has no
   * PostgreSQL namesake).
   */
  private async linkedToMovements(movementIds: readonly string[]): Promise<Map<string, string[]>> {
    const byMovement = new Map<string, string[]>();
    const ids = [...new Set(movementIds)];
    for (let i = 0; i < ids.length; i += LINKED_CHUNK) {
      const rows = await this.db
        .selectFrom('attachment')
        .select(['id', 'refId'])
        .where('refType', '=', 'movement')
        .where('refId', 'in', ids.slice(i, i + LINKED_CHUNK))
        .execute();
      for (const r of rows) {
        if (!r.refId) continue;
        const list = byMovement.get(r.refId) ?? [];
        list.push(r.id);
        byMovement.set(r.refId, list);
      }
    }
    return byMovement;
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

/** Movement ids per attachment read: well under SQLite's 32766 bound parameters and PostgreSQL's 65535. */
const LINKED_CHUNK = 500;

function parseIds(json: string | null): string[] {
  if (!json) return [];
  try {
    const ids = JSON.parse(json) as unknown;
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
