import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { BillingCarrierConfigTable, BillingYardConfigTable } from '../../db/tables.js';
import type { CarrierService } from '../carriers/service.js';
import type { YardService } from '../yards/service.js';
import { computeBilling, periodWindow, resolveRates } from './compute/index.js';
import type { BillingInput, BillingResult, Rates, Visit } from './compute/types.js';

/** The other modules billing reads: yards (time zone, code, site), carriers (name, SCAC). */
export interface BillingReads {
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
}

export type YardConfigRow = Selectable<BillingYardConfigTable>;
export type CarrierConfigRow = Selectable<BillingCarrierConfigTable>;

/** The task types that relocate a trailer: the moves a carrier pays for (docs/domain.md "Billing"). */
export const BILLED_TASK_TYPES = ['move', 'pull_to_door', 'return_to_spot', 'shunt'] as const;

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
    const visits = await this.db
      .selectFrom('visit')
      .select('carrierId')
      .distinct()
      .where('yardId', '=', yardId)
      .where('unitKind', '=', 'trailer')
      .where('carrierId', 'is not', null)
      .where('inAt', '<', w.end)
      .where((eb) => eb.or([eb('outAt', 'is', null), eb('outAt', '>', w.start)]))
      .execute();
    for (const r of visits) if (r.carrierId) ids.add(r.carrierId);
    const checkIns = await this.db
      .selectFrom('movement')
      .select('carrierId')
      .distinct()
      .where('yardId', '=', yardId)
      .where('at', '>=', w.start)
      .where('at', '<', w.end)
      .where('direction', '=', 'in')
      .where('carrierId', 'is not', null)
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
    // Begun in the window (visit_carrier: yard, carrier, in_at) ...
    const begun = await base().where('v.inAt', '>=', w.start).where('v.inAt', '<', w.end).execute();
    // ... or begun before it and not gone by its start (visit_carrier_out: yard, carrier, out_at).
    const carried = await base()
      .where((eb) => eb.or([eb('v.outAt', 'is', null), eb('v.outAt', '>', w.start)]))
      .where('v.inAt', '<', w.start)
      .execute();
    const rows = [...carried, ...begun];
    const linked = await this.linkedAttachments(yardId, carrierId, w);
    return rows.map((r) => {
      const attachmentIds = new Set<string>([
        ...parseIds(r.inAttachments),
        ...parseIds(r.outAttachments),
        ...(linked.get(r.inMovementId) ?? []),
        ...(r.outMovementId ? (linked.get(r.outMovementId) ?? []) : []),
      ]);
      return {
        trailerId: r.trailerId ?? '',
        ...(r.trailerNumber ? { trailerNumber: r.trailerNumber } : {}),
        inAt: r.inAt,
        outAt: r.outAt,
        inMovementId: r.inMovementId,
        outMovementId: r.outMovementId,
        attachmentIds: [...attachmentIds].sort(),
      };
    });
  }

  /**
   * Attachments uploaded later against one of the carrier's movements (refType 'movement'), besides
   * the ones the movement lists itself. Read for the carrier's movements near the window: any movement
   * of a visit in the window is either in it or is the in-movement of a visit that began before it.
   */
  private async linkedAttachments(
    yardId: string,
    carrierId: string,
    w: Window,
  ): Promise<Map<string, string[]>> {
    const rows = await this.db
      .selectFrom('attachment as a')
      .innerJoin('movement as m', 'm.id', 'a.refId')
      .select(['a.id', 'a.refId'])
      .where('a.refType', '=', 'movement')
      .where('m.yardId', '=', yardId)
      .where('m.carrierId', '=', carrierId)
      .where('m.at', '<', w.end)
      .execute();
    const byMovement = new Map<string, string[]>();
    for (const r of rows) {
      if (!r.refId) continue;
      const list = byMovement.get(r.refId) ?? [];
      list.push(r.id);
      byMovement.set(r.refId, list);
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

  /** The carrier's gate check-ins of trailers with `at` in the window. */
  async checkIns(yardId: string, carrierId: string, w: Window): Promise<number> {
    const row = await this.db
      .selectFrom('movement')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('carrierId', '=', carrierId)
      .where('at', '>=', w.start)
      .where('at', '<', w.end)
      .where('yardId', '=', yardId)
      .where('direction', '=', 'in')
      .where('trailerId', 'is not', null)
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
    const [visits, moves, checkIns, adjustments] = await Promise.all([
      this.visits(yardId, carrierId, w),
      this.moves(yardId, carrierId, w),
      this.checkIns(yardId, carrierId, w),
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
        adjustments,
      },
      counts: { visits: visits.length, moves, checkIns, adjustments: adjustments.length },
    };
  }
}

function parseIds(json: string | null): string[] {
  if (!json) return [];
  try {
    const ids = JSON.parse(json) as unknown;
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** What a computation was made from, beside its result (stored with summaries and invoices). */
export interface Calculation {
  result: BillingResult;
  counts: InputCounts;
  currency: string;
  yardConfig: YardConfigRow;
  carrierConfig: CarrierConfigRow | null;
}

/**
 * Runs the pure computation for one yard, carrier and period at `now`: resolves the rates (the
 * carrier config's, else the yard's), gathers the inputs over the window and computes. The one path
 * from stored activity to money, used by summaries, invoices and the overage table.
 */
export class BillingCalculator {
  constructor(readonly inputs: BillingInputs) {}

  async calculate(args: {
    yard: { id: string; timeZone: string };
    carrierId: string;
    period: string;
    now: number;
    yardConfig: YardConfigRow;
  }): Promise<Calculation> {
    const { yard, carrierId, period, now, yardConfig } = args;
    const carrierConfig = (await this.inputs.carrierConfig(yard.id, carrierId)) ?? null;
    const rates = resolveRates(yardConfig, carrierConfig);
    const window = periodWindow(period, yard.timeZone, now);
    const { input, counts } = await this.inputs.gather({
      yardId: yard.id,
      carrierId,
      period,
      timeZone: yard.timeZone,
      now,
      window,
      rates,
      yardConfig,
    });
    return {
      result: computeBilling(input),
      counts,
      currency: yardConfig.currency,
      yardConfig,
      carrierConfig,
    };
  }
}

/** Whether a computation charges anything at all (every line 0: nothing to invoice). */
export function hasCharges(result: BillingResult): boolean {
  return Object.values(result.lines).some((line) => line.amount !== 0);
}
