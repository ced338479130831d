import { type Expression, type Selectable, type SqlBool, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { jsonArrayStrings } from '../../db/sql-helpers.js';
import type { ApiKeyTable, AppUserTable } from '../../db/tables.js';

export type UserRow = Selectable<AppUserTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;

/** SQL for users, API keys and tokens. Writes to users and keys go through ChangeCapture in the service. */
export class AuthRepo {
  constructor(private readonly db: Kdb) {}

  /** The same reads on another connection (a transaction). */
  withDb(db: Kdb): AuthRepo {
    return new AuthRepo(db);
  }

  userByUsername(username: string): Promise<UserRow | undefined> {
    return (
      this.db
        .selectFrom('appUser')
        .selectAll()
        // lower() on both sides, as the unique index: ASCII letters only (toLowerCase would lower more).
        .where((eb) => eb(eb.fn('lower', ['username']), '=', eb.fn('lower', [eb.val(username)])))
        .executeTakeFirst()
    );
  }

  userById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('appUser').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async countUsers(): Promise<number> {
    const row = await this.db
      .selectFrom('appUser')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** `within`: only users an admin of that scope manages (null: every user). */
  listUsers(opts: {
    limit: number;
    after?: string;
    role?: string;
    within: string[] | null;
  }): Promise<UserRow[]> {
    let q = this.db
      .selectFrom('appUser')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.within !== null) q = q.where(scopeWithin(this.db, opts.within));
    if (opts.after) q = q.where('id', '>', opts.after);
    if (opts.role) q = q.where('role', '=', opts.role as UserRow['role']);
    return q.execute();
  }

  apiKeyById(id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('apiKey').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A page of keys; `within`: only keys an admin of that scope manages (null: every key). */
  listApiKeys(opts: {
    within: string[] | null;
    limit: number;
    after?: string | undefined;
  }): Promise<ApiKeyRow[]> {
    let q = this.db
      .selectFrom('apiKey')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.within !== null) q = q.where(scopeWithin(this.db, opts.within));
    if (opts.after) q = q.where('id', '>', opts.after);
    return q.execute();
  }

  async insertToken(row: {
    tokenHash: string;
    principalKind: 'user' | 'driver';
    principalId: string;
    createdAt: number;
    expiresAt: number;
  }): Promise<void> {
    await this.db
      .insertInto('authToken')
      .values({ ...row, revokedAt: null })
      .execute();
  }

  tokenByHash(tokenHash: string) {
    return this.db.selectFrom('authToken').selectAll().where('tokenHash', '=', tokenHash).executeTakeFirst();
  }

  async revokeToken(tokenHash: string, at: number): Promise<void> {
    await this.db
      .updateTable('authToken')
      .set({ revokedAt: at })
      .where('tokenHash', '=', tokenHash)
      .execute();
  }

  async revokeTokensOf(kind: 'user' | 'driver', principalId: string, at: number): Promise<void> {
    await this.db
      .updateTable('authToken')
      .set({ revokedAt: at })
      .where('principalKind', '=', kind)
      .where('principalId', '=', principalId)
      .where('revokedAt', 'is', null)
      .execute();
  }

  /**
   * The server's secret `name`, made with `make` by the first caller (of any node: the insert that
   * loses a race changes nothing, and every node reads the one stored).
   */
  async serverSecret(name: string, make: () => string, now: number): Promise<string> {
    await this.db
      .insertInto('serverSecret')
      .values({ name, value: make(), createdAt: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('serverSecret')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.value;
  }

  /** Expired tokens are useless; keep the table small. */
  async deleteExpiredTokens(before: number): Promise<void> {
    await this.db.deleteFrom('authToken').where('expiresAt', '<', before).execute();
  }
}

/**
 * Rows whose yard_ids is a non-empty subset of `yardIds`: isWithinScope (admin-scope.ts) in SQL,
 * for lists that page in the database.
 */
export function scopeWithin(db: Kdb, yardIds: string[]): Expression<SqlBool> {
  // false written as a comparison: PostgreSQL wants a boolean in WHERE, SQLite has no false before 3.23.
  if (yardIds.length === 0) return sql<SqlBool>`1 = 0`;
  const scope = (alias: string) => jsonArrayStrings(db, sql.ref('yardIds'), alias);
  return sql<SqlBool>`(EXISTS (SELECT 1 FROM ${scope('s')}) AND NOT EXISTS (
    SELECT 1 FROM ${scope('o')} WHERE o.value NOT IN (${sql.join(yardIds)})))`;
}
