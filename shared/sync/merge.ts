import type { Fields } from './row-sql.js';

/**
 * Per-field last-writer-wins merge of a shared record (driver, truck, trailer, yard task), docs/sync.md
 * "Conflict rules". Pure: the applier reads the stored row and writes the result.
 *
 * Every field's value comes from the side whose hlc for that field is greater (`fieldHlc[field]`,
 * else the row's `hlc`). Equal hlcs with different values (a field such as updatedAt that changes
 * without its own entry) fall back to a fixed order of values. The result does not depend on which
 * side merges: two sides that exchange concurrent edits end with identical rows, version included.
 *
 * Yard tasks: the status and the fields a status change writes together (driver, assignment, start,
 * completion, cancellation, billed carrier) are one group taken whole from the winning side, so a
 * merged task never shows COMPLETED with a cancellation reason or IN_PROGRESS with another driver.
 * The winner: the higher rank (QUEUED = ASSIGNED < IN_PROGRESS < COMPLETED = CANCELLED); between
 * two final statuses the earlier status hlc (the first to finish stands); otherwise the later write
 * to the group. QUEUED and ASSIGNED share a rank on purpose: unassigning (ASSIGNED -> QUEUED) is a
 * legal step back, and with QUEUED ranked lower an unassignment would never reach the other side.
 */

/** Columns that are bookkeeping, not merged fields. */
const BOOKKEEPING = new Set(['hlc', 'fieldHlc', 'version', 'apiJson']);

export const TASK_STATUS_GROUP = [
  'status',
  'driverId',
  'assignedAt',
  'startedAt',
  'completedAt',
  'cancelledAt',
  'cancelReason',
  'billedCarrierId',
] as const;

const RANK: Record<string, number> = { QUEUED: 0, ASSIGNED: 0, IN_PROGRESS: 1, COMPLETED: 2, CANCELLED: 2 };

export type MergeResult =
  /** The stored row already holds everything: write nothing. */
  | { kind: 'local' }
  /** The incoming row as it came (its version, hlc and fieldHlc). */
  | { kind: 'incoming'; row: Fields }
  /** A mix of both: a new version. */
  | { kind: 'merged'; row: Fields };

/**
 * Merges `incoming` into `local`. `fields`: the record's stored field names (key included).
 * `grouped`: whether the yard task status group applies.
 */
export function mergeShared(
  local: Fields,
  incoming: Fields,
  fields: readonly string[],
  keyField: string,
  grouped: boolean,
): MergeResult {
  const localHlcs = fieldHlcs(local);
  const incomingHlcs = fieldHlcs(incoming);
  const lh = (f: string) => localHlcs[f] ?? String(local.hlc);
  const ih = (f: string) => incomingHlcs[f] ?? String(incoming.hlc);

  const merged: Fields = { [keyField]: local[keyField] };
  const mergedHlcs: Record<string, string> = {};
  const mergeable = fields.filter((f) => f !== keyField && !BOOKKEEPING.has(f));
  const group = grouped ? new Set<string>(TASK_STATUS_GROUP) : new Set<string>();

  if (grouped) {
    const fromIncoming = groupWinnerIsIncoming(local, incoming, lh, ih);
    for (const f of TASK_STATUS_GROUP) {
      if (!mergeable.includes(f)) continue;
      // A peer without the field (an older schema) cannot win it.
      const useIncoming = fromIncoming && f in incoming;
      merged[f] = useIncoming ? incoming[f] : local[f];
      mergedHlcs[f] = useIncoming ? ih(f) : lh(f);
    }
  }
  for (const f of mergeable) {
    if (group.has(f)) continue;
    if (!(f in incoming)) {
      merged[f] = local[f];
      mergedHlcs[f] = lh(f);
      continue;
    }
    const a = lh(f);
    const b = ih(f);
    const useIncoming = b > a || (b === a && compareValues(incoming[f], local[f]) > 0);
    merged[f] = useIncoming ? incoming[f] : local[f];
    mergedHlcs[f] = useIncoming ? b : a;
  }
  merged.hlc = String(incoming.hlc) > String(local.hlc) ? incoming.hlc : local.hlc;

  const sameAs = (row: Fields, hlcOf: (f: string) => string) =>
    mergeable.every((f) => f in row && Object.is(merged[f], row[f]) && mergedHlcs[f] === hlcOf(f)) &&
    merged.hlc === row.hlc;
  if (sameAs(local, lh)) return { kind: 'local' };
  if (sameAs(incoming, ih)) return { kind: 'incoming', row: incoming };
  merged.fieldHlc = JSON.stringify(sortKeys(mergedHlcs));
  merged.version = Math.max(Number(local.version ?? 0), Number(incoming.version ?? 0)) + 1;
  return { kind: 'merged', row: merged };
}

/** Whether the incoming side wins a yard task's status group (see the file comment). */
function groupWinnerIsIncoming(
  local: Fields,
  incoming: Fields,
  lh: (f: string) => string,
  ih: (f: string) => string,
): boolean {
  if (!('status' in incoming)) return false;
  const lr = RANK[String(local.status)] ?? 0;
  const ir = RANK[String(incoming.status)] ?? 0;
  if (lr !== ir) return ir > lr;
  if (lr === 2) {
    // Final on both sides: the earlier finish stands.
    const a = lh('status');
    const b = ih('status');
    if (a !== b) return b < a;
  } else {
    const a = groupHlc(lh);
    const b = groupHlc(ih);
    if (a !== b) return b > a;
  }
  // Same write on both sides: the fixed order of values decides what little could differ.
  for (const f of TASK_STATUS_GROUP) {
    const c = compareValues(incoming[f], local[f]);
    if (c !== 0) return c > 0;
  }
  return false;
}

function groupHlc(hlcOf: (f: string) => string): string {
  let max = '';
  for (const f of TASK_STATUS_GROUP) {
    const h = hlcOf(f);
    if (h > max) max = h;
  }
  return max;
}

export function fieldHlcs(row: Fields): Record<string, string> {
  const raw = row.fieldHlc;
  if (typeof raw !== 'string' || raw === '') return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, string>)
      : {};
  } catch {
    return {};
  }
}

/** A fixed total order of column values: null < numbers < strings. */
export function compareValues(a: unknown, b: unknown): number {
  if (Object.is(a, b)) return 0;
  const ta = typeRank(a);
  const tb = typeRank(b);
  if (ta !== tb) return ta - tb;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function typeRank(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return 1;
  return 2;
}

function sortKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]!]),
  );
}
