import type { Insertable, Selectable, Updateable } from 'kysely';
import { scopeInList } from '../../../auth/principal.js';
import type { Kdb } from '../../../db/database.js';
import type { BillingCarrierConfigTable, BillingYardConfigTable } from '../../../db/tables.js';

export type YardConfigRow = Selectable<BillingYardConfigTable>;
export type CarrierConfigRow = Selectable<BillingCarrierConfigTable>;

/**
 * Billing configs: local tables, never synced, so written with Kysely directly (no ChangeCapture).
 * Deleting a yard config deletes its carrier configs by the foreign key's ON DELETE CASCADE.
 */
export class BillingConfigRepo {
  constructor(private readonly db: Kdb) {}

  yardConfig(yardId: string): Promise<YardConfigRow | undefined> {
    return this.db
      .selectFrom('billingYardConfig')
      .selectAll()
      .where('yardId', '=', yardId)
      .executeTakeFirst();
  }

  /** Ordered by yard id; keyset paging after `afterYardId`; `yardIds` null = every yard. */
  listYardConfigs(opts: { limit: number; afterYardId?: string | undefined; yardIds: string[] | null }) {
    let q = this.db
      .selectFrom('billingYardConfig')
      .selectAll()
      .orderBy('yardId')
      .limit(opts.limit + 1);
    if (opts.afterYardId) q = q.where('yardId', '>', opts.afterYardId);
    if (opts.yardIds) q = q.where('yardId', 'in', scopeInList(opts.yardIds));
    return q.execute();
  }

  /** Inserts unless the yard has a config; false when it had one (nothing written). */
  async insertYardConfig(row: Insertable<BillingYardConfigTable>): Promise<boolean> {
    const res = await this.db
      .insertInto('billingYardConfig')
      .values(row)
      .onConflict((oc) => oc.column('yardId').doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async updateYardConfig(yardId: string, values: Updateable<BillingYardConfigTable>): Promise<void> {
    await this.db.updateTable('billingYardConfig').set(values).where('yardId', '=', yardId).execute();
  }

  /** True when there was one to delete (its carrier configs go with it). */
  async deleteYardConfig(yardId: string): Promise<boolean> {
    const res = await this.db.deleteFrom('billingYardConfig').where('yardId', '=', yardId).executeTakeFirst();
    return Number(res.numDeletedRows) === 1;
  }

  carrierConfigById(id: string): Promise<CarrierConfigRow | undefined> {
    return this.db.selectFrom('billingCarrierConfig').selectAll().where('id', '=', id).executeTakeFirst();
  }

  carrierConfig(yardId: string, carrierId: string): Promise<CarrierConfigRow | undefined> {
    return this.db
      .selectFrom('billingCarrierConfig')
      .selectAll()
      .where('yardId', '=', yardId)
      .where('carrierId', '=', carrierId)
      .executeTakeFirst();
  }

  /** The carrier configs of the given yards, by yard then carrier. */
  carrierConfigsOf(yardIds: string[]): Promise<CarrierConfigRow[]> {
    if (yardIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('billingCarrierConfig')
      .selectAll()
      .where('yardId', 'in', yardIds)
      .orderBy('yardId')
      .orderBy('carrierId')
      .execute();
  }

  async countCarrierConfigs(yardId: string): Promise<number> {
    const row = await this.db
      .selectFrom('billingCarrierConfig')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('yardId', '=', yardId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Inserts unless the carrier has a config in the yard; false when it had one (nothing written). */
  async insertCarrierConfig(row: Insertable<BillingCarrierConfigTable>): Promise<boolean> {
    const res = await this.db
      .insertInto('billingCarrierConfig')
      .values(row)
      .onConflict((oc) => oc.columns(['yardId', 'carrierId']).doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async updateCarrierConfig(id: string, values: Updateable<BillingCarrierConfigTable>): Promise<void> {
    await this.db.updateTable('billingCarrierConfig').set(values).where('id', '=', id).execute();
  }

  async deleteCarrierConfig(id: string): Promise<boolean> {
    const res = await this.db.deleteFrom('billingCarrierConfig').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) === 1;
  }
}
