import { api, call, type Schemas } from '../../common/api/client';

export type Hit = Schemas['SearchHit'];

/** Search everywhere: the best matches for what was typed (trailers, trucks, drivers, carriers). */
export async function searchEverywhere(q: string): Promise<Hit[]> {
  const page = await call(api.GET('/api/search', { params: { query: { q, limit: 12 } } }));
  return page.items;
}
