import type { Principal } from '../../auth/principal.js';
import { newPassword } from '../../auth/secrets.js';
import type { CoreParts } from '../../core-parts.js';
import { isUniqueViolation } from '../../db/sql-helpers.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { assertManages, assertMayGrant, type ExistingYards } from './admin-scope.js';
import type { Logins } from './logins.js';
import { parseScope, userOut } from './out.js';
import type { AuthRepo, UserRow } from './repo.js';
import type { UserOutT } from './schema.js';
import type { Sessions } from './sessions.js';

export type UserAdminDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'config'> & {
  repo: AuthRepo;
  yards: ExistingYards;
  logins: Logins;
  sessions: Sessions;
};

export interface NewUser {
  username: string;
  displayName?: string | undefined;
  role: UserRow['role'];
  yardIds?: string[] | null | undefined;
  password: string;
}

export interface UserPatch {
  displayName?: string | null | undefined;
  role?: UserRow['role'] | undefined;
  yardIds?: string[] | null | undefined;
  password?: string | undefined;
  disabled?: boolean | undefined;
}

/** Staff users: the first admin, and the users an admin administers (admin-scope.ts). */
export class UserAdmin {
  constructor(private readonly deps: UserAdminDeps) {}

  /**
   * On first start: create the configured admin, or one with a generated password that is returned
   * once. A linked edge creates no user: users are cloud-owned and arrive with the first sync
   * (`awaitingSync` says none has arrived yet).
   */
  async ensureAdmin(): Promise<{
    created: boolean;
    username?: string;
    generatedPassword?: string;
    awaitingSync?: boolean;
  }> {
    if ((await this.deps.repo.countUsers()) > 0) return { created: false };
    if (!this.deps.changes.mayWrite('appUser')) return { created: false, awaitingSync: true };
    const username = this.deps.config.adminUser;
    const password = this.deps.config.adminPassword ?? newPassword();
    try {
      await this.insertUser({ username, role: 'admin', password, displayName: 'Administrator' });
    } catch (err) {
      // Cloud nodes sharing one PostgreSQL start at once: another node's first start made the admin.
      if (err instanceof ConflictError || isUniqueViolation(err)) return { created: false };
      throw err;
    }
    return {
      created: true,
      username,
      ...(this.deps.config.adminPassword ? {} : { generatedPassword: password }),
    };
  }

  /** The users the actor administers (admin-scope.ts). */
  async listUsers(actor: Principal, opts: { limit: number; cursor?: string; role?: string }) {
    const after = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const rows = await this.deps.repo.listUsers({
      within: actor.yardIds,
      limit: opts.limit,
      ...(after ? { after } : {}),
      ...(opts.role ? { role: opts.role } : {}),
    });
    return toPage(rows, opts.limit, userOut, (r) => [r.id]);
  }

  async getUser(actor: Principal, id: string): Promise<UserOutT> {
    const row = await this.deps.repo.userById(id);
    if (!row) throw new NotFoundError('User', id);
    assertManages(actor, parseScope(row.yardIds), 'User', id);
    return userOut(row);
  }

  async createUser(actor: Principal, input: NewUser): Promise<UserOutT> {
    // Ownership first (a linked edge answers cloud-owned), then the scope it may grant.
    this.deps.changes.assertMayWrite('appUser');
    await assertMayGrant(this.deps.yards, actor, input.yardIds ?? null, 'body.yardIds');
    return this.insertUser(input);
  }

  private async insertUser(input: NewUser): Promise<UserOutT> {
    if (await this.deps.repo.userByUsername(input.username)) {
      throw new ConflictError('duplicate', `A user named ${input.username} already exists.`);
    }
    const now = this.deps.clock.now();
    const row = await this.deps.changes.insert(this.deps.kysely, 'appUser', {
      id: newId(),
      username: input.username,
      displayName: input.displayName ?? null,
      role: input.role,
      yardIds: input.yardIds ? JSON.stringify(input.yardIds) : null,
      passwordHash: await this.deps.logins.hashSecret(input.password),
      disabled: 0,
      createdAt: now,
      updatedAt: now,
    });
    return userOut(row);
  }

  async updateUser(
    actor: Principal,
    id: string,
    patch: UserPatch,
    expectedVersion?: number,
  ): Promise<UserOutT> {
    // Before hashing a new password: a refused write costs nothing.
    this.deps.changes.assertMayWrite('appUser');
    const current = await this.deps.repo.userById(id);
    if (!current) throw new NotFoundError('User', id);
    assertManages(actor, parseScope(current.yardIds), 'User', id);
    if (patch.yardIds !== undefined)
      await assertMayGrant(this.deps.yards, actor, patch.yardIds, 'body.yardIds');
    const passwordHash = patch.password ? await this.deps.logins.hashSecret(patch.password) : undefined;
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'appUser',
      id,
      {
        ...(patch.displayName !== undefined ? { displayName: patch.displayName } : {}),
        ...(patch.role ? { role: patch.role } : {}),
        ...(patch.yardIds !== undefined
          ? { yardIds: patch.yardIds ? JSON.stringify(patch.yardIds) : null }
          : {}),
        ...(passwordHash ? { passwordHash } : {}),
        ...(patch.disabled !== undefined ? { disabled: patch.disabled ? 1 : 0 } : {}),
      },
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    if (!row) throw new NotFoundError('User', id);
    if (patch.disabled || patch.password || patch.role || patch.yardIds !== undefined)
      await this.deps.sessions.revokeSessionsOf('user', id);
    return userOut(row);
  }

  /** Users are disabled, not deleted: movements and audits keep pointing at them. */
  async disableUser(id: string, actor: Principal): Promise<UserOutT> {
    this.deps.changes.assertMayWrite('appUser');
    if (actor.kind === 'user' && actor.id === id) {
      throw new ConflictError('cannot-disable-self', 'You cannot disable your own user; ask another admin.');
    }
    return this.updateUser(actor, id, { disabled: true });
  }
}
