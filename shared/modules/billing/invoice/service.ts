import type { Selectable } from 'kysely';
import type { Principal } from '../../../auth/principal.js';
import { assertCanSeeYard, canSeeYard, yardFilter } from '../../../auth/principal.js';
import { toIso } from '../../../clock.js';
import type { CoreParts } from '../../../core-parts.js';
import { isUniqueViolation } from '../../../db/sql-helpers.js';
import type { CarrierTable, InvoiceStatus, YardTable } from '../../../db/tables.js';
import { decodeCursor, toPage } from '../../../http/cursor.js';
import { ConflictError, InvalidTransitionError, NotFoundError } from '../../../http/errors.js';
import { newId } from '../../../ids.js';
import { periodWindow, previousPeriod } from '../compute/index.js';
import {
  type BillingCalculator,
  type BillingReads,
  type Calculation,
  hasCharges,
  type YardConfigRow,
} from '../inputs.js';
import { assertBillingHere } from '../place.js';
import {
  assertPastPeriod,
  computationOut,
  type StoredComputation,
  type SummaryService,
  stored,
} from '../summary/service.js';
import { invoiceNumber } from './number.js';
import { InvoiceRepo, type InvoiceRow } from './repo.js';
import type { InvoiceOutT, InvoiceSummaryOutT } from './schema.js';
import type { SiteSyncCheck, WaitingYard } from './waiting.js';

type YardRow = Selectable<YardTable>;
type CarrierRow = Selectable<CarrierTable>;

export type InvoiceDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> &
  BillingReads & {
    calculator: BillingCalculator;
    summaries: Pick<SummaryService, 'configuredYard'>;
    /** At the cloud: which yards wait for their site (null at a standalone edge: nothing waits). */
    siteSync: SiteSyncCheck | null;
  };

export interface InvoiceKey {
  yardId: string;
  carrierId: string;
  period: string;
}

/** What an invoice's `content` holds: the computation and the parties and terms it was made with. */
interface InvoiceContent extends StoredComputation {
  issuer: { name: string | null; address: string | null; taxId: string | null };
  billTo: {
    carrierId: string;
    name: string | null;
    address: string | null;
    email: string | null;
    taxId: string | null;
    scac: string | null;
  };
  paymentTermsDays: number;
}

/**
 * Invoices (docs/domain.md "Billing"): the computation of a past period frozen with its number,
 * parties and terms. draft --issue--> issued --void(reason)--> void. A draft can be replaced
 * (recomputed, same number) or deleted; an issued invoice cannot (409 `invoice-issued`): void it and
 * generate again, which numbers the new one `-2`, `-3`, ...
 */
export class InvoiceService {
  private readonly repo: InvoiceRepo;

  constructor(private readonly deps: InvoiceDeps) {
    this.repo = new InvoiceRepo(deps.kysely);
  }

  /** POST /invoice: 409 `invoice-exists` when the period has an invoice that is not void. */
  async generate(
    principal: Principal,
    input: InvoiceKey & { force?: boolean | undefined },
    by: string | null,
  ) {
    const ctx = await this.prepare(principal, input);
    const live = await this.repo.live(input.yardId, input.carrierId, input.period);
    if (live) throw invoiceExists(live);
    await this.assertSynced(ctx.yard, input.period, input.force);
    return invoiceOut(await this.create(ctx, input.period, by));
  }

  /** PUT /invoice/{key}: recomputes the draft (same id and number), or generates one when none. */
  async replace(principal: Principal, key: InvoiceKey, force: boolean | undefined, by: string | null) {
    const ctx = await this.prepare(principal, key);
    const live = await this.repo.live(key.yardId, key.carrierId, key.period);
    if (live?.status === 'issued') throw invoiceIssued(live);
    await this.assertSynced(ctx.yard, key.period, force);
    if (!live) return invoiceOut(await this.create(ctx, key.period, by));
    const calc = await this.calculate(ctx, key.period);
    const now = this.deps.clock.now();
    const row = await this.repo.updateIf(live.id, 'draft', {
      ...totals(calc),
      content: JSON.stringify(content(calc, ctx.carrier)),
      generatedAt: now,
      updatedAt: now,
    });
    if (!row) throw invoiceIssued(live);
    return invoiceOut(row);
  }

