import type { StaffRole } from '../db/tables.js';

export type Role = StaffRole | 'driver';

export const ROLES: readonly Role[] = ['admin', 'dispatcher', 'gate', 'billing', 'viewer', 'driver'];
/** "staff" (docs/api.md "Roles and access"): every role but driver. */
export const STAFF: readonly Role[] = ['admin', 'dispatcher', 'gate', 'billing', 'viewer'];

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
  /** Hash of the bearer token used, so logout can revoke exactly it. */
  tokenHash?: string;
}

export function canSeeYard(principal: Principal, yardId: string | null | undefined): boolean {
  if (principal.yardIds === null) return true;
  return yardId !== null && yardId !== undefined && principal.yardIds.includes(yardId);
}
