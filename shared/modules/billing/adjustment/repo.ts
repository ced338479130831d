import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import { sqlDialectOf } from '../../../db/sql-helpers.js';
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

  /**
   * Takes the period's adjustment lock for the rest of the transaction, so that two concurrent
   * additions count one after the other: PostgreSQL's advisory lock on the key; SQLite runs one
   * write transaction at a time already.
   */
  async lockPeriod(key: { yardId: string; carrierId: string; period: string }): Promise<void> {
    if (sqlDialectOf(this.db) !== 'postgres') return;
    const name = `invoice_adjustment:${key.yardId}:${key.carrierId}:${key.period}`;
    await sql`SELECT pg_advisory_xact_lock(hashtext(${name}))`.execute(this.db);
  }

  /** How many adjustments the yard, carrier and period have. */
  async countFor(key: { yardId: string; carrierId: string; period: string }): Promise<number> {
    const row = await this.db
      .selectFrom('invoiceAdjustment')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('yardId', '=', key.yardId)
      .where('carrierId', '=', key.carrierId)
      .where('period', '=', key.period)
      .executeTakeFirstOrThrow();
    return Number(row.n);
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
