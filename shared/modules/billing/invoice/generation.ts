import type { Selectable } from 'kysely';
import type { Principal } from '../../../auth/principal.js';
import { canSeeYard } from '../../../auth/principal.js';
import type { CoreParts } from '../../../core-parts.js';
import { isUniqueViolation } from '../../../db/sql-helpers.js';
import type { CarrierTable, YardTable } from '../../../db/tables.js';
import { ConflictError } from '../../../http/errors.js';
import { newId } from '../../../ids.js';
import {
  type BillingCalculator,
  type Calculation,
  type CalculationKey,
  compute,
  hasCharges,
} from '../calculator.js';
import { periodWindow, previousPeriod } from '../compute/index.js';
import type { BillingReads, YardConfigRow } from '../inputs.js';
import { assertPastPeriod, type SummaryService, stored } from '../summary/service.js';
import { invoiceNumber } from './number.js';
import { type InvoiceContent, type InvoiceKey, invoiceIssued, invoiceOut, invoiceSummaryOut } from './out.js';
import { InvoiceRepo, type InvoiceRow } from './repo.js';
import type { InvoiceSummaryOutT } from './schema.js';
import type { SiteWait, WaitingYard } from './waiting.js';

type YardRow = Selectable<YardTable>;
type CarrierRow = Selectable<CarrierTable>;

export type InvoiceGenerationDeps = Pick<CoreParts, 'kysely' | 'clock'> &
  BillingReads & {
    calculator: Pick<BillingCalculator, 'gather' | 'inputs'>;
    summaries: Pick<SummaryService, 'configuredYard'>;
    /** Which yards wait for their site (waiting.ts): the cloud's check; none at a standalone edge. */
    siteWait: SiteWait;
  };

/** What one draft is made for, once validated: the yard and its config, the carrier, the period. */
interface Target {
  yard: YardRow;
  config: YardConfigRow;
  carrier: CarrierRow;
  period: string;
  /** The period's invoice that is not void, if any: a draft that a replace recomputes. */
  live: InvoiceRow | undefined;
}

/**
 * Invoice generation (docs/architecture.md "Invoice generation"): a draft of a past period for a
 * yard and carrier, frozen with its number, parties and terms. Each way in takes the same steps once,
 * in order: validate -> gather inputs -> compute -> store -> publish (the answer). Billing records
 * are local to the node: nothing goes to the bus or to sync.
 */
export class InvoiceGeneration {
  private readonly repo: InvoiceRepo;

  constructor(private readonly deps: InvoiceGenerationDeps) {
    this.repo = new InvoiceRepo(deps.kysely);
  }

  /** POST /invoice: 409 `invoice-exists` when the period has an invoice that is not void. */
  async generate(
    principal: Principal,
    input: InvoiceKey & { force?: boolean | undefined },
    by: string | null,
  ) {
    const target = await this.validate(principal, input, input.force, (live) => {
      if (live) throw invoiceExists(live);
    });
    const gathered = await this.deps.calculator.gather(this.calculationKey(target));
    const calc = compute(gathered);
    const row = await this.store(target, calc, by);
    return invoiceOut(row);
  }

  /** PUT /invoice/{key}: recomputes the draft (same id and number), or generates one when none. */
  async replace(principal: Principal, key: InvoiceKey, force: boolean | undefined, by: string | null) {
    const target = await this.validate(principal, key, force, (live) => {
      if (live?.status === 'issued') throw invoiceIssued(live);
    });
    const gathered = await this.deps.calculator.gather(this.calculationKey(target));
    const calc = compute(gathered);
    const row = await this.store(target, calc, by); // the live draft in place, else a new one
    return invoiceOut(row);
  }

