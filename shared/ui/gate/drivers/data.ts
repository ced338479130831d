import { api, call, type Schemas } from '../../common/api/client';

/** Registers a walk-in driver at the gate. */
export function registerDriver(body: Schemas['DriverCreate']): Promise<Schemas['Driver']> {
  return call(api.POST('/api/driver', { body }));
}

/** The drivers whose name, phone or licence contains what was typed; the carriers' drivers when nothing was. */
export async function findDrivers(q: string): Promise<Schemas['Driver'][]> {
  if (q) {
    const found = await call(api.GET('/api/driver/search', { params: { query: { q, limit: 30 } } }));
    return found.items.map((i) => i.driver);
  }
  const page = await call(api.GET('/api/driver', { params: { query: { kind: 'carrier', limit: 30 } } }));
  return page.items;
}
