import { type Selectable, sql, type Updateable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { sqlDialectOf } from '../../db/sql-helpers.js';
import type { CarrierUserTable } from '../../db/tables.js';
import { scopeWithin } from './repo.js';

export type CarrierUserRow = Selectable<CarrierUserTable>;

/**
 * SQL for carrier users (migration 0023): a table of the cloud that is never synced, so its writes
 * are plain statements, not ChangeCapture's (docs/sync.md "Conflict rules": cloud only).
 */
export class CarrierUserRepo {
  constructor(private readonly db: Kdb) {}

  /** The same reads on another connection (a transaction). */
  withDb(db: Kdb): CarrierUserRepo {
    return new CarrierUserRepo(db);
  }

  byUsername(username: string): Promise<CarrierUserRow | undefined> {
    return (
      this.db
        .selectFrom('carrierUser')
        .selectAll()
        // lower() on both sides, as the unique index (and app_user's).
        .where((eb) => eb(eb.fn('lower', ['username']), '=', eb.fn('lower', [eb.val(username)])))
        .executeTakeFirst()
    );
  }

  byId(id: string): Promise<CarrierUserRow | undefined> {
    return this.db.selectFrom('carrierUser').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A page by id; `within` as AuthRepo.listUsers (null: every carrier user). */
  list(opts: {
    limit: number;
    after?: string | undefined;
    carrierId?: string | undefined;
    within: string[] | null;
  }): Promise<CarrierUserRow[]> {
    let q = this.db
      .selectFrom('carrierUser')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.within !== null) q = q.where(scopeWithin(this.db, opts.within));
    if (opts.after) q = q.where('id', '>', opts.after);
    if (opts.carrierId) q = q.where('carrierId', '=', opts.carrierId);
    return q.execute();
  }

  async insert(db: Kdb, row: Omit<CarrierUserRow, 'version' | 'disabled'>): Promise<CarrierUserRow> {
    await db.insertInto('carrierUser').values(row).execute();
    return (await db.selectFrom('carrierUser').selectAll().where('id', '=', row.id).executeTakeFirst())!;
  }

  /**
   * Changes a carrier user and bumps its version; `expectedVersion` makes it conditional (If-Match).
   * Undefined when no row matched.
   */
  async update(
    id: string,
    patch: Updateable<CarrierUserTable>,
    updatedAt: number,
    expectedVersion?: number,
  ): Promise<CarrierUserRow | undefined> {
    let q = this.db
      .updateTable('carrierUser')
      .set((eb) => ({ ...patch, updatedAt, version: eb('version', '+', 1) }))
      .where('id', '=', id);
    if (expectedVersion !== undefined) q = q.where('version', '=', expectedVersion);
    const res = await q.executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return undefined;
    return this.byId(id);
  }

  /**
   * Takes the usernames lock for the rest of the transaction: one unique index cannot span app_user
   * and carrier_user, so creations check both tables one after the other. PostgreSQL's advisory
   * lock; SQLite runs one write transaction at a time already.
   */
  async lockUsernames(trx: Kdb): Promise<void> {
    if (sqlDialectOf(trx) !== 'postgres') return;
    await sql`SELECT pg_advisory_xact_lock(hashtext(${'usernames'}))`.execute(trx);
  }
}
