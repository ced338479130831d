import type { Selectable } from 'kysely';
import type { Principal } from '../../../auth/principal.js';
import { assertCanSeeYard, canSeeYard } from '../../../auth/principal.js';
import { toIso } from '../../../clock.js';
import type { CoreParts } from '../../../core-parts.js';
import type { YardTable } from '../../../db/tables.js';
import { pageInMemory } from '../../../http/cursor.js';
import { BadRequestError, ConflictError } from '../../../http/errors.js';
import { newId } from '../../../ids.js';
import { type BillingCalculator, type Calculation, hasCharges } from '../calculator.js';
import { currentPeriod, isPast, periodWindow, previousPeriod } from '../compute/index.js';
import type { BillingResult } from '../compute/types.js';
import type { BillingReads, InputCounts, YardConfigRow } from '../inputs.js';
import { SummaryRepo, type SummaryRow } from './repo.js';
import type { SummaryOutT } from './schema.js';

type YardRow = Selectable<YardTable>;

export type SummaryDeps = Pick<CoreParts, 'kysely' | 'clock'> &
  BillingReads & { calculator: BillingCalculator };

/** What is stored in `content` of a summary (and, with more, of an invoice). */
export interface StoredComputation {
  result: BillingResult;
  counts: InputCounts;
}

/**
 * Billing summaries: the computation for the ongoing period (or a past one) stored per yard, carrier
 * and period, replaced on each generation; their aggregate; and the past periods still to invoice.
 */
export class SummaryService {
  private readonly repo: SummaryRepo;

  constructor(private readonly deps: SummaryDeps) {
    this.repo = new SummaryRepo(deps.kysely);
  }

  /** POST /summary/generate: the ongoing period of one yard, for one carrier or every carrier. */
  async generate(principal: Principal, input: { yardId: string; carrierId?: string | undefined }) {
    const { yard, config } = await this.configuredYard(principal, input.yardId);
    if (input.carrierId) await this.deps.carriers.getRow(input.carrierId);
    const period = currentPeriod(yard.timeZone, this.deps.clock.now());
    return { items: await this.generateFor(yard, config, period, input.carrierId) };
  }

  /** POST /summary/generate-all: the ongoing period of every yard with a billing config in scope. */
  async generateAll(principal: Principal) {
    const items: SummaryOutT[] = [];
    for (const config of await this.deps.calculator.inputs.yardConfigs()) {
      if (!canSeeYard(principal, config.yardId)) continue;
      const yard = await this.deps.yards.getRow(config.yardId);
      const period = currentPeriod(yard.timeZone, this.deps.clock.now());
      items.push(...(await this.generateFor(yard, config, period)));
    }
    return { items };
  }

  /** POST /summary/generate-past: a period that has ended, for one yard (and carrier) or all. */
  async generatePast(
    principal: Principal,
    input: { period: string; yardId?: string | undefined; carrierId?: string | undefined },
  ) {
    if (input.carrierId && !input.yardId) {
      throw new BadRequestError('carrier-needs-yard', 'Name the yard (yardId) of the carrier.');
    }
    const targets: Array<{ yard: YardRow; config: YardConfigRow }> = [];
    if (input.yardId) targets.push(await this.configuredYard(principal, input.yardId));
    else {
      for (const config of await this.deps.calculator.inputs.yardConfigs()) {
        if (canSeeYard(principal, config.yardId)) {
          targets.push({ yard: await this.deps.yards.getRow(config.yardId), config });
        }
      }
    }
    if (input.carrierId) await this.deps.carriers.getRow(input.carrierId);
    const now = this.deps.clock.now();
    for (const t of targets) assertPastPeriod(input.period, t.yard, now);
    const items: SummaryOutT[] = [];
    for (const t of targets)
      items.push(...(await this.generateFor(t.yard, t.config, input.period, input.carrierId)));
    return { items };
  }

  /** GET /summary: the stored summaries of a period, with their sums per currency. */
  async aggregate(
    principal: Principal,
    query: {
      period: string;
      yardIds?: string[] | undefined;
      carrierIds?: string[] | undefined;
      limit: number;
      cursor?: string | undefined;
    },
  ) {
    for (const yardId of query.yardIds ?? []) assertCanSeeYard(principal, yardId);
    const rows = await this.repo.list({
      period: query.period,
      yardIds: query.yardIds ?? principal.yardIds,
      carrierIds: query.carrierIds ?? null,
    });
    const items = rows.map(summaryOut);
    const totals = new Map<
      string,
      { currency: string; subtotal: number; tax: number; total: number; count: number }
    >();
    for (const s of items) {
      const t = totals.get(s.currency) ?? { currency: s.currency, subtotal: 0, tax: 0, total: 0, count: 0 };
      t.subtotal += s.subtotal;
      t.tax += s.tax;
      t.total += s.total;
      t.count += 1;
      totals.set(s.currency, t);
    }
    // The totals are over every summary that matches; the items are paged.
    return {
      period: query.period,
      ...pageInMemory(items, query, (x) => [x.yardId, x.carrierId]),
      totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
    };
  }

