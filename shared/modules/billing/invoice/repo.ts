import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import type { InvoiceStatus, InvoiceTable } from '../../../db/tables.js';
import { exportNumberCandidates } from './number.js';

export type InvoiceRow = Selectable<InvoiceTable>;

/** Invoices (local, never synced: written with Kysely directly). Ordered by id (creation order). */
export class InvoiceRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<InvoiceRow | undefined> {
    return this.db.selectFrom('invoice').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The invoice of (yard, carrier, period) that is not void (at most one: invoice_one_live). */
  live(yardId: string, carrierId: string, period: string): Promise<InvoiceRow | undefined> {
    return this.db
      .selectFrom('invoice')
      .selectAll()
      .where('yardId', '=', yardId)
      .where('carrierId', '=', carrierId)
      .where('period', '=', period)
      .where('status', '<>', 'void')
      .executeTakeFirst();
  }

  /** The newest invoice of the key, void or not. */
  latest(yardId: string, carrierId: string, period: string): Promise<InvoiceRow | undefined> {
    return this.db
      .selectFrom('invoice')
      .selectAll()
      .where('yardId', '=', yardId)
      .where('carrierId', '=', carrierId)
      .where('period', '=', period)
      .orderBy('sequence', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async nextSequence(yardId: string, carrierId: string, period: string): Promise<number> {
    const row = await this.db
      .selectFrom('invoice')
      .select((eb) => eb.fn.max('sequence').as('seq'))
      .where('yardId', '=', yardId)
      .where('carrierId', '=', carrierId)
      .where('period', '=', period)
      .executeTakeFirst();
    return Number(row?.seq ?? 0) + 1;
  }

  /**
   * The first export-number candidate (number.ts) that no invoice has. A deleted draft's number
   * is free again, so generating it again gives the same export number.
   */
  async freeExportNumber(number: string, period: string): Promise<string> {
    for (const candidate of exportNumberCandidates(number, period)) {
      const row = await this.db
        .selectFrom('invoice')
        .select('id')
        .where('exportNumber', '=', candidate)
        .executeTakeFirst();
      if (!row) return candidate;
    }
    throw new Error('unreachable: the candidates never end');
  }

  insert(row: Insertable<InvoiceTable>): Promise<InvoiceRow> {
    return this.db.insertInto('invoice').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Changes a row only while it has the expected status (the lifecycle's guard against a race). */
  async updateIf(
    id: string,
    status: InvoiceStatus,
    set: Updateable<InvoiceTable>,
  ): Promise<InvoiceRow | undefined> {
    return this.db
      .updateTable('invoice')
      .set(set)
      .where('id', '=', id)
      .where('status', '=', status)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteDraft(id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('invoice')
      .where('id', '=', id)
      .where('status', '=', 'draft')
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /**
   * A carrier's issued and void invoices (never a draft), newest issue first: one page of `limit + 1`
   * rows after the `after` position (the carrier portal's list, export/carrier-invoices.ts).
   */
  issuedOrVoidOfCarrier(filter: {
    carrierId: string;
    limit: number;
    yardId?: string | undefined;
    yardIds: string[] | null;
    period?: string | undefined;
    after?: { issuedAt: number; id: string } | undefined;
  }): Promise<InvoiceRow[]> {
    let q = this.db
      .selectFrom('invoice')
      .selectAll()
      .where('carrierId', '=', filter.carrierId)
      .where('status', 'in', ['issued', 'void'])
      .orderBy('issuedAt', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
    if (filter.yardId !== undefined) q = q.where('yardId', '=', filter.yardId);
    else if (filter.yardIds) q = q.where('yardId', 'in', filter.yardIds.length ? filter.yardIds : ['']);
    if (filter.period !== undefined) q = q.where('period', '=', filter.period);
    const after = filter.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb('issuedAt', '<', after.issuedAt),
          eb.and([eb('issuedAt', '=', after.issuedAt), eb('id', '<', after.id)]),
        ]),
      );
    }
    return q.execute();
  }

  list(filter: {
    limit: number;
    afterId?: string | undefined;
    yardIds: string[] | null;
    carrierId?: string | undefined;
    period?: string | undefined;
    status?: InvoiceStatus | undefined;
  }): Promise<InvoiceRow[]> {
    let q = this.db
      .selectFrom('invoice')
      .selectAll()
      .orderBy('id')
      .limit(filter.limit + 1);
    if (filter.afterId) q = q.where('id', '>', filter.afterId);
    if (filter.yardIds) q = q.where('yardId', 'in', filter.yardIds.length ? filter.yardIds : ['']);
    if (filter.carrierId) q = q.where('carrierId', '=', filter.carrierId);
    if (filter.period) q = q.where('period', '=', filter.period);
    if (filter.status) q = q.where('status', '=', filter.status);
    return q.execute();
  }
}