  /**
   * POST /invoice/generate-all: drafts for the previous period of every yard with a billing config
   * (in scope). Skips carriers with an invoice (draft or issued) and those charged nothing; a yard
   * whose site has not synced past the period's end is listed as waiting. Safe to repeat.
   */
  async generateAll(principal: Principal, by: string | null, force = false) {
    const created: InvoiceSummaryOutT[] = [];
    const skipped: Array<InvoiceKey & { reason: 'exists' | 'no-charges' }> = [];
    const waiting: Array<WaitingYard & { period: string }> = [];
    const now = this.deps.clock.now();
    for (const config of await this.deps.calculator.inputs.yardConfigs()) {
      if (!canSeeYard(principal, config.yardId)) continue;
      const yard = await this.deps.yards.getRow(config.yardId);
      const period = previousPeriod(yard.timeZone, now);
      // Validate: the yard's site; with force ("generate anyway") a waiting yard is invoiced from what is here now.
      const wait = force ? null : await this.deps.siteWait.waiting(yard);
      if (wait) {
        waiting.push({ ...wait, period });
        continue;
      }
      const window = periodWindow(period, yard.timeZone, now);
      for (const carrierId of await this.deps.calculator.inputs.carriersOf(yard.id, window)) {
        const key = { yardId: yard.id, carrierId, period };
        // Validate: no invoice yet (the yard, scope and site are checked above).
        if (await this.repo.live(yard.id, carrierId, period)) {
          skipped.push({ ...key, reason: 'exists' });
          continue;
        }
        const carrier = await this.deps.carriers.getRow(carrierId);
        const target = { yard, config, carrier, period, live: undefined };
        const gathered = await this.deps.calculator.gather(this.calculationKey(target));
        const calc = compute(gathered);
        if (!hasCharges(calc.result)) {
          skipped.push({ ...key, reason: 'no-charges' });
          continue;
        }
        // Store (a new draft), publish (listed as created); one made meanwhile by another request is skipped.
        try {
          created.push(invoiceSummaryOut(await this.insert(target, calc, by)));
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
          skipped.push({ ...key, reason: 'exists' });
        }
      }
    }
    return { created, skipped, waiting };
  }

  /**
   * Validate, in the order a caller fixes: the yard (404), in scope (403), with a billing config (409
   * `billing-not-configured`), the carrier (404), a past period (400 `period-not-past`); then the
   * period's live invoice by the caller's rule; then the yard's site (409 `site-not-synced` unless
   * forced).
   */
  private async validate(
    principal: Principal,
    key: InvoiceKey,
    force: boolean | undefined,
    liveRule: (live: InvoiceRow | undefined) => void,
  ): Promise<Target> {
    const { yard, config } = await this.deps.summaries.configuredYard(principal, key.yardId);
    const carrier = await this.deps.carriers.getRow(key.carrierId);
    assertPastPeriod(key.period, yard, this.deps.clock.now());
    const live = await this.repo.live(key.yardId, key.carrierId, key.period);
    liveRule(live);
    // Only past periods are invoiced, so a site in step now has synced past the period's end.
    const wait = force ? null : await this.deps.siteWait.waiting(yard);
    if (wait) {
      throw new ConflictError(
        'site-not-synced',
        `${wait.message} The month ${key.period} may be incomplete here: wait for the site, or generate anyway.`,
        { siteId: wait.siteId, reason: wait.reason },
      );
    }
    return { yard, config, carrier, period: key.period, live };
  }

  private calculationKey(t: Target): CalculationKey {
    return {
      yard: t.yard,
      carrierId: t.carrier.id,
      period: t.period,
      now: this.deps.clock.now(),
      yardConfig: t.config,
    };
  }

  /**
   * Store: the live draft recomputed in place (same id and number; 409 `invoice-issued` should it
   * have been issued meanwhile), else a new draft (409 `invoice-exists` should another request have
   * made one meanwhile: the unique index invoice_one_live).
   */
  private async store(t: Target, calc: Calculation, by: string | null): Promise<InvoiceRow> {
    if (t.live) {
      const now = this.deps.clock.now();
      const row = await this.repo.updateIf(t.live.id, 'draft', {
        ...totals(calc),
        content: JSON.stringify(content(calc, t.carrier)),
        generatedAt: now,
        updatedAt: now,
      });
      if (!row) throw invoiceIssued(t.live);
      return row;
    }
    try {
      return await this.insert(t, calc, by);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const live = await this.repo.live(t.yard.id, t.carrier.id, t.period);
      throw live ? invoiceExists(live) : err;
    }
  }

  /** A new draft, numbered: the next sequence of the key (after voids) and a free export number. */
  private async insert(t: Target, calc: Calculation, by: string | null): Promise<InvoiceRow> {
    const sequence = await this.repo.nextSequence(t.yard.id, t.carrier.id, t.period);
    const number = invoiceNumber(t.yard.code, t.period, t.carrier, sequence);
    const now = this.deps.clock.now();
    return this.repo.insert({
      id: newId(),
      number,
      exportNumber: await this.repo.freeExportNumber(number, t.period),
      yardId: t.yard.id,
      carrierId: t.carrier.id,
      period: t.period,
      sequence,
      status: 'draft',
      ...totals(calc),
      content: JSON.stringify(content(calc, t.carrier)),
      generatedAt: now,
      issuedAt: null,
      voidedAt: null,
      voidReason: null,
      createdBy: by,
      createdAt: now,
      updatedAt: now,
    });
  }
}

function totals(calc: Calculation) {
  return {
    currency: calc.currency,
    subtotal: calc.result.subtotal,
    tax: calc.result.tax,
    total: calc.result.total,
  };
}

/** The frozen content: the computation, the issuer from the yard config, the bill-to party, the terms. */
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
