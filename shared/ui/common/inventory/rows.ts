import type { Schemas } from '../api/client';

type Trailer = Schemas['Trailer'];
type Carrier = Schemas['Carrier'];
type Location = Schemas['Location'];
type Task = Schemas['YardTask'];
export type LoadStatus = Trailer['loadStatus'];

/** One trailer in the yard as the inventory shows it. */
export interface InventoryRow {
  id: string;
  number: string;
  carrierId: string | null;
  /** "Lone Star Logistics (LSLG)", or "" when the trailer has no carrier. */
  carrier: string;
  locationId: string | null;
  /** The spot's name, or "" when the trailer stands on no spot. */
  spot: string;
  loadStatus: LoadStatus;
  sealNumber: string | null;
  arrivedAt: string | null;
  dwellMs: number;
  /** Open yard tasks (queued, assigned, in progress) for this trailer. */
  tasks: Task[];
}

export type SortKey = 'dwell' | 'spot' | 'carrier' | 'load';
export interface Sort {
  key: SortKey;
  dir: 'asc' | 'desc';
}
/** Oldest first: what the yard is asked about most ("what has been here longest?"). */
export const DEFAULT_SORT: Sort = { key: 'dwell', dir: 'desc' };

export const OPEN_TASK_STATUSES = ['QUEUED', 'ASSIGNED', 'IN_PROGRESS'] as const;

export function carrierLabel(c: Pick<Carrier, 'name' | 'scac'> | undefined): string {
  if (!c) return '';
  return c.scac ? `${c.name} (${c.scac})` : c.name;
}

export function buildRows(
  trailers: Trailer[],
  carriers: Carrier[],
  locations: Location[],
  tasks: Task[],
  now: number,
): InventoryRow[] {
  const carrierById = new Map(carriers.map((c) => [c.id, c]));
  const locationById = new Map(locations.map((l) => [l.id, l]));
  const open = new Set<string>(OPEN_TASK_STATUSES);
  return trailers.map((t) => {
    const arrived = t.arrivedAt ? Date.parse(t.arrivedAt) : Number.NaN;
    return {
      id: t.id,
      number: t.number,
      carrierId: t.carrierId,
      carrier: carrierLabel(t.carrierId ? carrierById.get(t.carrierId) : undefined),
      locationId: t.locationId,
      spot: (t.locationId && locationById.get(t.locationId)?.name) || '',
      loadStatus: t.loadStatus,
      sealNumber: t.sealNumber,
      arrivedAt: t.arrivedAt,
      dwellMs: Number.isNaN(arrived) ? 0 : Math.max(0, now - arrived),
      tasks: tasks.filter((k) => k.trailerId === t.id && open.has(k.status)),
    };
  });
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Empty values (no spot, no carrier) sort last whatever the direction: they are the odd ones out. */
function compareText(a: string, b: string, dir: 1 | -1): number {
  if (!a || !b) return a === b ? 0 : a ? -1 : 1;
  return dir * collator.compare(a, b);
}

const LOAD_ORDER: Record<LoadStatus, number> = { loaded: 0, empty: 1, unknown: 2 };

/** Sorted copy; ties fall back to the longest dwell, then the trailer number, so the order is stable. */
export function sortRows(rows: InventoryRow[], sort: Sort): InventoryRow[] {
  const dir = sort.dir === 'asc' ? 1 : -1;
  const primary = (a: InventoryRow, b: InventoryRow): number => {
    switch (sort.key) {
      case 'dwell':
        return dir * (a.dwellMs - b.dwellMs);
      case 'spot':
        return compareText(a.spot, b.spot, dir);
      case 'carrier':
        return compareText(a.carrier, b.carrier, dir);
      case 'load':
        return dir * (LOAD_ORDER[a.loadStatus] - LOAD_ORDER[b.loadStatus]);
    }
  };
  return [...rows].sort(
    (a, b) => primary(a, b) || b.dwellMs - a.dwellMs || collator.compare(a.number, b.number),
  );
}

/** Clicking a column: a new column starts in its natural direction (dwell: longest first), the same one flips. */
export function nextSort(current: Sort, key: SortKey): Sort {
  if (current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  return { key, dir: key === 'dwell' ? 'desc' : 'asc' };
}

export interface Filters {
  carrierId: string;
  loadStatus: LoadStatus | '';
}

export function filterRows(rows: InventoryRow[], f: Filters): InventoryRow[] {
  return rows.filter(
    (r) => (!f.carrierId || r.carrierId === f.carrierId) && (!f.loadStatus || r.loadStatus === f.loadStatus),
  );
}

/** A unit number as people type it: case, spaces and dashes do not count ("lslg 5300" is "LSLG-5300"). */
export function unitKey(value: string): string {
  return value.replace(/[\s-]+/g, '').toUpperCase();
}

/** "Where is it?": the rows with exactly the number typed (spaces, dashes and case aside). */
export function exactRows(rows: InventoryRow[], typed: string): InventoryRow[] {
  const key = unitKey(typed);
  return key ? rows.filter((r) => unitKey(r.number) === key) : [];
}

/**
 * The rows whose number matches what was typed. An exact number wins; otherwise every number that
 * contains it (a clerk often reads only the digits off the trailer).
 */
export function findRows(rows: InventoryRow[], typed: string): InventoryRow[] {
  const key = unitKey(typed);
  if (!key) return [];
  const exact = rows.filter((r) => unitKey(r.number) === key);
  return exact.length > 0 ? exact : rows.filter((r) => unitKey(r.number).includes(key));
}
