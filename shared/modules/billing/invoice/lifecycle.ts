import type { Updateable } from 'kysely';
import type { Principal } from '../../../auth/principal.js';
import { assertCanSeeYard, canSeeYard, yardFilter } from '../../../auth/principal.js';
import type { CoreParts } from '../../../core-parts.js';
import type { InvoiceStatus, InvoiceTable } from '../../../db/tables.js';
import { decodeCursor, toPage } from '../../../http/cursor.js';
import { ConflictError, InvalidTransitionError, NotFoundError } from '../../../http/errors.js';
import type { IntegratorEvents } from '../../webhooks/port.js';
import type { BillingReads } from '../inputs.js';
import { invoiceEvent } from './carrier-view.js';
import { type InvoiceKey, invoiceIssued, invoiceOut, invoiceSummaryOut } from './out.js';
import { InvoiceRepo, type InvoiceRow } from './repo.js';
import type { InvoiceOutT } from './schema.js';

export type InvoiceLifecycleDeps = Pick<CoreParts, 'kysely' | 'clock'> &
  BillingReads & {
    /** Where invoice.issued / invoice.voided go for the carriers' systems (webhooks/port.ts). */
    events: IntegratorEvents;
  };

interface ListQuery {
  limit: number;
  cursor?: string | undefined;
  yardId?: string | undefined;
  carrierId?: string | undefined;
  period?: string | undefined;
  status?: InvoiceStatus | undefined;
}

/**
 * Invoices once generated (docs/domain.md "Billing"; generation.ts makes them): draft --issue-->
 * issued --void(reason)--> void. A draft can be deleted (or replaced by generation); an issued
 * invoice cannot (409 `invoice-issued`): void it and generate again, which numbers the new one `-2`,
 * `-3`, ... A void invoice is kept for the record. An invoice of a yard outside the caller's scope
 * is 404 by id.
 *
 * Issuing and voiding write the webhook event (invoice.issued, invoice.voided) in the same
 * transaction as the status change (docs/webhooks.md "Delivery"): both are kept or neither.
 */
export class InvoiceLifecycle {
  private readonly repo: InvoiceRepo;

  constructor(private readonly deps: InvoiceLifecycleDeps) {
    this.repo = new InvoiceRepo(deps.kysely);
  }

  async list(principal: Principal, query: ListQuery) {
    const rows = await this.page(principal, query);
    return toPage(rows, query.limit, invoiceOut, (r) => [r.id]);
  }

  async summaries(principal: Principal, query: ListQuery) {
    const rows = await this.page(principal, query);
    return toPage(rows, query.limit, invoiceSummaryOut, (r) => [r.id]);
  }

  /** GET /invoice/{key}: the invoice that is not void, else the newest void one. */
  async getByKey(principal: Principal, key: InvoiceKey): Promise<InvoiceOutT> {
    return invoiceOut(await this.byKey(principal, key));
  }

  async deleteByKey(principal: Principal, key: InvoiceKey): Promise<void> {
    await this.deleteRow(await this.byKey(principal, key));
  }

  /** GET /invoice/{id}: one invoice in any status. */
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
    return this.changeStatus(row, 'draft', { status: 'issued', issuedAt: now, updatedAt: now }, now);
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
    return this.changeStatus(
      row,
      'issued',
      { status: 'void', voidedAt: now, voidReason: reason, updatedAt: now },
      now,
    );
  }

  /**
   * The status change (only while the row still has status `from`: a concurrent issue or void
   * loses with 409) and its webhook event, in one transaction. The yard's name is read first:
   * a read through another service inside the transaction would wait for it on SQLite.
   */
  private async changeStatus(
    row: InvoiceRow,
    from: InvoiceStatus,
    set: Updateable<InvoiceTable> & { status: InvoiceStatus },
    now: number,
  ): Promise<InvoiceOutT> {
    const yard = await this.deps.yards.getRow(row.yardId);
    return this.deps.kysely.transaction().execute(async (trx) => {
      const changed = await new InvoiceRepo(trx).updateIf(row.id, from, set);
      if (!changed)
        throw new InvalidTransitionError(
          set.status,
          set.status,
          `Invoice ${row.number} was changed meanwhile.`,
        );
      await this.deps.events.emit(trx, invoiceEvent(changed, yard.name, now));
      return invoiceOut(changed);
    });
  }

  private async page(principal: Principal, query: ListQuery): Promise<InvoiceRow[]> {
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

  /** The yard (404), in scope (403), the carrier (404), then the key's live invoice, else its newest void one. */
  private async byKey(principal: Principal, key: InvoiceKey): Promise<InvoiceRow> {
    await this.deps.yards.getRow(key.yardId);
    assertCanSeeYard(principal, key.yardId);
    await this.deps.carriers.getRow(key.carrierId);
    const row =
      (await this.repo.live(key.yardId, key.carrierId, key.period)) ??
      (await this.repo.latest(key.yardId, key.carrierId, key.period));
    if (!row)
      throw new NotFoundError('Invoice', `${key.period} of carrier ${key.carrierId} in yard ${key.yardId}`);
    return row;
  }

  private async visible(principal: Principal, id: string): Promise<InvoiceRow> {
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
