import { computed, signal } from '@preact/signals';
import { api, call, type Schemas } from '../common/api/client';

export type Yard = Schemas['Yard'];
/** What this server is: the cloud (every site), a site linked to a cloud, or a standalone site. */
export type ServerMode = 'cloud' | 'linked' | 'standalone';

const KEY = 'yard.dashboard.yardId';

/** The yards the user may see, and the one the yard screens show (remembered per browser). */
export const yards = signal<Yard[]>([]);
export const yardId = signal<string | null>(localStorage.getItem(KEY));
export const yard = computed(() => yards.value.find((y) => y.id === yardId.value) ?? yards.value[0] ?? null);
/** The chosen yard's IANA time zone: yard screens show every time in it. */
export const timeZone = computed(
  () => yard.value?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
);
export const serverMode = signal<ServerMode | null>(null);

/**
 * Who owns what here (DESIGN.md "Roles of the two processes"): at a linked site master data is the
 * cloud's; at the cloud the sites' own records (movements, sessions, actuations) are the sites'.
 */
export const ownership = computed(() => ({
  masterDataReadOnly: serverMode.value === 'linked',
  siteRecordsReadOnly: serverMode.value === 'cloud',
}));

export function chooseYard(id: string): void {
  yardId.value = id;
  localStorage.setItem(KEY, id);
}

export async function loadScope(): Promise<void> {
  const [page, status] = await Promise.all([
    call(api.GET('/api/yard', { params: { query: { limit: 500 } } })),
    call(api.GET('/api/sync/status')),
  ]);
  yards.value = page.items;
  serverMode.value = status.mode;
}
