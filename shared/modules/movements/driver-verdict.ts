import type { Core } from '../../core.js';
import { NotFoundError } from '../../http/errors.js';
import type { DriverVerdict } from './record.js';

/**
 * The driver check for when the drivers service does not offer checkById: blocked driver,
 * licence expired (by UTC date), or the driver's carrier blocked.
 */
export async function localDriverVerdict(core: Core, driverId: string): Promise<DriverVerdict> {
  const driver = await core.kysely
    .selectFrom('driver')
    .leftJoin('carrier', 'carrier.id', 'driver.carrierId')
    .select(['driver.status', 'driver.licenseExpiresOn', 'carrier.status as carrierStatus'])
    .where('driver.id', '=', driverId)
    .executeTakeFirst();
  if (!driver) throw new NotFoundError('Driver', driverId);
  const today = new Date(core.clock.now()).toISOString().slice(0, 10);
  const reasons: string[] = [];
  if (driver.status === 'blocked') reasons.push('driver-blocked');
  if (driver.licenseExpiresOn && driver.licenseExpiresOn < today) reasons.push('license-expired');
  if (driver.carrierStatus === 'blocked') reasons.push('carrier-blocked');
  return { allowed: reasons.length === 0, reasons };
}
