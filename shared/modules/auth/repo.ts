import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { ApiKeyTable, AppUserTable } from '../../db/tables.js';

export type UserRow = Selectable<AppUserTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;

/** SQL for users, API keys and tokens. Writes to users and keys go through ChangeCapture in the service. */
export class AuthRepo {
  constructor(private readonly db: Kdb) {}

  userByUsername(username: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('appUser')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
      .executeTakeFirst();
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

  listUsers(opts: { limit: number; after?: string; role?: string }): Promise<UserRow[]> {
    let q = this.db
      .selectFrom('appUser')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.after) q = q.where('id', '>', opts.after);
    if (opts.role) q = q.where('role', '=', opts.role as UserRow['role']);
    return q.execute();
  }

  apiKeyById(id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('apiKey').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listApiKeys(opts: { limit: number; after?: string | undefined }): Promise<ApiKeyRow[]> {
    let q = this.db
      .selectFrom('apiKey')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
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

  /** Expired tokens are useless; keep the table small. */
  async deleteExpiredTokens(before: number): Promise<void> {
    await this.db.deleteFrom('authToken').where('expiresAt', '<', before).execute();
  }
}

/** The driver fields login and token resolution need (drivers are their own module's records). */
export function driverByCode(db: Kdb, driverCode: string) {
  return db
    .selectFrom('driver')
    .select(['id', 'firstName', 'lastName', 'kind', 'status', 'pinHash', 'driverCode'])
    .where('driverCode', '=', driverCode)
    .executeTakeFirst();
}

export function driverById(db: Kdb, id: string) {
  return db
    .selectFrom('driver')
    .select(['id', 'firstName', 'lastName', 'kind', 'status', 'pinHash', 'driverCode'])
    .where('id', '=', id)
    .executeTakeFirst();
}
