import { api, call, type Schemas } from '../../common/api/client';
import { allPages } from '../../common/api/pages';
import { OPEN_TASK_STATUSES } from '../../common/inventory/rows';

export { problemText } from '../../common/api/problem-text';

export interface YardPicture {
  trailers: Schemas['Trailer'][];
  carriers: Schemas['Carrier'][];
  locations: Schemas['Location'][];
  tasks: Schemas['YardTask'][];
}

const limit = 500;

/** What the inventory shows of one yard: the trailers in it, with carriers, places and open tasks. */
export async function loadYardPicture(yardId: string): Promise<YardPicture> {
  const [trailers, carriers, locations, tasks] = await Promise.all([
    allPages((cursor) =>
      call(api.GET('/api/trailer', { params: { query: { yardId, inYard: true, limit, cursor } } })),
    ),
    allPages((cursor) => call(api.GET('/api/carrier', { params: { query: { limit, cursor } } }))),
    allPages((cursor) =>
      call(
        api.GET('/api/yard/{id}/location', { params: { path: { id: yardId }, query: { limit, cursor } } }),
      ),
    ),
    allPages((cursor) =>
      call(
        api.GET('/api/yard-task', {
          params: { query: { yardId, status: [...OPEN_TASK_STATUSES], limit, cursor } },
        }),
      ),
    ),
  ]);
  return { trailers, carriers, locations, tasks };
}

/** The trucks in the yard (a truck can leave on its own). */
export function loadYardTrucks(yardId: string): Promise<Schemas['Truck'][]> {
  return allPages((cursor) =>
    call(api.GET('/api/truck', { params: { query: { yardId, inYard: true, limit, cursor } } })),
  );
}

/** A move request for one trailer: a yard task the drivers see at once. */
export function requestMove(body: Schemas['YardTaskCreate']): Promise<Schemas['YardTask']> {
  // One task in, one task out (the route also takes a batch, answered as a batch).
  return call(api.POST('/api/yard-task', { body })) as Promise<Schemas['YardTask']>;
}

/** Every trailer with exactly this number, in any yard (where-is-it). */
export async function trailersNumbered(number: string): Promise<Schemas['Trailer'][]> {
  const page = await call(api.GET('/api/trailer', { params: { query: { number, limit: 20 } } }));
  return page.items;
}

/** A trailer's last movement, in any yard. */
export async function lastMovementOf(trailerId: string): Promise<Schemas['Movement'] | undefined> {
  const page = await call(api.GET('/api/movement', { params: { query: { trailerId, limit: 1 } } }));
  return page.items[0];
}
