import { timingSafeEqual } from 'node:crypto';
import { HashGate } from '../../auth/hash-gate.js';
import type { Principal } from '../../auth/principal.js';
import { hashSecret, newPassword, newToken, sha256Hex, verifySecret } from '../../auth/secrets.js';
import { toIso } from '../../clock.js';
import type { Core } from '../../core.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { AppError, ConflictError, NotFoundError, UnauthenticatedError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { assertManages, assertMayGrant } from './admin-scope.js';
import { LiveSessions } from './live-sessions.js';
import { apiKeyOut, parseScope, principalOut, userOut } from './out.js';
import { type ApiKeyRow, AuthRepo, driverByCode, driverById, type UserRow } from './repo.js';
import type { UserOutT } from './schema.js';

const PRINCIPAL_CACHE_MS = 5_000;
// A fixed hash to verify against when the username is unknown, so timing does not reveal which names exist.
let dummyHash: Promise<string> | undefined;

export class AuthService {
  private readonly repo: AuthRepo;
  /** token hash -> principal, for a few seconds: saves two queries per request. Cleared on local revocation. */
  private readonly cache = new Map<string, { principal: Principal; until: number }>();
  /** Open event streams: ended here when their credential is revoked or their principal changes. */
  readonly live = new LiveSessions();
  private readonly hashing: HashGate;

  constructor(private readonly core: Core) {
    this.repo = new AuthRepo(core.kysely);
    this.hashing = new HashGate(core.config.auth.hashConcurrency, core.config.auth.hashQueue);
    // A key revoked at the cloud arrives by sync (users' changes call revokeSessionsOf): check the
    // open streams of API keys against the database again.
    core.bus.on('sync.applied', (event) => {
      if (event.yardId || !event.data.entities?.api_key) return;
      this.live
        .recheck(
          (p) => this.isCurrent(p),
          (p) => p.kind === 'api-key',
        )
        .catch((err: unknown) => {
          core.log.error({ err }, 'checking open event streams after a synced API key change failed');
        });
    });
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
    if ((await this.repo.countUsers()) > 0) return { created: false };
    if (!this.core.changes.mayWrite('appUser')) return { created: false, awaitingSync: true };
    const username = this.core.config.adminUser;
    const password = this.core.config.adminPassword ?? newPassword();
    await this.insertUser({ username, role: 'admin', password, displayName: 'Administrator' });
    return {
      created: true,
      username,
      ...(this.core.config.adminPassword ? {} : { generatedPassword: password }),
    };
  }

  async login(username: string, password: string) {
    const user = await this.repo.userByUsername(username);
    const stored = user?.passwordHash ?? (await this.dummy());
    const ok = await this.hashing.run(() => verifySecret(password, stored));
    if (!user || !ok || user.disabled)
      throw new UnauthenticatedError('Wrong username or password, or the user is disabled.');
    return this.issueToken('user', user.id, this.core.config.auth.staffTokenTtlHours);
  }

  async driverLogin(driverCode: string, pin: string) {
    const driver = await driverByCode(this.core.kysely, driverCode);
    const stored = driver?.pinHash ?? (await this.dummy());
    const ok = await this.hashing.run(() => verifySecret(pin, stored));
    if (!driver || !ok || driver.status !== 'active' || driver.kind !== 'yard') {
      throw new UnauthenticatedError('Wrong driver code or PIN, or the driver is blocked.');
    }
    return this.issueToken('driver', driver.id, this.core.config.auth.driverTokenTtlHours);
  }

  async logout(principal: Principal): Promise<void> {
    if (!principal.tokenHash) return; // API keys are revoked by an admin, not by logout
    await this.repo.revokeToken(principal.tokenHash, this.core.clock.now());
    this.cache.delete(principal.tokenHash);
    this.live.end((p) => p.tokenHash === principal.tokenHash, 'logged-out');
  }

  /**
   * Whether a principal resolved earlier still stands, read from the database (no cache): its token
   * unrevoked and unexpired, or its key unrevoked; its user or driver active, with the same role
   * and yard scope. Open streams are checked with it.
   */
  async isCurrent(principal: Principal): Promise<boolean> {
    if (principal.kind === 'api-key') {
      const row = await this.repo.apiKeyById(principal.id);
      return row !== undefined && row.revokedAt === null;
    }
    if (!principal.tokenHash) return false;
    const token = await this.repo.tokenByHash(principal.tokenHash);
    if (!token || token.revokedAt !== null || token.expiresAt <= this.core.clock.now()) return false;
    const now = await this.principalOf(principal.kind, principal.id, principal.tokenHash);
    return (
      now !== null &&
      now.role === principal.role &&
      JSON.stringify(now.yardIds) === JSON.stringify(principal.yardIds)
    );
  }

