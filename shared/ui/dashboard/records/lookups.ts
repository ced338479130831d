import { signal } from '@preact/signals';
import { api, call, type Schemas } from '../../common/api/client';
import type { Lookup, Option } from './types';

type Carrier = Schemas['Carrier'];

/**
 * The carriers, for carrier pickers and for names in lists (drivers, trucks, trailers). Loaded on
 * first use and again after a carrier is saved, so a new carrier can be picked at once.
 */
export const carriers = signal<Carrier[] | null>(null);
let pending: Promise<void> | null = null;

export function loadCarriers(force = false): Promise<void> {
  if (pending && !force) return pending;
  pending = call(api.GET('/api/carrier', { params: { query: { limit: 500 } } })).then(
    (page) => {
      carriers.value = page.items;
    },
    () => {
      // Names fall back to ids; the picker says the list could not be loaded.
      carriers.value = carriers.value ?? [];
      pending = null;
    },
  );
  return pending;
}

export function carrierName(id: string | null): string {
  if (!id) return '—';
  return carriers.value?.find((c) => c.id === id)?.name ?? 'Unknown carrier';
}

/** A list whose rows name carriers: the carriers load beside it, and the names fill in. */
export function withCarrierNames<A extends unknown[], R>(list: (...args: A) => Promise<R>) {
  return (...args: A): Promise<R> => {
    loadCarriers();
    return list(...args);
  };
}

/**
 * Choices for a 'lookup' field, loaded once per key (a yard's gates per yard) and kept in a signal
 * so the select fills in when they arrive.
 */
export function lookup(none: string, key: () => string, fetch: () => Promise<Option[]>): Lookup {
  const loaded = signal<Record<string, Option[]>>({});
  const pending = new Set<string>();
  return {
    none,
    load() {
      const k = key();
      if (loaded.value[k] || pending.has(k)) return;
      pending.add(k);
      fetch()
        .then(
          (options) => {
            loaded.value = { ...loaded.value, [k]: options };
          },
          // Left empty: the select offers only the empty choice; saving still works without it.
          () => undefined,
        )
        .finally(() => pending.delete(k));
    },
    options: () => loaded.value[key()] ?? [],
  };
}