  /** GET /invoice/{key}: the invoice that is not void, else the newest void one. */
  async getByKey(principal: Principal, key: InvoiceKey): Promise<InvoiceOutT> {
    assertBillingHere(this.deps.changes);
    await this.deps.yards.getRow(key.yardId);
    assertCanSeeYard(principal, key.yardId);
    await this.deps.carriers.getRow(key.carrierId);
    const row =
      (await this.repo.live(key.yardId, key.carrierId, key.period)) ??
      (await this.repo.latest(key.yardId, key.carrierId, key.period));
    if (!row)
      throw new NotFoundError('Invoice', `${key.period} of carrier ${key.carrierId} in yard ${key.yardId}`);
    return invoiceOut(row);
  }

  async deleteByKey(principal: Principal, key: InvoiceKey): Promise<void> {
    assertBillingHere(this.deps.changes);
    await this.deps.yards.getRow(key.yardId);
    assertCanSeeYard(principal, key.yardId);
    await this.deps.carriers.getRow(key.carrierId);
    const row =
      (await this.repo.live(key.yardId, key.carrierId, key.period)) ??
      (await this.repo.latest(key.yardId, key.carrierId, key.period));
    if (!row)
      throw new NotFoundError('Invoice', `${key.period} of carrier ${key.carrierId} in yard ${key.yardId}`);
    await this.deleteRow(row);
  }

  /** GET /invoice/{id}: one invoice in any status (the issue asks for it beside the key). */
  async getById(principal: Principal, id: string): Promise<InvoiceOutT> {
    return invoiceOut(await this.visible(principal, id));
  }

  async deleteById(principal: Principal, id: string): Promise<void> {
    await this.deleteRow(await this.visible(principal, id));
  }

  /** POST /invoice/{id}/issue: a draft becomes immutable. */
  async issue(principal: Principal, id: string): Promise<InvoiceOutT> {
    const row = await this.visible(principal, id);
    if (row.status !== 'draft') {
      throw new InvalidTransitionError(
        row.status,
        'issued',
        `Invoice ${row.number} is ${row.status}: only a draft can be issued.`,
      );
    }
    const now = this.deps.clock.now();
    const issued = await this.repo.updateIf(id, 'draft', { status: 'issued', issuedAt: now, updatedAt: now });
    if (!issued)
      throw new InvalidTransitionError('issued', 'issued', `Invoice ${row.number} was changed meanwhile.`);
    return invoiceOut(issued);
  }

  /** POST /invoice/{id}/void: an issued invoice is voided with a reason; the period can be invoiced again. */
  async void(principal: Principal, id: string, reason: string): Promise<InvoiceOutT> {
    const row = await this.visible(principal, id);
    if (row.status !== 'issued') {
      throw new InvalidTransitionError(
        row.status,
        'void',
        row.status === 'draft'
          ? `Invoice ${row.number} is a draft: delete it (or replace it) instead of voiding it.`
          : `Invoice ${row.number} is already void.`,
      );
    }
    const now = this.deps.clock.now();
    const voided = await this.repo.updateIf(id, 'issued', {
      status: 'void',
      voidedAt: now,
      voidReason: reason,
      updatedAt: now,
    });
    if (!voided)
      throw new InvalidTransitionError('void', 'void', `Invoice ${row.number} was changed meanwhile.`);
    return invoiceOut(voided);
  }

  async list(principal: Principal, query: ListQuery) {
    const rows = await this.page(principal, query);
    return toPage(rows, query.limit, invoiceOut, (r) => [r.id]);
  }

  async summaries(principal: Principal, query: ListQuery) {
    const rows = await this.page(principal, query);
    return toPage(rows, query.limit, invoiceSummaryOut, (r) => [r.id]);
  }

  /** GET /invoice/overage: the per-day table of the period's invoice, or computed now when it has none. */
  async overage(principal: Principal, key: InvoiceKey) {
    assertBillingHere(this.deps.changes);
    const { yard, config } = await this.deps.summaries.configuredYard(principal, key.yardId);
    await this.deps.carriers.getRow(key.carrierId);
    const live = await this.repo.live(key.yardId, key.carrierId, key.period);
    const frozen = live ? (JSON.parse(live.content) as InvoiceContent) : null;
    const result =
      frozen?.result ??
      (
        await this.deps.calculator.calculate({
          yard,
          carrierId: key.carrierId,
          period: key.period,
          now: this.deps.clock.now(),
          yardConfig: config,
        })
      ).result;
    return {
      yardId: key.yardId,
      carrierId: key.carrierId,
      period: key.period,
      currency: live?.currency ?? config.currency,
      source: live ? ('invoice' as const) : ('computed' as const),
      invoiceId: live?.id ?? null,
      overageDailyRate: result.rates.overageDailyRate,
      days: result.days,
      total: result.lines.overage.amount,
    };
  }