  /** The principal behind an Authorization / X-Api-Key header value, or null if it is not valid now. */
  async resolveBearer(token: string): Promise<Principal | null> {
    if (token.startsWith('yk.')) return this.resolveApiKey(token);
    const tokenHash = sha256Hex(token);
    const now = this.core.clock.now();
    const cached = this.cache.get(tokenHash);
    if (cached && cached.until > now) return cached.principal;
    const row = await this.repo.tokenByHash(tokenHash);
    if (!row || row.revokedAt !== null || row.expiresAt <= now) return null;
    const principal = await this.principalOf(row.principalKind, row.principalId, tokenHash);
    // Never cached past the token's own expiry: an expired token is refused from its expiresAt on.
    if (principal) {
      this.cache.set(tokenHash, { principal, until: Math.min(now + PRINCIPAL_CACHE_MS, row.expiresAt) });
    }
    return principal;
  }

  async resolveApiKey(key: string): Promise<Principal | null> {
    const m = /^yk\.([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/.exec(key);
    if (!m) return null;
    const row = await this.repo.apiKeyById(m[1]!);
    if (!row || row.revokedAt !== null) return null;
    const expected = Buffer.from(row.secretHash, 'hex');
    const actual = Buffer.from(sha256Hex(m[2]!), 'hex');
    if (!timingSafeEqual(expected, actual)) return null;
    return { kind: 'api-key', id: row.id, name: row.name, role: row.role, yardIds: parseScope(row.yardIds) };
  }

  // --- users ---

  /** The users the actor administers (admin-scope.ts). */
  async listUsers(actor: Principal, opts: { limit: number; cursor?: string; role?: string }) {
    const after = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const rows = await this.repo.listUsers({
      within: actor.yardIds,
      limit: opts.limit,
      ...(after ? { after } : {}),
      ...(opts.role ? { role: opts.role } : {}),
    });
    return toPage(rows, opts.limit, userOut, (r) => [r.id]);
  }

  async getUser(actor: Principal, id: string): Promise<UserOutT> {
    const row = await this.repo.userById(id);
    if (!row) throw new NotFoundError('User', id);
    assertManages(actor, parseScope(row.yardIds), 'User', id);
    return userOut(row);
  }

  async createUser(actor: Principal, input: NewUser): Promise<UserOutT> {
    // Ownership first (a linked edge answers cloud-owned), then the scope it may grant.
    this.core.changes.assertMayWrite('appUser');
    await assertMayGrant(this.core.kysely, actor, input.yardIds ?? null, 'body.yardIds');
    return this.insertUser(input);
  }

  private async insertUser(input: NewUser): Promise<UserOutT> {
    if (await this.repo.userByUsername(input.username)) {
      throw new ConflictError('duplicate', `A user named ${input.username} already exists.`);
    }
    const now = this.core.clock.now();
    const row = await this.core.changes.insert(this.core.kysely, 'appUser', {
      id: newId(),
      username: input.username,
      displayName: input.displayName ?? null,
      role: input.role,
      yardIds: input.yardIds ? JSON.stringify(input.yardIds) : null,
      passwordHash: await this.hashSecret(input.password),
      disabled: 0,
      createdAt: now,
      updatedAt: now,
    });
    return userOut(row);
  }

  async updateUser(
    actor: Principal,
    id: string,
    patch: {
      displayName?: string | null | undefined;
      role?: UserRow['role'] | undefined;
      yardIds?: string[] | null | undefined;
      password?: string | undefined;
      disabled?: boolean | undefined;
    },
    expectedVersion?: number,
  ): Promise<UserOutT> {
    // Before hashing a new password: a refused write costs nothing.
    this.core.changes.assertMayWrite('appUser');
    const current = await this.repo.userById(id);
    if (!current) throw new NotFoundError('User', id);
    assertManages(actor, parseScope(current.yardIds), 'User', id);
    if (patch.yardIds !== undefined)
      await assertMayGrant(this.core.kysely, actor, patch.yardIds, 'body.yardIds');
    const passwordHash = patch.password ? await this.hashSecret(patch.password) : undefined;
    const row = await this.core.changes.update(
      this.core.kysely,
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
      await this.revokeSessionsOf('user', id);
    return userOut(row);
  }

  /** Users are disabled, not deleted: movements and audits keep pointing at them. */
  async disableUser(id: string, actor: Principal): Promise<UserOutT> {
    this.core.changes.assertMayWrite('appUser');
    if (actor.kind === 'user' && actor.id === id) {
      throw new ConflictError('cannot-disable-self', 'You cannot disable your own user; ask another admin.');
    }
    return this.updateUser(actor, id, { disabled: true });
  }

  /** Revokes every token of a user or driver and ends their open streams (also on a synced sign-out: reactions.ts). */
  async revokeSessionsOf(kind: 'user' | 'driver', id: string): Promise<void> {
    await this.repo.revokeTokensOf(kind, id, this.core.clock.now());
    for (const [hash, entry] of this.cache) if (entry.principal.id === id) this.cache.delete(hash);
    this.live.end((p) => p.kind === kind && p.id === id, 'signed-out');
  }

  // --- API keys ---

  /** A page of the keys the actor administers (admin-scope.ts). */
  async listApiKeys(actor: Principal, opts: { limit: number; cursor?: string | undefined }) {
    const after = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const rows = await this.repo.listApiKeys({ within: actor.yardIds, limit: opts.limit, after });
    return toPage(rows, opts.limit, apiKeyOut, (r) => [r.id]);
  }

  async createApiKey(
    input: { name: string; role: ApiKeyRow['role']; yardIds?: string[] | null | undefined },
    actor: Principal,
  ) {
    this.core.changes.assertMayWrite('apiKey');
    await assertMayGrant(this.core.kysely, actor, input.yardIds ?? null, 'body.yardIds');
    const id = newId();
    const secret = newToken();
    const now = this.core.clock.now();
    const row = await this.core.changes.insert(this.core.kysely, 'apiKey', {
      id,
      name: input.name,
      role: input.role,
      yardIds: input.yardIds ? JSON.stringify(input.yardIds) : null,
      secretHash: sha256Hex(secret),
      createdBy: actor.name,
      createdAt: now,
      updatedAt: now,
      revokedAt: null,
    });
    return { ...apiKeyOut(row), key: `yk.${id}.${secret}` };
  }

  /** An already revoked key is left as is (204); at a linked edge every revoke is cloud-owned. */
  async revokeApiKey(id: string, actor: Principal): Promise<void> {
    this.core.changes.assertMayWrite('apiKey');
    const row = await this.repo.apiKeyById(id);
    if (!row) throw new NotFoundError('API key', id);
    assertManages(actor, parseScope(row.yardIds), 'API key', id);
    if (row.revokedAt !== null) return;
    await this.core.changes.update(this.core.kysely, 'apiKey', id, { revokedAt: this.core.clock.now() });
    this.live.end((p) => p.kind === 'api-key' && p.id === id, 'credential-revoked');
  }

  // --- internals ---

  private async issueToken(kind: 'user' | 'driver', principalId: string, ttlHours: number) {
    const token = newToken();
    const now = this.core.clock.now();
    const expiresAt = now + ttlHours * 3_600_000;
    await this.repo.insertToken({
      tokenHash: sha256Hex(token),
      principalKind: kind,
      principalId,
      createdAt: now,
      expiresAt,
    });
    const principal = await this.principalOf(kind, principalId, sha256Hex(token));
    if (!principal)
      throw new AppError(500, 'internal-error', 'Internal server error', 'Principal vanished during login.');
    return {
      token,
      tokenType: 'Bearer' as const,
      expiresAt: toIso(expiresAt),
      principal: principalOut(principal),
    };
  }

  private async principalOf(
    kind: 'user' | 'driver',
    id: string,
    tokenHash: string,
  ): Promise<Principal | null> {
    if (kind === 'user') {
      const user = await this.repo.userById(id);
      if (!user || user.disabled) return null;
      return {
        kind: 'user',
        id,
        name: user.username,
        role: user.role,
        yardIds: parseScope(user.yardIds),
        tokenHash,
      };
    }
    const driver = await driverById(this.core.kysely, id);
    if (driver?.status !== 'active') return null;
    return {
      kind: 'driver',
      id,
      name: `${driver.firstName} ${driver.lastName}`,
      role: 'driver',
      yardIds: null,
      driverId: id,
      tokenHash,
    };
  }

  /** Hashes a password or PIN within the bound on concurrent hashing (503 server-busy past it). */
  hashSecret(secret: string): Promise<string> {
    return this.hashing.run(() => hashSecret(secret));
  }

  private dummy(): Promise<string> {
    dummyHash ??= hashSecret('not-a-real-password');
    return dummyHash;
  }
}

interface NewUser {
  username: string;
  displayName?: string | undefined;
  role: UserRow['role'];
  yardIds?: string[] | null | undefined;
  password: string;
}
