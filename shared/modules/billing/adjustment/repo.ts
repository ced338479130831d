import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import type { InvoiceAdjustmentTable } from '../../../db/tables.js';

export type AdjustmentRow = Selectable<InvoiceAdjustmentTable>;

/** Invoice adjustments (local, never synced: written with Kysely directly). */
export class AdjustmentRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<AdjustmentRow | undefined> {
    return this.db.selectFrom('invoiceAdjustment').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insert(row: Insertable<InvoiceAdjustmentTable>): Promise<AdjustmentRow> {
    return this.db.insertInto('invoiceAdjustment').values(row).returningAll().executeTakeFirstOrThrow();
  }

  update(id: string, set: Updateable<InvoiceAdjustmentTable>): Promise<AdjustmentRow | undefined> {
    return this.db
      .updateTable('invoiceAdjustment')
      .set(set)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('invoiceAdjustment').where('id', '=', id).execute();
  }

  /** The issued invoice of the period, if any (adjustments then wait for a void). */
  issuedInvoice(yardId: string, carrierId: string, period: string) {
    return this.db
      .selectFrom('invoice')
      .select(['id', 'number'])
      .where('yardId', '=', yardId)
      .where('carrierId', '=', carrierId)
      .where('period', '=', period)
      .where('status', '=', 'issued')
      .executeTakeFirst();
  }

  list(filter: {
    limit: number;
    afterId?: string | undefined;
    yardIds: string[] | null;
    carrierId?: string | undefined;
    period?: string | undefined;
  }): Promise<AdjustmentRow[]> {
    let q = this.db
      .selectFrom('invoiceAdjustment')
      .selectAll()
      .orderBy('id')
      .limit(filter.limit + 1);
    if (filter.afterId) q = q.where('id', '>', filter.afterId);
    if (filter.yardIds) q = q.where('yardId', 'in', filter.yardIds.length ? filter.yardIds : ['']);
    if (filter.carrierId) q = q.where('carrierId', '=', filter.carrierId);
    if (filter.period) q = q.where('period', '=', filter.period);
    return q.execute();
  }
}
