import { timingSafeEqual } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { newToken, sha256Hex } from '../../auth/secrets.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { PartyStatus } from '../../enums.js';
import { AppError } from '../../http/errors.js';
import type { CarrierUserRepo } from './carrier-user-repo.js';
import { LiveSessions } from './live-sessions.js';
import { parseScope, principalOut } from './out.js';
import type { AuthRepo } from './repo.js';

const PRINCIPAL_CACHE_MS = 5_000;

/** The driver fields login and token resolution need; the drivers module owns these records. */
export interface DriverCredential {
  id: string;
  firstName: string;
  lastName: string;
  kind: 'yard' | 'carrier';
  status: PartyStatus;
  pinHash: string | null;
}

/** How auth reads drivers' credentials: handed in by createServices (the drivers module's reads). */
export interface DriverCredentials {
  byCode(driverCode: string): Promise<DriverCredential | undefined>;
  byId(id: string): Promise<DriverCredential | undefined>;
}

export type SessionDeps = Pick<CoreParts, 'clock' | 'bus' | 'log' | 'changes'> & {
  repo: AuthRepo;
  carrierUsers: CarrierUserRepo;
  driverCredentials: DriverCredentials;
};

/**
 * Staff and driver tokens, API keys as credentials, and the principals behind them: issuing,
 * resolving (with a short cache), revoking, and ending the open streams of a revoked credential.
 */
export class Sessions {
  /** token hash -> principal, for a few seconds: saves two queries per request. Cleared on revocation, here or at another node. */
  private readonly cache = new Map<string, { principal: Principal; until: number }>();
  /** Open event streams: ended here when their credential is revoked or their principal changes. */
  readonly live = new LiveSessions();

  constructor(private readonly deps: SessionDeps) {
    // Tokens, users, drivers and keys changed by another cloud node on PostgreSQL (its commits'
    // signals move these tables' generations): cached principals may be revoked or changed.
    deps.changes.generations.watch(['authToken', 'appUser', 'carrierUser', 'driver', 'apiKey'], () =>
      this.cache.clear(),
    );
    // A key revoked at the cloud arrives by sync (users' changes call revokeSessionsOf): check the
    // open streams of API keys against the database again.
    deps.bus.on('sync.applied', (event) => {
      if (event.yardId || !event.data.entities?.api_key) return;
      this.live
        .recheck(
          (p) => this.isCurrent(p),
          (p) => p.kind === 'api-key',
        )
        .catch((err: unknown) => {
          deps.log.error({ err }, 'checking open event streams after a synced API key change failed');
        });
    });
  }

  async logout(principal: Principal): Promise<void> {
    if (!principal.tokenHash) return; // API keys are revoked by an admin, not by logout
    await this.deps.repo.revokeToken(principal.tokenHash, this.deps.clock.now());
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
      const row = await this.deps.repo.apiKeyById(principal.id);
      return row !== undefined && row.revokedAt === null;
    }
    if (!principal.tokenHash) return false;
    const token = await this.deps.repo.tokenByHash(principal.tokenHash);
    if (!token || token.revokedAt !== null || token.expiresAt <= this.deps.clock.now()) return false;
    const now = await this.principalOf(principal.kind, principal.id, principal.tokenHash);
    return (
      now !== null &&
      now.role === principal.role &&
      now.carrierId === principal.carrierId &&
      JSON.stringify(now.yardIds) === JSON.stringify(principal.yardIds)
    );
  }

  /** The principal behind an Authorization / X-Api-Key header value, or null if it is not valid now. */
  async resolveBearer(token: string): Promise<Principal | null> {
    if (token.startsWith('yk.')) return this.resolveApiKey(token);
    const tokenHash = sha256Hex(token);
    const now = this.deps.clock.now();
    const cached = this.cache.get(tokenHash);
    if (cached && cached.until > now) return cached.principal;
    const row = await this.deps.repo.tokenByHash(tokenHash);
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
    const row = await this.deps.repo.apiKeyById(m[1]!);
    if (!row || row.revokedAt !== null) return null;
    const expected = Buffer.from(row.secretHash, 'hex');
    const actual = Buffer.from(sha256Hex(m[2]!), 'hex');
    if (!timingSafeEqual(expected, actual)) return null;
    return { kind: 'api-key', id: row.id, name: row.name, role: row.role, yardIds: parseScope(row.yardIds) };
  }

  /** Revokes every token of a user or driver and ends their open streams (also on a synced sign-out: reactions.ts). */
  async revokeSessionsOf(kind: 'user' | 'driver', id: string): Promise<void> {
    await this.deps.repo.revokeTokensOf(kind, id, this.deps.clock.now());
    for (const [hash, entry] of this.cache) if (entry.principal.id === id) this.cache.delete(hash);
    this.live.end((p) => p.kind === kind && p.id === id, 'signed-out');
  }

  /** A new bearer token for a user or driver whose credentials were checked. */
  async issueToken(kind: 'user' | 'driver', principalId: string, ttlHours: number) {
    const token = newToken();
    const now = this.deps.clock.now();
    const expiresAt = now + ttlHours * 3_600_000;
    await this.deps.repo.insertToken({
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
      const user = await this.deps.repo.userById(id);
      // A carrier user's token is a user token too (auth_token.principal_kind): its row is in
      // carrier_user, with the carrier every read and write of it is narrowed to.
      if (!user) return this.carrierPrincipal(id, tokenHash);
      if (user.disabled) return null;
      return {
        kind: 'user',
        id,
        name: user.username,
        role: user.role,
        yardIds: parseScope(user.yardIds),
        tokenHash,
      };
    }
    const driver = await this.deps.driverCredentials.byId(id);
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

  private async carrierPrincipal(id: string, tokenHash: string): Promise<Principal | null> {
    const user = await this.deps.carrierUsers.byId(id);
    if (!user || user.disabled) return null;
    return {
      kind: 'user',
      id,
      name: user.username,
      role: 'carrier',
      yardIds: parseScope(user.yardIds),
      carrierId: user.carrierId,
      tokenHash,
    };
  }
}
