import { computed, signal } from '@preact/signals';
import { api, call, type Schemas } from '../common/api/client';

export type Yard = Schemas['Yard'];
export type Gate = Schemas['Gate'];

const KEY = 'yard.gate.yardId';

/** The yards the clerk may see, and the one this desk works (remembered per browser). */
export const yards = signal<Yard[]>([]);
export const yardId = signal<string | null>(localStorage.getItem(KEY));
export const yard = computed(() => yards.value.find((y) => y.id === yardId.value) ?? yards.value[0] ?? null);
/** The yard's IANA time zone: every time on the gate screens is shown in it. */
export const timeZone = computed(
  () => yard.value?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
);
export const gates = signal<Gate[]>([]);

export function chooseYard(id: string): void {
  yardId.value = id;
  localStorage.setItem(KEY, id);
  void loadGates();
}

export async function loadYards(): Promise<void> {
  const page = await call(api.GET('/api/yard', { params: { query: { limit: 200 } } }));
  yards.value = page.items;
  await loadGates();
}

export async function loadGates(): Promise<void> {
  const y = yard.value;
  if (!y) return;
  const page = await call(
    api.GET('/api/yard/{id}/gate', { params: { path: { id: y.id }, query: { limit: 200 } } }),
  );
  gates.value = page.items;
}