  /**
   * POST /invoice/generate-all: drafts for the previous period of every yard with a billing config
   * (in scope). Skips carriers with an invoice (draft or issued) and those charged nothing; at the
   * cloud, a yard whose site has not synced past the period's end is listed as waiting. Safe to repeat.
   */
  async generateAll(principal: Principal, by: string | null, force = false) {
    assertBillingHere(this.deps.changes);
    const created: InvoiceSummaryOutT[] = [];
    const skipped: Array<InvoiceKey & { reason: 'exists' | 'no-charges' }> = [];
    const waiting: Array<WaitingYard & { period: string }> = [];
    const now = this.deps.clock.now();
    for (const config of await this.deps.calculator.inputs.yardConfigs()) {
      if (!canSeeYard(principal, config.yardId)) continue;
      const yard = await this.deps.yards.getRow(config.yardId);
      const period = previousPeriod(yard.timeZone, now);
      // With force ("generate anyway") a waiting yard is invoiced from what the cloud has now.
      const wait = force ? null : await this.waitingFor(yard);
      if (wait) {
        waiting.push({ ...wait, period });
        continue;
      }
      const carrierIds = await this.deps.calculator.inputs.carriersOf(
        yard.id,
        periodWindow(period, yard.timeZone, now),
      );
      for (const carrierId of carrierIds) {
        const key = { yardId: yard.id, carrierId, period };
        if (await this.repo.live(yard.id, carrierId, period)) {
          skipped.push({ ...key, reason: 'exists' });
          continue;
        }
        const carrier = await this.deps.carriers.getRow(carrierId);
        const ctx = { yard, config, carrier };
        const calc = await this.calculate(ctx, period);
        if (!hasCharges(calc.result)) {
          skipped.push({ ...key, reason: 'no-charges' });
          continue;
        }
        try {
          created.push(invoiceSummaryOut(await this.insert(ctx, period, calc, by)));
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
          skipped.push({ ...key, reason: 'exists' }); // generated meanwhile by another request
        }
      }
    }
    return { created, skipped, waiting };
  }

  private async page(principal: Principal, query: ListQuery): Promise<InvoiceRow[]> {
    assertBillingHere(this.deps.changes);
    const afterId = query.cursor ? String(decodeCursor(query.cursor, 1)[0]) : undefined;
    return this.repo.list({
      limit: query.limit,
      afterId,
      yardIds: yardFilter(principal, query.yardId),
      carrierId: query.carrierId,
      period: query.period,
      status: query.status,
    });
  }

  /** Checks in the order a caller fixes them: where billing lives, yard, scope, config, carrier, period. */
  private async prepare(principal: Principal, key: InvoiceKey): Promise<Context> {
    assertBillingHere(this.deps.changes);
    const { yard, config } = await this.deps.summaries.configuredYard(principal, key.yardId);
    const carrier = await this.deps.carriers.getRow(key.carrierId);
    assertPastPeriod(key.period, yard, this.deps.clock.now());
    return { yard, config, carrier };
  }

  private async assertSynced(yard: YardRow, period: string, force: boolean | undefined): Promise<void> {
    if (force) return;
    const wait = await this.waitingFor(yard);
    if (!wait) return;
    throw new ConflictError(
      'site-not-synced',
      `${wait.message} The month ${period} may be incomplete here: wait for the site, or generate anyway.`,
      { siteId: wait.siteId, reason: wait.reason },
    );
  }

  /** Only past periods are invoiced, so a site in step now has synced past the period's end. */
  private async waitingFor(yard: YardRow): Promise<WaitingYard | null> {
    if (!this.deps.siteSync) return null;
    return this.deps.siteSync.waiting(yard);
  }

  private calculate(ctx: Context, period: string): Promise<Calculation> {
    return this.deps.calculator.calculate({
      yard: ctx.yard,
      carrierId: ctx.carrier.id,
      period,
      now: this.deps.clock.now(),
      yardConfig: ctx.config,
    });
  }

  private async create(ctx: Context, period: string, by: string | null): Promise<InvoiceRow> {
    const calc = await this.calculate(ctx, period);
    try {
      return await this.insert(ctx, period, calc, by);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const live = await this.repo.live(ctx.yard.id, ctx.carrier.id, period);
      throw live ? invoiceExists(live) : err;
    }
  }

