import type { Principal } from '../../auth/principal.js';
import { assertCanSeeYard, canSeeYard } from '../../auth/principal.js';

/**
 * Units (trucks, trailers) outside any yard are visible to everyone, since gate staff must find
 * an arriving unit; a unit inside a yard is visible only to principals who can see that yard.
 */
export function canSeeUnit(principal: Principal, unitYardId: string | null): boolean {
  return unitYardId === null || canSeeYard(principal, unitYardId);
}

/** A list filtered by a yard the principal may not see is refused rather than silently empty. */
export function assertYardFilterAllowed(principal: Principal, yardId: string | undefined): void {
  if (yardId !== undefined) assertCanSeeYard(principal, yardId);
}
