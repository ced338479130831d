import { ROLES as ROLE_LIST, type Role, STAFF_ROLES } from '../enums.js';
import { ForbiddenError, NotFoundError } from '../http/errors.js';

export type { Role };

export const ROLES: readonly Role[] = ROLE_LIST;
/** "staff" (docs/api.md "Roles and access"): every role but driver and carrier. */
export const STAFF: readonly Role[] = STAFF_ROLES;
/** "C" in the route table: a carrier user, for its own carrier only. */
export const CARRIER: readonly Role[] = ['carrier'];

/** Who is calling: a staff user, a yard driver, or a machine client with an API key. */
export interface Principal {
  kind: 'user' | 'driver' | 'api-key';
  id: string;
  name: string;
  role: Role;
  /** Yards this principal may see; null = every yard. */
  yardIds: string[] | null;
  /** Set for drivers: their driver record id (same as id). */
  driverId?: string;
  /** Set for carrier users: the one carrier whose records they see. */
  carrierId?: string;
  /** Hash of the bearer token used, so logout can revoke exactly it. */
  tokenHash?: string;
}

export function canSeeYard(
  principal: Pick<Principal, 'yardIds'>,
  yardId: string | null | undefined,
): boolean {
  if (principal.yardIds === null) return true;
  return yardId !== null && yardId !== undefined && principal.yardIds.includes(yardId);
}

/**
 * The one yard-scope rule for a yard the caller names (a `yardId` in the query or body, or the yard
 * of a gate it acts on): outside its scope is 403 `forbidden`. A record fetched by id whose yard is
 * outside the scope answers 404 instead (see `visibleOr404`), so ids do not leak what exists elsewhere.
 * `at` prefixes the message for an item of a batch (e.g. `tasks[2]`).
 */
export function assertCanSeeYard(principal: Principal, yardId: string | null | undefined, at?: string): void {
  if (!canSeeYard(principal, yardId)) {
    throw new ForbiddenError(`${at ? `${at}: ` : ''}Yard ${yardId} is outside your yard scope.`);
  }
}

/**
 * The carrier a principal is bound to, or null for staff, drivers and API keys. A carrier user's
 * every read and write is narrowed to it (docs/domain.md "Carriers and integrators").
 */
export function carrierOf(principal: Pick<Principal, 'role' | 'carrierId'>): string | null {
  if (principal.role !== 'carrier') return null;
  // A carrier principal without its carrier would see everything: refuse rather than widen.
  if (!principal.carrierId) throw new ForbiddenError('This carrier login is not bound to a carrier.');
  return principal.carrierId;
}

/**
 * A record looked up by id, as a carrier user sees it: absent, of another carrier, or in a yard out
 * of scope is 404 (as if it did not exist). Staff pass through to the yard rule alone.
 */
export function visibleToCarrierOr404<T extends { yardId: string | null; carrierId: string | null }>(
  principal: Principal,
  row: T | undefined,
  what: string,
  id: string,
): T {
  const visible = visibleOr404(principal, row, what, id);
  const carrierId = carrierOf(principal);
  if (carrierId !== null && visible.carrierId !== carrierId) throw new NotFoundError(what, id);
  return visible;
}

/** A record looked up by id: absent, or in a yard outside the scope, is 404 (as if it did not exist). */
export function visibleOr404<T extends { yardId: string | null }>(
  principal: Principal,
  row: T | undefined,
  what: string,
  id: string,
): T {
  if (!row || !canSeeYard(principal, row.yardId)) throw new NotFoundError(what, id);
  return row;
}

/**
 * The yards a list may show: the asked one (403 if outside the scope), else the principal's scope
 * (null = every yard).
 */
export function yardFilter(principal: Principal, yardId: string | null | undefined): string[] | null {
  if (yardId !== undefined && yardId !== null && yardId !== '') {
    assertCanSeeYard(principal, yardId);
    return [yardId];
  }
  return principal.yardIds;
}

/**
 * A yard scope as the list of a SQL `IN`: an empty scope matches no yard (`IN ()` is not valid
 * SQL, and '' is no yard's id). Repos filter with `where('yardId', 'in', scopeInList(ids))`.
 */
export function scopeInList(yardIds: readonly string[]): string[] {
  return yardIds.length > 0 ? [...yardIds] : [''];
}
