import { api, call } from '../../common/api/client';

/**
 * What the check-in form reads besides its type-ahead searches (search.ts): the driver check, the
 * site's rule on it, and the free spots.
 */

/** The admission check of a driver (the same check the movement makes). */
export function checkDriver(driverId: string) {
  return call(api.GET('/api/driver/check', { params: { query: { driverId } } }));
}

/** Whether this site refuses check-ins of drivers the check refuses (setting gate.requireDriverCheck). */
export async function driverCheckRequired(): Promise<boolean> {
  const s = await call(
    api.GET('/api/settings/{name}', { params: { path: { name: 'gate.requireDriverCheck' } } }),
  );
  return s.value !== false;
}

/** The yard's free spots (active, with room, none promised to a yard task). */
export async function loadFreeSpots(yardId: string) {
  const page = await call(
    api.GET('/api/yard/{id}/location', {
      params: { path: { id: yardId }, query: { kind: 'spot', free: true, limit: 200 } },
    }),
  );
  return page.items;
}
