import { api, call, type Schemas } from '../../common/api/client';
import type { MovementFilter, Unit } from './search';

/**
 * What the movement log and the visit history read: the screens' one door to the API (a component
 * shows, this module asks).
 */

/** A page of the yard's movements, newest first, as the filters ask. */
export function loadMovements(yardId: string, f: MovementFilter, limit: number, cursor?: string) {
  return call(
    api.GET('/api/movement', { params: { query: { yardId, limit, ...f, ...(cursor ? { cursor } : {}) } } }),
  );
}

/** A page of the yard's closed visits, newest arrival first. */
export function loadClosedVisits(yardId: string, cursor?: string) {
  return call(
    api.GET('/api/visit', {
      params: { query: { yardId, open: false, limit: 50, ...(cursor ? { cursor } : {}) } },
    }),
  );
}

/** The gate actuation a movement asked for: looked up in its gate's recent audit. */
export async function actuationOf(m: Schemas['Movement']): Promise<Schemas['GateActuation'] | null> {
  if (!m.actuationId || !m.gateId) return null;
  const page = await call(
    api.GET('/api/hardware/gate/{gateId}/actuations', {
      params: { path: { gateId: m.gateId }, query: { limit: 100 } },
    }),
  );
  return page.items.find((a) => a.id === m.actuationId) ?? null;
}

/** Finds the trailers (number or plate contains) and the truck (exact plate) the clerk typed. */
export async function findUnits(text: string): Promise<Unit[]> {
  const [trailers, trucks] = await Promise.all([
    call(api.GET('/api/trailer', { params: { query: { q: text, limit: 20 } } })),
    call(api.GET('/api/truck', { params: { query: { plate: text, limit: 10 } } })).catch(() => ({
      items: [],
    })),
  ]);
  return [
    ...trailers.items.map(
      (t): Unit => ({ id: t.id, kind: 'trailer', label: `Trailer ${t.number}`, key: t.number }),
    ),
    ...trucks.items.map(
      (t): Unit => ({ id: t.id, kind: 'truck', label: `Truck ${t.plate}`, key: t.plate ?? '' }),
    ),
  ];
}

/** Records a check-in or a check-out (and, when asked, opens the gate and takes its pictures). */
export function recordMovement(body: Schemas['MovementCreate']) {
  return call(api.POST('/api/movement', { body }));
}
