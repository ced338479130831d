import { describe, expect, it } from 'vitest';
import { format } from '../../../shared/sync/hlc.js';
import { compareValues, fieldHlcs, mergeShared } from '../../../shared/sync/merge.js';
import type { Fields } from '../../../shared/sync/row-sql.js';

/**
 * The edges of the merge rules that sync-merge.test.ts's histories do not reach: a value order
 * that disagrees with the clocks, numbers against strings, a peer on an older schema, versions
 * that differ, and what a merged row carries. Found by `npm run mutate` (mutants that survived).
 */
const h = (ms: number, origin: string) => format(1_700_000_000_000 + ms, 0, origin);
const GROUP = [
  'status',
  'driverId',
  'assignedAt',
  'startedAt',
  'completedAt',
  'cancelledAt',
  'cancelReason',
  'billedCarrierId',
];
const FIELDS = ['id', ...GROUP, 'priority', 'notes', 'hlc', 'fieldHlc', 'version'];

function task(hlc: string, fields: Fields, version = 1, perField: Record<string, string> = {}): Fields {
  const row: Fields = {
    id: 't1',
    ...Object.fromEntries(GROUP.map((f) => [f, null])),
    status: 'QUEUED',
    priority: 1,
    notes: null,
    ...fields,
  };
  const hlcs = Object.fromEntries(Object.keys(row).map((k) => [k, perField[k] ?? hlc]));
  return { ...row, hlc, version, fieldHlc: JSON.stringify(hlcs) };
}

function merge(local: Fields, incoming: Fields, fields = FIELDS) {
  return mergeShared(local, incoming, fields, 'id', true);
}

describe('merge rules at their edges', () => {
  it('a later reassignment wins the status group even when its driver sorts first', () => {
    const base = h(1, 'cloud');
    // Reassigned at the cloud to d0 later; the site only edited the priority meanwhile.
    const untouched = (...written: string[]) =>
      Object.fromEntries(FIELDS.filter((f) => !written.includes(f)).map((f) => [f, base]));
    const reassigned = task(
      h(30, 'cloud'),
      { status: 'ASSIGNED', driverId: 'd0', assignedAt: 30 },
      2,
      untouched('driverId', 'assignedAt'),
    );
    const edited = task(
      h(31, 'site-a'),
      { status: 'ASSIGNED', driverId: 'd9', assignedAt: 5, priority: 3 },
      2,
      untouched('priority'),
    );
    for (const [local, incoming] of [
      [edited, reassigned],
      [reassigned, edited],
    ] as const) {
      const result = merge(local, incoming);
      expect(result.kind).toBe('merged');
      if (result.kind !== 'merged') return;
      expect(result.row).toMatchObject({ id: 't1', driverId: 'd0', assignedAt: 30, priority: 3, version: 3 });
    }
  });

  it('the merged row is a new version above both sides, keeps the key, and merges no bookkeeping column', () => {
    const local = task(h(10, 'cloud'), { priority: 2 }, 7, { notes: h(1, 'cloud') });
    const incoming = task(h(20, 'site-a'), { notes: 'gate 3' }, 2, { priority: h(1, 'cloud') });
    const result = merge(local, incoming);
    expect(result.kind).toBe('merged');
    if (result.kind !== 'merged') return;
    expect(result.row.id).toBe('t1');
    expect(result.row.version).toBe(8);
    expect(result.row.hlc).toBe(h(20, 'site-a'));
    const hlcs = fieldHlcs(result.row);
    expect(Object.keys(hlcs).sort()).toEqual([...GROUP, 'notes', 'priority'].sort());
    expect(result.row).toMatchObject({ priority: 2, notes: 'gate 3' });
  });

  it('a field the peer does not have (an older schema) keeps the stored value and its clock', () => {
    const local = task(h(10, 'cloud'), { notes: 'keep me' });
    const { notes: _dropped, ...older } = task(h(20, 'site-a'), { priority: 4 });
    const result = merge(local, older);
    expect(result.kind).toBe('merged');
    if (result.kind !== 'merged') return;
    expect(result.row).toMatchObject({ notes: 'keep me', priority: 4 });
    expect(fieldHlcs(result.row).notes).toBe(h(10, 'cloud'));
  });

  it('equal clocks with different values settle by a fixed order: null < numbers (numerically) < strings', () => {
    expect(compareValues(null, 0)).toBeLessThan(0);
    expect(compareValues(9, 10)).toBeLessThan(0);
    expect(compareValues(10, 9)).toBeGreaterThan(0);
    expect(compareValues(10, '9')).toBeLessThan(0);
    expect(compareValues('b', 'a')).toBeGreaterThan(0);
    expect(compareValues('a', 'b')).toBeLessThan(0);
    expect(compareValues(5, 5)).toBe(0);
    // Both sides of a tie pick the same value (10, not '9' or 9).
    const same = h(10, 'cloud');
    const a = task(same, { priority: 9 });
    const b = task(same, { priority: 10 });
    for (const [local, incoming] of [
      [a, b],
      [b, a],
    ] as const) {
      const result = merge(local, incoming);
      const row = result.kind === 'local' ? local : result.row;
      expect(row.priority).toBe(10);
    }
  });

  it('two final statuses finished at the same clock settle on the same one on both sides', () => {
    const at = h(40, 'cloud');
    const cancelled = task(at, { status: 'CANCELLED' });
    const completed = task(at, { status: 'COMPLETED' });
    const atCancelled = merge(cancelled, completed);
    const atCompleted = merge(completed, cancelled);
    const statusAtCancelled = atCancelled.kind === 'local' ? cancelled.status : atCancelled.row.status;
    const statusAtCompleted = atCompleted.kind === 'local' ? completed.status : atCompleted.row.status;
    expect(statusAtCancelled).toBe(statusAtCompleted);
  });

  it('a row without a readable fieldHlc falls back to the row clock for every field', () => {
    expect(fieldHlcs({ fieldHlc: 'not json' })).toEqual({});
    expect(fieldHlcs({ fieldHlc: '[1,2]' })).toEqual({});
    expect(fieldHlcs({ fieldHlc: '' })).toEqual({});
    expect(fieldHlcs({ fieldHlc: 5 })).toEqual({});
    expect(fieldHlcs({ fieldHlc: '{"a":"x"}' })).toEqual({ a: 'x' });
    const local = { ...task(h(10, 'cloud'), { notes: 'old' }), fieldHlc: 'garbage' };
    const incoming = task(h(20, 'site-a'), { notes: 'new' });
    expect(merge(local, incoming)).toEqual({ kind: 'incoming', row: incoming });
  });
});
