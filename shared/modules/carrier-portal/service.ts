import { carrierOf, type Principal } from '../../auth/principal.js';
import { ConflictError } from '../../http/errors.js';
import type { LoadTypeService } from '../appointments/load-type-service.js';
import type { CarrierService } from '../carriers/service.js';
import type { YardService } from '../yards/service.js';
import type { CarrierPortalContextT } from './schema.js';

/** The names a carrier user is shown by (the auth module's carrier users). */
export interface CarrierUserNames {
  namesOf(principal: Principal): Promise<{ username: string; displayName: string | null }>;
}

export type CarrierPortalDeps = {
  carriers: Pick<CarrierService, 'getRow'>;
  yards: Pick<YardService, 'getRow'>;
  loadTypes: Pick<LoadTypeService, 'carrierBookableYardIds'>;
  users: CarrierUserNames;
  /**
   * Whether carrier users are served here: the cloud and a standalone edge. An edge linked to a
   * cloud holds no carrier users (they are never synced) and answers 409 cloud-owned.
   */
  here: boolean;
};

/**
 * What the carrier portal needs before its first screen (docs/api.md "Carrier users, email,
 * webhooks"): who is signed in, for which carrier, and the yards it can book, by name. A carrier
 * user may not read /api/yard (yard inventory), so the yards it books come from here.
 */
export class CarrierPortalService {
  constructor(private readonly deps: CarrierPortalDeps) {}

  /** 409 cloud-owned at an edge linked to a cloud, before anything is read. */
  assertHere(): void {
    if (!this.deps.here) {
      throw new ConflictError(
        'cloud-owned',
        'Carrier users sign in at the cloud for a site linked to it. Use the cloud’s carrier portal.',
      );
    }
  }

  async context(principal: Principal): Promise<CarrierPortalContextT> {
    this.assertHere();
    // The route admits carrier users only; carrierOf refuses a carrier login without its carrier.
    const carrierId = carrierOf(principal) ?? '';
    const carrier = await this.deps.carriers.getRow(carrierId);
    const yards = [];
    for (const id of await this.deps.loadTypes.carrierBookableYardIds(principal)) {
      const yard = await this.deps.yards.getRow(id);
      yards.push({ id: yard.id, name: yard.name, timeZone: yard.timeZone });
    }
    yards.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return {
      carrier: { id: carrier.id, name: carrier.name, scac: carrier.scac },
      user: { id: principal.id, ...(await this.deps.users.namesOf(principal)) },
      yards,
    };
  }
}
