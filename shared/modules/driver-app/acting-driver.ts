import type { Principal } from '../../auth/principal.js';
import { ForbiddenError } from '../../http/errors.js';

/** The driver a principal acts for. Only driver principals have one; ids never come from the request. */
export function driverIdOf(principal: Principal): string {
  if (principal.kind !== 'driver' || !principal.driverId) {
    throw new ForbiddenError('Only a signed-in yard driver may use this operation.');
  }
  return principal.driverId;
}