  /**
   * GET /summary/to-be-completed: per yard with a billing config, the last `months` past periods
   * (not before the config was created) and the carriers that would be charged something in them
   * but have no invoice (draft or issued).
   */
  async toBeCompleted(
    principal: Principal,
    query: { yardId?: string | undefined; months: number; limit: number; cursor?: string | undefined },
  ) {
    const configs = query.yardId
      ? [(await this.configuredYard(principal, query.yardId)).config]
      : (await this.deps.calculator.inputs.yardConfigs()).filter((c) => canSeeYard(principal, c.yardId));
    const now = this.deps.clock.now();
    const items = [];
    for (const config of configs) {
      const yard = await this.deps.yards.getRow(config.yardId);
      let period = previousPeriod(yard.timeZone, now);
      for (let i = 0; i < query.months; i++, period = periodBefore(period)) {
        const window = periodWindow(period, yard.timeZone, now);
        // Billing began with the yard's config: earlier periods are not owed (nor listed).
        if (window.end <= config.createdAt) break;
        const invoiced = new Set(await this.repo.invoicedCarriers(yard.id, period));
        for (const carrierId of await this.deps.calculator.inputs.carriersOf(yard.id, window)) {
          if (invoiced.has(carrierId)) continue;
          const calc = await this.deps.calculator.calculate({
            yard,
            carrierId,
            period,
            now,
            yardConfig: config,
          });
          if (!hasCharges(calc.result)) continue;
          items.push({
            yardId: yard.id,
            carrierId,
            period,
            currency: calc.currency,
            total: calc.result.total,
          });
        }
      }
    }
    return pageInMemory(items, query, (x) => [x.period, x.yardId, x.carrierId]);
  }

  /** The yard (404), in scope (403), with a billing config (409 `billing-not-configured`). */
  async configuredYard(
    principal: Principal,
    yardId: string,
  ): Promise<{ yard: YardRow; config: YardConfigRow }> {
    const yard = await this.deps.yards.getRow(yardId);
    assertCanSeeYard(principal, yardId);
    const config = await this.deps.calculator.inputs.yardConfig(yardId);
    if (!config) {
      throw new ConflictError(
        'billing-not-configured',
        `Yard ${yard.code} has no billing config: create one (POST /api/billing/config) first.`,
        { yardId },
      );
    }
    return { yard, config };
  }

  private async generateFor(yard: YardRow, config: YardConfigRow, period: string, carrierId?: string) {
    const now = this.deps.clock.now();
    const carrierIds = carrierId
      ? [carrierId]
      : await this.deps.calculator.inputs.carriersOf(yard.id, periodWindow(period, yard.timeZone, now));
    const items: SummaryOutT[] = [];
    for (const id of carrierIds) {
      const calc = await this.deps.calculator.calculate({
        yard,
        carrierId: id,
        period,
        now,
        yardConfig: config,
      });
      const row = await this.repo.upsert({
        id: newId(),
        yardId: yard.id,
        carrierId: id,
        period,
        currency: calc.currency,
        subtotal: calc.result.subtotal,
        tax: calc.result.tax,
        total: calc.result.total,
        content: JSON.stringify(stored(calc)),
        generatedAt: now,
        createdAt: now,
        updatedAt: now,
      });
      items.push(summaryOut(row));
    }
    return items;
  }
}

/** 400 `period-not-past` unless the period has ended in the yard's time zone. */
export function assertPastPeriod(
  period: string,
  yard: Pick<YardRow, 'code' | 'timeZone'>,
  now: number,
): void {
  if (isPast(period, yard.timeZone, now)) return;
  throw new BadRequestError(
    'period-not-past',
    `Period ${period} has not ended yet in yard ${yard.code} (${yard.timeZone}); only a past period can be invoiced.`,
  );
}

export function stored(calc: Calculation): StoredComputation {
  return { result: calc.result, counts: calc.counts };
}

/** The computation's fields of the API (summary and invoice alike), times as ISO strings. */
export function computationOut(
  c: StoredComputation,
  row: { yardId: string; carrierId: string; currency: string; generatedAt: number },
) {
  const r = c.result;
  return {
    yardId: row.yardId,
    carrierId: row.carrierId,
    period: r.period,
    currency: row.currency,
    timeZone: r.timeZone,
    window: { start: toIso(r.window.start), end: toIso(r.window.end) },
    // Computations stored before the appointment fees (migration 0017) had none: 0.
    rates: { ...r.rates, lateFee: r.rates.lateFee ?? 0, noShowFee: r.rates.noShowFee ?? 0 },
    graceMinutes: r.graceMinutes,
    taxRateBp: r.taxRateBp,
    counts: { ...c.counts, lateArrivals: c.counts.lateArrivals ?? 0, noShows: c.counts.noShows ?? 0 },
    lines: {
      ...r.lines,
      late: r.lines.late ?? { quantity: 0, unitAmount: r.rates.lateFee ?? 0, amount: 0 },
      noShow: r.lines.noShow ?? { quantity: 0, unitAmount: r.rates.noShowFee ?? 0, amount: 0 },
    },
    days: r.days,
    subtotal: r.subtotal,
    tax: r.tax,
    total: r.total,
    generatedAt: toIso(row.generatedAt),
  };
}

export function summaryOut(row: SummaryRow): SummaryOutT {
  return { id: row.id, ...computationOut(JSON.parse(row.content) as StoredComputation, row) };
}

/** The month before `YYYY-MM`. */
function periodBefore(period: string): string {
  const year = Number(period.slice(0, 4));
  const month = Number(period.slice(5, 7));
  return month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
}
