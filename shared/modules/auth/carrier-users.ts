import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { assertManages, assertMayGrant, type ExistingYards } from './admin-scope.js';
import type { CarrierUserRepo, CarrierUserRow } from './carrier-user-repo.js';
import type { Logins } from './logins.js';
import { carrierUserOut, parseScope } from './out.js';
import type { AuthRepo } from './repo.js';
import type { UserOutT } from './schema.js';
import type { Sessions } from './sessions.js';

/** Whether a carrier exists: the carriers module answers (CarrierService.getRow, 404 when absent). */
export interface KnownCarriers {
  getRow(id: string): Promise<unknown>;
}

export type CarrierUserAdminDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  repo: AuthRepo;
  carrierUsers: CarrierUserRepo;
  yards: ExistingYards;
  carriers: KnownCarriers;
  logins: Logins;
  sessions: Sessions;
};

export interface NewCarrierUser {
  username: string;
  displayName?: string | undefined;
  carrierId: string;
  yardIds?: string[] | null | undefined;
  password: string;
}

export interface CarrierUserPatch {
  displayName?: string | null | undefined;
  yardIds?: string[] | null | undefined;
  password?: string | undefined;
  disabled?: boolean | undefined;
}

/**
 * Carrier users (docs/api.md "Roles and access"): logins bound to one carrier, administered through
 * the user routes beside staff users, stored in carrier_user, which never syncs to a site.
 */
export class CarrierUserAdmin {
  constructor(private readonly deps: CarrierUserAdminDeps) {}

  async create(actor: Principal, input: NewCarrierUser): Promise<UserOutT> {
    // Users are the cloud's: a linked edge answers cloud-owned, as for staff users.
    this.deps.changes.assertMayWrite('appUser');
    await assertMayGrant(this.deps.yards, actor, input.yardIds ?? null, 'body.yardIds');
    await this.deps.carriers.getRow(input.carrierId);
    const passwordHash = await this.deps.logins.hashSecret(input.password);
    const now = this.deps.clock.now();
    const row = await withFreeUsername(this.deps, input.username, (trx) =>
      this.deps.carrierUsers.insert(trx, {
        id: newId(),
        username: input.username,
        displayName: input.displayName ?? null,
        carrierId: input.carrierId,
        yardIds: input.yardIds ? JSON.stringify(input.yardIds) : null,
        passwordHash,
        createdBy: actor.id,
        createdAt: now,
        updatedAt: now,
      }),
    );
    return carrierUserOut(row);
  }

  /** The row, if the actor administers it (else 404, as a user outside its scope). */
  async manageable(actor: Principal, id: string): Promise<CarrierUserRow | undefined> {
    const row = await this.deps.carrierUsers.byId(id);
    if (row) assertManages(actor, parseScope(row.yardIds), 'User', id);
    return row;
  }

  async update(
    actor: Principal,
    current: CarrierUserRow,
    patch: CarrierUserPatch,
    expectedVersion?: number,
  ): Promise<UserOutT> {
    this.deps.changes.assertMayWrite('appUser');
    if (patch.yardIds !== undefined)
      await assertMayGrant(this.deps.yards, actor, patch.yardIds, 'body.yardIds');
    if (expectedVersion !== undefined && expectedVersion !== current.version)
      throw new PreconditionFailedError(current.version);
    const passwordHash = patch.password ? await this.deps.logins.hashSecret(patch.password) : undefined;
    const row = await this.deps.carrierUsers.update(
      current.id,
      {
        ...(patch.displayName !== undefined ? { displayName: patch.displayName } : {}),
        ...(patch.yardIds !== undefined
          ? { yardIds: patch.yardIds ? JSON.stringify(patch.yardIds) : null }
          : {}),
        ...(passwordHash ? { passwordHash } : {}),
        ...(patch.disabled !== undefined ? { disabled: patch.disabled ? 1 : 0 } : {}),
      },
      this.deps.clock.now(),
      current.version,
    );
    if (!row) {
      // Changed between the read and the write (another admin): as a stale If-Match.
      const now = await this.deps.carrierUsers.byId(current.id);
      if (!now) throw new NotFoundError('User', current.id);
      throw new PreconditionFailedError(now.version);
    }
    if (patch.disabled || patch.password || patch.yardIds !== undefined)
      await this.deps.sessions.revokeSessionsOf('user', current.id);
    return carrierUserOut(row);
  }
}

/**
 * Runs `insert` when no staff or carrier user has `username` (case-blind), under the usernames lock
 * (CarrierUserRepo.lockUsernames): a name is one login, whichever table holds it. 409 `duplicate`.
 */
export async function withFreeUsername<T>(
  deps: Pick<CoreParts, 'kysely'> & { repo: AuthRepo; carrierUsers: CarrierUserRepo },
  username: string,
  insert: (trx: CoreParts['kysely']) => Promise<T>,
): Promise<T> {
  return deps.kysely.transaction().execute(async (trx) => {
    await deps.carrierUsers.lockUsernames(trx);
    const taken =
      (await deps.repo.withDb(trx).userByUsername(username)) ??
      (await deps.carrierUsers.withDb(trx).byUsername(username));
    if (taken) throw new ConflictError('duplicate', `A user named ${username} already exists.`);
    return insert(trx);
  });
}