  private async insert(
    ctx: Context,
    period: string,
    calc: Calculation,
    by: string | null,
  ): Promise<InvoiceRow> {
    const sequence = await this.repo.nextSequence(ctx.yard.id, ctx.carrier.id, period);
    const number = invoiceNumber(ctx.yard.code, period, ctx.carrier, sequence);
    const now = this.deps.clock.now();
    return this.repo.insert({
      id: newId(),
      number,
      exportNumber: await this.repo.freeExportNumber(number, period),
      yardId: ctx.yard.id,
      carrierId: ctx.carrier.id,
      period,
      sequence,
      status: 'draft',
      ...totals(calc),
      content: JSON.stringify(content(calc, ctx.carrier)),
      generatedAt: now,
      issuedAt: null,
      voidedAt: null,
      voidReason: null,
      createdBy: by,
      createdAt: now,
      updatedAt: now,
    });
  }

  private async visible(principal: Principal, id: string): Promise<InvoiceRow> {
    assertBillingHere(this.deps.changes);
    const row = await this.repo.byId(id);
    if (!row || !canSeeYard(principal, row.yardId)) throw new NotFoundError('Invoice', id);
    return row;
  }

  private async deleteRow(row: InvoiceRow): Promise<void> {
    if (row.status === 'issued') throw invoiceIssued(row);
    if (row.status === 'void') {
      throw new ConflictError('invoice-void', `Invoice ${row.number} is void and kept for the record.`, {
        invoiceId: row.id,
      });
    }
    if (!(await this.repo.deleteDraft(row.id))) throw invoiceIssued(row);
  }
}

interface Context {
  yard: YardRow;
  config: YardConfigRow;
  carrier: CarrierRow;
}

interface ListQuery {
  limit: number;
  cursor?: string | undefined;
  yardId?: string | undefined;
  carrierId?: string | undefined;
  period?: string | undefined;
  status?: InvoiceStatus | undefined;
}

function totals(calc: Calculation) {
  return {
    currency: calc.currency,
    subtotal: calc.result.subtotal,
    tax: calc.result.tax,
    total: calc.result.total,
  };
}

function content(calc: Calculation, carrier: CarrierRow): InvoiceContent {
  const yc = calc.yardConfig;
  const cc = calc.carrierConfig;
  const contact = carrier.contact ? (JSON.parse(carrier.contact) as { email?: string }) : null;
  return {
    ...stored(calc),
    issuer: { name: yc.issuerName, address: yc.issuerAddress, taxId: yc.issuerTaxId },
    billTo: {
      carrierId: carrier.id,
      name: cc?.billToName ?? carrier.name,
      address: cc?.billToAddress ?? null,
      email: cc?.billToEmail ?? contact?.email ?? null,
      taxId: cc?.billToTaxId ?? null,
      scac: carrier.scac,
    },
    paymentTermsDays: yc.paymentTermsDays,
  };
}

function invoiceExists(live: InvoiceRow): ConflictError {
  return new ConflictError(
    'invoice-exists',
    `Invoice ${live.number} (${live.status}) already exists for this yard, carrier and month.`,
    { invoiceId: live.id, number: live.number, invoiceStatus: live.status },
  );
}

function invoiceIssued(row: InvoiceRow): ConflictError {
  return new ConflictError(
    'invoice-issued',
    `Invoice ${row.number} is issued and cannot change: void it, then generate the period again.`,
    { invoiceId: row.id, number: row.number },
  );
}

export function invoiceSummaryOut(row: InvoiceRow): InvoiceSummaryOutT {
  return {
    id: row.id,
    number: row.number,
    exportNumber: row.exportNumber ?? row.number,
    sequence: row.sequence,
    status: row.status,
    issuedAt: row.issuedAt === null ? null : toIso(row.issuedAt),
    voidedAt: row.voidedAt === null ? null : toIso(row.voidedAt),
    voidReason: row.voidReason,
    yardId: row.yardId,
    carrierId: row.carrierId,
    period: row.period,
    currency: row.currency,
    subtotal: row.subtotal,
    tax: row.tax,
    total: row.total,
    generatedAt: toIso(row.generatedAt),
  };
}

export function invoiceOut(row: InvoiceRow): InvoiceOutT {
  const c = JSON.parse(row.content) as InvoiceContent;
  return {
    ...invoiceSummaryOut(row),
    ...computationOut(c, row),
    annex: c.result.annex.map((v) => ({
      trailerId: v.trailerId,
      trailerNumber: v.trailerNumber ?? null,
      inAt: toIso(v.inAt),
      outAt: v.outAt === null ? null : toIso(v.outAt),
      daysPresent: v.daysPresent,
      inMovementId: v.inMovementId,
      outMovementId: v.outMovementId,
      attachmentIds: v.attachmentIds,
    })),
    issuer: c.issuer,
    billTo: c.billTo,
    paymentTermsDays: c.paymentTermsDays,
    createdBy: row.createdBy,
  };
}
