import { signal } from '@preact/signals';
import { api, call, type Schemas } from '../../common/api/client';
import { duration } from '../../common/time';
import { yards } from '../scope';

type Trailer = Schemas['Trailer'];

/** Location names by id, per yard, loaded once per yard the trailer list shows (all pages of it). */
const names = signal<Record<string, Record<string, string>>>({});
const pending = new Set<string>();

async function loadLocationNames(yardId: string): Promise<void> {
  if (names.value[yardId] || pending.has(yardId)) return;
  pending.add(yardId);
  try {
    const byId: Record<string, string> = {};
    let cursor: string | undefined;
    do {
      const page = await call(
        api.GET('/api/yard/{id}/location', {
          params: { path: { id: yardId }, query: { limit: 500, ...(cursor ? { cursor } : {}) } },
        }),
      );
      for (const l of page.items) byId[l.id] = l.name;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    names.value = { ...names.value, [yardId]: byId };
  } catch {
    // The spot column says "spot not found" for these; the list itself still shows.
  } finally {
    pending.delete(yardId);
  }
}

/** A list of trailers whose rows name spots: the names of their yards' locations load beside it. */
export function withSpotNames<A extends unknown[], R extends { items: Trailer[] }>(
  list: (...args: A) => Promise<R>,
) {
  return async (...args: A): Promise<R> => {
    const page = await list(...args);
    for (const yardId of new Set(page.items.flatMap((t) => (t.yardId ? [t.yardId] : [])))) {
      void loadLocationNames(yardId);
    }
    return page;
  };
}

/** "North yard" (the trailer is in it) or "No". */
export function yardOf(t: Trailer): string {
  if (!t.yardId) return 'No';
  return yards.value.find((y) => y.id === t.yardId)?.name ?? 'Yes';
}

/** The spot, door or zone it stands on; "—" when none. */
export function spotOf(t: Trailer): string {
  if (!t.yardId || !t.locationId) return '—';
  const byId = names.value[t.yardId];
  if (!byId) return '…';
  return byId[t.locationId] ?? 'spot not found';
}

/** How long it has been in its yard ("3 h 20 min"); "—" outside a yard. */
export function dwellOf(t: Trailer, now = Date.now()): string {
  if (!t.yardId || !t.arrivedAt) return '—';
  return duration(now - Date.parse(t.arrivedAt));
}
