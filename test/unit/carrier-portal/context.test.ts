import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/principal.js';
import { CarrierPortalService } from '../../../shared/modules/carrier-portal/service.js';

/** GET /api/carrier-portal/context where carrier users are not served (docs/api.md "Appointments"). */
describe('carrier portal context', () => {
  const carrier: Principal = {
    kind: 'user',
    id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e70',
    name: 'prairie.dispatch',
    role: 'carrier',
    carrierId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e62',
    yardIds: null,
  };
  const untouchable = () => {
    throw new Error('nothing may be read');
  };
  const deps = {
    carriers: { getRow: untouchable },
    yards: { getRow: untouchable },
    loadTypes: { carrierBookableYardIds: untouchable },
    users: { namesOf: untouchable },
  };

  it('an edge linked to a cloud answers 409 cloud-owned before anything is read', async () => {
    const portal = new CarrierPortalService({ ...deps, here: false });
    await expect(portal.context(carrier)).rejects.toMatchObject({ status: 409, code: 'cloud-owned' });
  });

  it('where carrier users live it reads the carrier, the user and the bookable yards by name', async () => {
    const portal = new CarrierPortalService({
      here: true,
      carriers: { getRow: async (id: string) => ({ id, name: 'Prairie Freight', scac: 'PRFL' }) as never },
      yards: {
        getRow: async (id: string) =>
          ({ id, name: id === 'y1' ? 'South' : 'North', timeZone: 'America/Chicago' }) as never,
      },
      loadTypes: { carrierBookableYardIds: async () => ['y1', 'y2'] },
      users: { namesOf: async () => ({ username: 'prairie.dispatch', displayName: 'Dispatch' }) },
    });
    expect(await portal.context(carrier)).toEqual({
      carrier: { id: carrier.carrierId, name: 'Prairie Freight', scac: 'PRFL' },
      user: { id: carrier.id, username: 'prairie.dispatch', displayName: 'Dispatch' },
      yards: [
        { id: 'y2', name: 'North', timeZone: 'America/Chicago' },
        { id: 'y1', name: 'South', timeZone: 'America/Chicago' },
      ],
    });
  });
});
