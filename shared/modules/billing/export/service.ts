import type { Principal } from '../../../auth/principal.js';
import { assertCanSeeYard, canSeeYard, carrierOf } from '../../../auth/principal.js';
import type { CoreParts } from '../../../core-parts.js';
import { NotFoundError } from '../../../http/errors.js';
import type { YardService } from '../../yards/service.js';
import { invoiceOut } from '../invoice/out.js';
import { InvoiceRepo, type InvoiceRow } from '../invoice/repo.js';
import type { InvoiceOutT } from '../invoice/schema.js';
import { type CarrierInvoiceQuery, carrierInvoices } from './carrier-invoices.js';
import type { AdjustmentRecord } from './lines.js';

export type ExportDeps = Pick<CoreParts, 'kysely'> & { yards: Pick<YardService, 'getRow'> };

/** An invoice with what its documents show beside it. */
export interface ExportInvoice {
  invoice: InvoiceOutT;
  yard: { code: string; name: string };
  adjustments: AdjustmentRecord[];
}

/**
 * What the exports read (docs/domain.md "Billing", exports): one invoice for its PDF, and the issued
 * invoices of a period for the accounting CSVs. Reads only; the scope rules are the invoice routes'.
 */
export class InvoiceExportService {
  private readonly invoices: InvoiceRepo;

  constructor(private readonly deps: ExportDeps) {
    this.invoices = new InvoiceRepo(deps.kysely);
  }

  /**
   * Any status: a draft prints with a DRAFT watermark, a void one with VOID and its reason. A
   * carrier user gets its own carrier's issued and void invoices only: a draft (not final) or
   * another carrier's is 404, as if it did not exist (docs/domain.md "Carriers and integrators").
   */
  async one(principal: Principal, id: string): Promise<ExportInvoice> {
    const row = await this.invoices.byId(id);
    if (!row || !canSeeYard(principal, row.yardId) || !carrierMaySee(principal, row)) {
      throw new NotFoundError('Invoice', id);
    }
    return this.withContext(row);
  }

  /** A carrier user's own issued and void invoices (carrier-invoices.ts). */
  ofCarrier(principal: Principal, query: CarrierInvoiceQuery) {
    return carrierInvoices({ invoices: this.invoices, yards: this.deps.yards }, principal, query);
  }

  /**
   * The ISSUED invoices of `period` (the yard-local month they bill), by yard then number. Drafts are
   * not final and void invoices are cancelled: neither belongs in an accounts-receivable import.
   */
  async issuedOf(principal: Principal, period: string, yardId: string | undefined): Promise<ExportInvoice[]> {
    let q = this.deps.kysely
      .selectFrom('invoice')
      .selectAll()
      .where('period', '=', period)
      .where('status', '=', 'issued')
      .orderBy('yardId')
      .orderBy('number');
    if (yardId) {
      await this.deps.yards.getRow(yardId);
      assertCanSeeYard(principal, yardId);
      q = q.where('yardId', '=', yardId);
    } else if (principal.yardIds) {
      q = q.where('yardId', 'in', principal.yardIds.length ? principal.yardIds : ['']);
    }
    const rows = await q.execute();
    const out: ExportInvoice[] = [];
    for (const row of rows) out.push(await this.withContext(row));
    return out;
  }

  private async withContext(row: InvoiceRow): Promise<ExportInvoice> {
    const yard = await this.deps.yards.getRow(row.yardId);
    const adjustments = await this.deps.kysely
      .selectFrom('invoiceAdjustment')
      .select(['description', 'amount'])
      .where('yardId', '=', row.yardId)
      .where('carrierId', '=', row.carrierId)
      .where('period', '=', row.period)
      .orderBy('id')
      .execute();
    return { invoice: invoiceOut(row), yard: { code: yard.code, name: yard.name }, adjustments };
  }
}

/** Staff: every invoice of their yards. A carrier user: its own carrier's, once issued (or void). */
function carrierMaySee(principal: Principal, row: Pick<InvoiceRow, 'carrierId' | 'status'>): boolean {
  const own = carrierOf(principal);
  return own === null || (row.carrierId === own && row.status !== 'draft');
}
