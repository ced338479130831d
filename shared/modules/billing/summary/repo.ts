import type { Insertable, Selectable } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import type { BillingSummaryTable } from '../../../db/tables.js';

export type SummaryRow = Selectable<BillingSummaryTable>;

/** Stored billing summaries (local, never synced: written with Kysely directly). */
export class SummaryRepo {
  constructor(private readonly db: Kdb) {}

  /** Regenerating replaces the summary of (yard, carrier, period), keeping its id and createdAt. */
  async upsert(row: Insertable<BillingSummaryTable>): Promise<SummaryRow> {
    return this.db
      .insertInto('billingSummary')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['yardId', 'carrierId', 'period']).doUpdateSet({
          currency: row.currency,
          subtotal: row.subtotal,
          tax: row.tax,
          total: row.total,
          content: row.content,
          generatedAt: row.generatedAt,
          updatedAt: row.updatedAt,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  list(filter: {
    period: string;
    yardIds: string[] | null;
    carrierIds: string[] | null;
  }): Promise<SummaryRow[]> {
    let q = this.db
      .selectFrom('billingSummary')
      .selectAll()
      .where('period', '=', filter.period)
      .orderBy('yardId')
      .orderBy('carrierId');
    if (filter.yardIds) q = q.where('yardId', 'in', filter.yardIds.length ? filter.yardIds : ['']);
    if (filter.carrierIds)
      q = q.where('carrierId', 'in', filter.carrierIds.length ? filter.carrierIds : ['']);
    return q.execute();
  }

  /** Carriers with an invoice that is not void for the yard and period. */
  async invoicedCarriers(yardId: string, period: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('invoice')
      .select('carrierId')
      .where('period', '=', period)
      .where('yardId', '=', yardId)
      .where('status', '<>', 'void')
      .execute();
    return rows.map((r) => r.carrierId);
  }
}
