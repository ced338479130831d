import type { Principal } from '../../auth/principal.js';
import { newPassword } from '../../auth/secrets.js';
import type { CoreParts } from '../../core-parts.js';
import { isUniqueViolation } from '../../db/sql-helpers.js';
import type { UserRole } from '../../enums.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { assertManages, assertMayGrant, type ExistingYards } from './admin-scope.js';
import type { CarrierUserRepo } from './carrier-user-repo.js';
import { CarrierUserAdmin, type KnownCarriers, withFreeUsername } from './carrier-users.js';
import type { Logins } from './logins.js';
import { carrierUserOut, parseScope, userOut } from './out.js';
import type { AuthRepo, UserRow } from './repo.js';
import type { UserOutT } from './schema.js';
import type { Sessions } from './sessions.js';

export type UserAdminDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'config'> & {
  repo: AuthRepo;
  carrierUsers: CarrierUserRepo;
  yards: ExistingYards;
  carriers: KnownCarriers;
  logins: Logins;
  sessions: Sessions;
};

export interface NewUser {
  username: string;
  displayName?: string | undefined;
  role: UserRole;
  /** Required for role carrier, absent otherwise (the schema's rule). */
  carrierId?: string | undefined;
  yardIds?: string[] | null | undefined;
  password: string;
}

export interface UserPatch {
  displayName?: string | null | undefined;
  role?: UserRole | undefined;
  carrierId?: string | undefined;
  yardIds?: string[] | null | undefined;
  password?: string | undefined;
  disabled?: boolean | undefined;
}

type StaffNewUser = NewUser & { role: UserRow['role'] };

const ROLE_KIND_CHANGE =
  'A staff user cannot become a carrier user, nor a carrier user staff or another carrier’s: create a new user instead.';

/**
 * Users an admin administers (admin-scope.ts): staff users (app_user, synced to the sites) and
 * carrier users (carrier_user, the cloud's only: carrier-users.ts), one list and one set of routes.
 * Also the first admin.
 */
export class UserAdmin {
  private readonly carriers: CarrierUserAdmin;

  constructor(private readonly deps: UserAdminDeps) {
    this.carriers = new CarrierUserAdmin(deps);
  }

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

  /**
   * The users the actor administers (admin-scope.ts), staff and carrier users in one page by id:
   * each table gives its next page and the two merge (ids are unique across both, newId).
   */
  async listUsers(
    actor: Principal,
    opts: { limit: number; cursor?: string; role?: UserRole; carrierId?: string },
  ) {
    const after = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const carriersOnly = opts.role === 'carrier' || opts.carrierId !== undefined;
    const staff = carriersOnly
      ? []
      : (
          await this.deps.repo.listUsers({
            within: actor.yardIds,
            limit: opts.limit,
            ...(after ? { after } : {}),
            ...(opts.role ? { role: opts.role } : {}),
          })
        ).map(userOut);
    const carrierUsers =
      opts.role && opts.role !== 'carrier'
        ? []
        : (
            await this.deps.carrierUsers.list({
              within: actor.yardIds,
              limit: opts.limit,
              after,
              carrierId: opts.carrierId,
            })
          ).map(carrierUserOut);
    const merged = [...staff, ...carrierUsers].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return toPage(
      merged.slice(0, opts.limit + 1),
      opts.limit,
      (u) => u,
      (u) => [u.id],
    );
  }

  async getUser(actor: Principal, id: string): Promise<UserOutT> {
    const row = await this.deps.repo.userById(id);
    if (!row) {
      const carrierUser = await this.carriers.manageable(actor, id);
      if (!carrierUser) throw new NotFoundError('User', id);
      return carrierUserOut(carrierUser);
    }
    assertManages(actor, parseScope(row.yardIds), 'User', id);
    return userOut(row);
  }

  async createUser(actor: Principal, input: NewUser): Promise<UserOutT> {
    if (input.role === 'carrier') {
      // The schema requires it (UserCreate); kept for callers other than the route.
      if (!input.carrierId)
        throw new BadRequestError('role-kind-change', 'Give the carrier of a carrier user.');
      return this.carriers.create(actor, { ...input, carrierId: input.carrierId });
    }
    // Ownership first (a linked edge answers cloud-owned), then the scope it may grant.
    this.deps.changes.assertMayWrite('appUser');
    await assertMayGrant(this.deps.yards, actor, input.yardIds ?? null, 'body.yardIds');
    return this.insertUser({ ...input, role: input.role });
  }

  private async insertUser(input: StaffNewUser): Promise<UserOutT> {
    const passwordHash = await this.deps.logins.hashSecret(input.password);
    const now = this.deps.clock.now();
    const row = await withFreeUsername(this.deps, input.username, (trx) =>
      this.deps.changes.insert(trx, 'appUser', {
        id: newId(),
        username: input.username,
        displayName: input.displayName ?? null,
        role: input.role,
        yardIds: input.yardIds ? JSON.stringify(input.yardIds) : null,
        passwordHash,
        disabled: 0,
        createdAt: now,
        updatedAt: now,
      }),
    );
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
    if (!current) {
      const carrierUser = await this.carriers.manageable(actor, id);
      if (!carrierUser) throw new NotFoundError('User', id);
      if (
        (patch.role && patch.role !== 'carrier') ||
        (patch.carrierId && patch.carrierId !== carrierUser.carrierId)
      )
        throw new BadRequestError('role-kind-change', ROLE_KIND_CHANGE);
      return this.carriers.update(actor, carrierUser, patch, expectedVersion);
    }
    assertManages(actor, parseScope(current.yardIds), 'User', id);
    if (patch.role === 'carrier' || patch.carrierId !== undefined)
      throw new BadRequestError('role-kind-change', ROLE_KIND_CHANGE);
    const role = patch.role as UserRow['role'] | undefined;
    if (patch.yardIds !== undefined)
      await assertMayGrant(this.deps.yards, actor, patch.yardIds, 'body.yardIds');
    const passwordHash = patch.password ? await this.deps.logins.hashSecret(patch.password) : undefined;
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'appUser',
      id,
      {
        ...(patch.displayName !== undefined ? { displayName: patch.displayName } : {}),
        ...(role ? { role } : {}),
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
