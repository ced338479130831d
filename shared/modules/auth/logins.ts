import { HashGate } from '../../auth/hash-gate.js';
import { hashSecret, verifySecret } from '../../auth/secrets.js';
import type { CoreParts } from '../../core-parts.js';
import { UnauthenticatedError } from '../../http/errors.js';
import type { CarrierUserRepo } from './carrier-user-repo.js';
import type { AuthRepo } from './repo.js';
import type { DriverCredentials, Sessions } from './sessions.js';

// A fixed hash to verify against when the username is unknown, so timing does not reveal which names exist.
let dummyHash: Promise<string> | undefined;

export type LoginDeps = Pick<CoreParts, 'config'> & {
  repo: AuthRepo;
  carrierUsers: CarrierUserRepo;
  driverCredentials: DriverCredentials;
  sessions: Sessions;
};

/** Staff login (username and password) and driver login (code and PIN), with bounded hashing. */
export class Logins {
  private readonly hashing: HashGate;

  constructor(private readonly deps: LoginDeps) {
    this.hashing = new HashGate(deps.config.auth.hashConcurrency, deps.config.auth.hashQueue);
  }

  /** Staff and carrier users alike (a username is one login across both: carrier-users.ts). */
  async login(username: string, password: string) {
    const user =
      (await this.deps.repo.userByUsername(username)) ?? (await this.deps.carrierUsers.byUsername(username));
    const stored = user?.passwordHash ?? (await dummy());
    const ok = await this.hashing.run(() => verifySecret(password, stored));
    if (!user || !ok || user.disabled)
      throw new UnauthenticatedError('Wrong username or password, or the user is disabled.');
    return this.deps.sessions.issueToken('user', user.id, this.deps.config.auth.staffTokenTtlHours);
  }

  async driverLogin(driverCode: string, pin: string) {
    const driver = await this.deps.driverCredentials.byCode(driverCode);
    const stored = driver?.pinHash ?? (await dummy());
    const ok = await this.hashing.run(() => verifySecret(pin, stored));
    if (!driver || !ok || driver.status !== 'active' || driver.kind !== 'yard') {
      throw new UnauthenticatedError('Wrong driver code or PIN, or the driver is blocked.');
    }
    return this.deps.sessions.issueToken('driver', driver.id, this.deps.config.auth.driverTokenTtlHours);
  }

  /** Hashes a password or PIN within the bound on concurrent hashing (503 server-busy past it). */
  hashSecret(secret: string): Promise<string> {
    return this.hashing.run(() => hashSecret(secret));
  }
}

function dummy(): Promise<string> {
  dummyHash ??= hashSecret('not-a-real-password');
  return dummyHash;
}
