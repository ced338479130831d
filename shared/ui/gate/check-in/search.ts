import { api, call, type Schemas } from '../../common/api/client';
import { rankCarriers, rankDrivers, rankTrailers } from '../../common/type-ahead-rank';

/**
 * The type-ahead searches of the check-in: the server finds ("contains"), the ranking orders
 * (type-ahead-rank.ts). `signal` drops the request when the clerk has typed on.
 */
export async function searchTrailers(q: string, signal: AbortSignal): Promise<Schemas['Trailer'][]> {
  const page = await call(api.GET('/api/trailer', { params: { query: { q, limit: 30 } }, signal }));
  return rankTrailers(page.items, q).slice(0, 8);
}

/** Plates are matched whole (the API's rule): a known plate answers its truck, else none (a new truck). */
export async function searchTrucks(q: string, signal: AbortSignal): Promise<Schemas['Truck'][]> {
  if (!/^[A-Za-z0-9\s-]{1,20}$/.test(q)) return [];
  const page = await call(api.GET('/api/truck', { params: { query: { plate: q, limit: 8 } }, signal }));
  return page.items;
}

export async function searchCarriers(q: string, signal: AbortSignal): Promise<Schemas['Carrier'][]> {
  const page = await call(api.GET('/api/carrier', { params: { query: { q, limit: 30 } }, signal }));
  return rankCarriers(page.items, q).slice(0, 8);
}

export async function searchDrivers(q: string, signal: AbortSignal): Promise<Schemas['Driver'][]> {
  const found = await call(api.GET('/api/driver/search', { params: { query: { q, limit: 20 } }, signal }));
  // Ours first; a driver the server found that our ranking cannot place follows in the server's order.
  return rankDrivers(
    found.items.map((i) => i.driver),
    q,
  )
    .concat(found.items.map((i) => i.driver))
    .filter((d, i, all) => all.findIndex((x) => x.id === d.id) === i)
    .slice(0, 8);
}

/** A carrier's label: "Lone Star Logistics (LSLG)". */
export function carrierLabel(c: { name: string; scac: string | null }): string {
  return c.scac ? `${c.name} (${c.scac})` : c.name;
}
