import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { ExistingYards } from './admin-scope.js';
import { ApiKeyAdmin } from './api-keys.js';
import { CarrierUserRepo } from './carrier-user-repo.js';
import type { KnownCarriers } from './carrier-users.js';
import type { LiveSessions } from './live-sessions.js';
import { LoginDevices, newDeviceKey } from './login-devices.js';
import { Logins } from './logins.js';
import { type ApiKeyRow, AuthRepo } from './repo.js';
import type { UserOutT } from './schema.js';
import { type DriverCredentials, Sessions } from './sessions.js';
import { type NewUser, UserAdmin, type UserPatch } from './users.js';

export type AuthDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'config' | 'bus' | 'log'> & {
  /** Which yards exist, for the scope an admin grants (the yards service). */
  yards: ExistingYards;
  /** Whether a carrier exists, for a new carrier user (the carriers service). */
  carriers: KnownCarriers;
  /** Drivers' codes, PIN hashes and status (the drivers module's records). */
  driverCredentials: DriverCredentials;
};

/**
 * The auth module's one service, in parts: `sessions` (tokens, API keys as credentials,
 * principals, revocation and open streams), `logins` (staff and driver login, bounded hashing),
 * `devices` (login device cookies), `users` and `apiKeys` (what an admin administers). Its methods
 * are the parts' own.
 */
export class AuthService {
  readonly sessions: Sessions;
  readonly logins: Logins;
  readonly users: UserAdmin;
  readonly apiKeys: ApiKeyAdmin;
  /** The login device cookies (trusted devices' own failure budgets: login-devices.ts). */
  readonly devices: LoginDevices;

  constructor(deps: AuthDeps) {
    const repo = new AuthRepo(deps.kysely);
    const carrierUsers = new CarrierUserRepo(deps.kysely);
    this.devices = new LoginDevices({
      key: () => repo.serverSecret('login-device', newDeviceKey, deps.clock.now()),
      clock: deps.clock,
      maxFailures: deps.config.auth.loginAttemptsPerDevice,
    });
    // Each part is typed to the few fields it names; the rest of deps is invisible to it.
    this.sessions = new Sessions({ ...deps, repo, carrierUsers });
    this.logins = new Logins({ ...deps, repo, carrierUsers, sessions: this.sessions });
    this.users = new UserAdmin({ ...deps, repo, carrierUsers, logins: this.logins, sessions: this.sessions });
    this.apiKeys = new ApiKeyAdmin({ ...deps, repo, sessions: this.sessions });
  }

  /** Open event streams: ended when their credential is revoked or their principal changes. */
  get live(): LiveSessions {
    return this.sessions.live;
  }

  // --- sessions and logins ---

  ensureAdmin() {
    return this.users.ensureAdmin();
  }

  login(username: string, password: string) {
    return this.logins.login(username, password);
  }

  driverLogin(driverCode: string, pin: string) {
    return this.logins.driverLogin(driverCode, pin);
  }

  logout(principal: Principal): Promise<void> {
    return this.sessions.logout(principal);
  }

  isCurrent(principal: Principal): Promise<boolean> {
    return this.sessions.isCurrent(principal);
  }

  resolveBearer(token: string): Promise<Principal | null> {
    return this.sessions.resolveBearer(token);
  }

  resolveApiKey(key: string): Promise<Principal | null> {
    return this.sessions.resolveApiKey(key);
  }

  revokeSessionsOf(kind: 'user' | 'driver', id: string): Promise<void> {
    return this.sessions.revokeSessionsOf(kind, id);
  }

  hashSecret(secret: string): Promise<string> {
    return this.logins.hashSecret(secret);
  }

  // --- users ---

  listUsers(actor: Principal, opts: Parameters<UserAdmin['listUsers']>[1]) {
    return this.users.listUsers(actor, opts);
  }

  getUser(actor: Principal, id: string): Promise<UserOutT> {
    return this.users.getUser(actor, id);
  }

  createUser(actor: Principal, input: NewUser): Promise<UserOutT> {
    return this.users.createUser(actor, input);
  }

  updateUser(actor: Principal, id: string, patch: UserPatch, expectedVersion?: number): Promise<UserOutT> {
    return this.users.updateUser(actor, id, patch, expectedVersion);
  }

  disableUser(id: string, actor: Principal): Promise<UserOutT> {
    return this.users.disableUser(id, actor);
  }

  // --- API keys ---

  listApiKeys(actor: Principal, opts: { limit: number; cursor?: string | undefined }) {
    return this.apiKeys.listApiKeys(actor, opts);
  }

  createApiKey(
    input: { name: string; role: ApiKeyRow['role']; yardIds?: string[] | null | undefined },
    actor: Principal,
  ) {
    return this.apiKeys.createApiKey(input, actor);
  }

  revokeApiKey(id: string, actor: Principal): Promise<void> {
    return this.apiKeys.revokeApiKey(id, actor);
  }
}
