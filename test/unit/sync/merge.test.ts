import { describe, expect, it } from 'vitest';
import { format } from '../../../shared/sync/hlc.js';
import { fieldHlcs, mergeShared } from '../../../shared/sync/merge.js';
import type { Fields } from '../../../shared/sync/row-sql.js';

/** The stored fields of a yard task (as ChangeCapture logs them). */
const TASK_FIELDS = [
  'id',
  'yardId',
  'type',
  'trailerId',
  'fromLocationId',
  'toLocationId',
  'priority',
  'status',
  'driverId',
  'notes',
  'dueAt',
  'createdBy',
  'createdAt',
  'updatedAt',
  'assignedAt',
  'startedAt',
  'completedAt',
  'cancelledAt',
  'cancelReason',
  'billedCarrierId',
  'hlc',
  'fieldHlc',
  'version',
];

const h = (ms: number, origin: string, counter = 0) => format(1_700_000_000_000 + ms, counter, origin);

function newTask(hlc: string): Fields {
  const row: Fields = {
    id: 't1',
    yardId: 'y1',
    type: 'move',
    trailerId: null,
    fromLocationId: null,
    toLocationId: null,
    priority: 1,
    status: 'QUEUED',
    driverId: null,
    notes: null,
    dueAt: null,
    createdBy: 'u1',
    createdAt: 1,
    updatedAt: 1,
    assignedAt: null,
    startedAt: null,
    completedAt: null,
    cancelledAt: null,
    cancelReason: null,
    billedCarrierId: null,
  };
  return {
    ...row,
    hlc,
    version: 1,
    fieldHlc: JSON.stringify(Object.fromEntries(Object.keys(row).map((k) => [k, hlc]))),
  };
}

/** A local write, as ChangeCapture.update makes it. */
function edit(row: Fields, patch: Fields, hlc: string): Fields {
  const changed = Object.entries(patch).filter(([k, v]) => row[k] !== v);
  if (changed.length === 0) return row;
  const fh = fieldHlcs(row);
  for (const [k] of changed) fh[k] = hlc;
  return {
    ...row,
    ...Object.fromEntries(changed),
    updatedAt: Number(hlc.slice(0, 13)),
    hlc,
    version: Number(row.version) + 1,
    fieldHlc: JSON.stringify(fh),
  };
}

/** What the applier stores after receiving `incoming` at a side holding `local`. */
function receive(local: Fields, incoming: Fields, grouped = true): Fields {
  const result = mergeShared(local, incoming, TASK_FIELDS, 'id', grouped);
  if (result.kind === 'local') return local;
  if (result.kind === 'incoming') return { ...local, ...incoming };
  return { ...local, ...result.row };
}

/** Both sides exchange their rows; they must end identical. Returns the converged row. */
function exchange(a: Fields, b: Fields): Fields {
  const atA = receive(a, b);
  const atB = receive(b, a);
  expect(canonical(atA)).toEqual(canonical(atB));
  return atA;
}

/** field_hlc compared as a map (key order is not content). */
function canonical(row: Fields): Fields {
  return { ...row, fieldHlc: fieldHlcs(row) };
}

describe('per-field merge of shared records', () => {
  it('keeps both sides’ edits of different fields, and both sides end with the same version', () => {
    const base = newTask(h(0, 'cloud'));
    const atCloud = edit(base, { priority: 3 }, h(10, 'cloud'));
    const atEdge = edit(base, { notes: 'north door' }, h(20, 'site-a'));
    const merged = exchange(atCloud, atEdge);
    expect(merged).toMatchObject({ priority: 3, notes: 'north door', hlc: h(20, 'site-a'), version: 3 });
    expect(fieldHlcs(merged)).toMatchObject({ priority: h(10, 'cloud'), notes: h(20, 'site-a') });
  });

  it('the later write of the same field wins; an equal merge is a no-op and a dominated row is taken as is', () => {
    const base = newTask(h(0, 'cloud'));
    const older = edit(base, { priority: 0 }, h(10, 'cloud'));
    const newer = edit(base, { priority: 2 }, h(11, 'site-a'));
    expect(exchange(older, newer)).toMatchObject({ priority: 2 });
    // The incoming row holds everything: taken with its own version and field hlcs.
    const later = edit(older, { notes: 'x' }, h(30, 'cloud'));
    expect(mergeShared(older, later, TASK_FIELDS, 'id', true)).toEqual({ kind: 'incoming', row: later });
    expect(mergeShared(later, older, TASK_FIELDS, 'id', true)).toEqual({ kind: 'local' });
    expect(mergeShared(later, later, TASK_FIELDS, 'id', true)).toEqual({ kind: 'local' });
  });

  it('a status moves only forward: IN_PROGRESS wins over a later unassignment, with its driver and start', () => {
    const assigned = edit(
      newTask(h(0, 'cloud')),
      { status: 'ASSIGNED', driverId: 'd1', assignedAt: 5 },
      h(5, 'site-a'),
    );
    const started = edit(assigned, { status: 'IN_PROGRESS', startedAt: 10 }, h(10, 'site-a'));
    const unassigned = edit(assigned, { status: 'QUEUED', driverId: null, assignedAt: null }, h(20, 'cloud'));
    const merged = exchange(started, unassigned);
    expect(merged).toMatchObject({ status: 'IN_PROGRESS', driverId: 'd1', assignedAt: 5, startedAt: 10 });
    expect(fieldHlcs(merged).status).toBe(h(10, 'site-a'));
  });

  it('an unassignment after the assignment reaches the other side (QUEUED and ASSIGNED share a rank)', () => {
    const assigned = edit(
      newTask(h(0, 'cloud')),
      { status: 'ASSIGNED', driverId: 'd1', assignedAt: 5 },
      h(5, 'site-a'),
    );
    const unassigned = edit(assigned, { status: 'QUEUED', driverId: null, assignedAt: null }, h(20, 'cloud'));
    expect(receive(assigned, unassigned)).toMatchObject({ status: 'QUEUED', driverId: null });
    // A reassignment (no status change) is the later write of the group.
    const reassigned = edit(assigned, { driverId: 'd2', assignedAt: 30 }, h(30, 'cloud'));
    const concurrent = edit(assigned, { priority: 3 }, h(31, 'site-a'));
    expect(exchange(reassigned, concurrent)).toMatchObject({
      status: 'ASSIGNED',
      driverId: 'd2',
      priority: 3,
    });
  });

  it('between COMPLETED and CANCELLED the earlier wins, and the loser’s completion or cancellation fields go', () => {
    const started = edit(
      newTask(h(0, 'cloud')),
      { status: 'IN_PROGRESS', driverId: 'd1', assignedAt: 1, startedAt: 2 },
      h(2, 'site-a'),
    );
    const cancelled = edit(
      started,
      { status: 'CANCELLED', cancelledAt: 40, cancelReason: 'no trailer' },
      h(40, 'cloud'),
    );
    const completed = edit(
      started,
      { status: 'COMPLETED', completedAt: 50, billedCarrierId: 'c1' },
      h(50, 'site-a'),
    );
    const merged = exchange(cancelled, completed);
    expect(merged).toMatchObject({
      status: 'CANCELLED',
      cancelledAt: 40,
      cancelReason: 'no trailer',
      completedAt: null,
      billedCarrierId: null,
    });
    expect(fieldHlcs(merged).status).toBe(h(40, 'cloud'));
    // The other way round in time: the completion stands.
    const early = edit(started, { status: 'COMPLETED', completedAt: 30 }, h(30, 'site-a'));
    expect(exchange(cancelled, early)).toMatchObject({
      status: 'COMPLETED',
      cancelledAt: null,
      cancelReason: null,
    });
  });

  it('a final status wins over any later non-final one', () => {
    const base = newTask(h(0, 'cloud'));
    const cancelled = edit(base, { status: 'CANCELLED', cancelledAt: 5, cancelReason: 'dup' }, h(5, 'cloud'));
    const assigned = edit(base, { status: 'ASSIGNED', driverId: 'd1', assignedAt: 9 }, h(9, 'site-a'));
    expect(exchange(cancelled, assigned)).toMatchObject({ status: 'CANCELLED', driverId: null });
  });

  it('equal field hlcs with different values (updatedAt changes without its own entry) settle the same way on both sides', () => {
    const base = newTask(h(0, 'cloud'));
    const a = edit(base, { priority: 2 }, h(10, 'cloud'));
    const b = edit(base, { notes: 'n' }, h(12, 'site-a'));
    expect(exchange(a, b).updatedAt).toBe(Number(h(12, 'site-a').slice(0, 13)));
  });

  it('converges for random concurrent histories on three replicas, whatever the order of exchange', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const patches: Array<() => Fields> = [
      () => ({ priority: rand(4) }),
      () => ({ notes: `n${rand(5)}` }),
      () => ({ status: 'ASSIGNED', driverId: `d${rand(3)}`, assignedAt: rand(100) }),
      () => ({ status: 'QUEUED', driverId: null, assignedAt: null }),
      () => ({ status: 'IN_PROGRESS', startedAt: rand(100) }),
      () => ({ status: 'COMPLETED', completedAt: rand(100) }),
      () => ({ status: 'CANCELLED', cancelledAt: rand(100), cancelReason: 'r' }),
      () => ({ toLocationId: `l${rand(3)}` }),
    ];
    for (let round = 0; round < 200; round++) {
      const base = newTask(h(0, 'cloud'));
      const origins = ['cloud', 'site-a', 'site-b'];
      let clock = 1;
      const replicas = origins.map((origin) => {
        let row = base;
        for (let i = rand(4); i > 0; i--) {
          clock += 1 + rand(3);
          row = edit(row, patches[rand(patches.length)]!(), h(clock, origin));
        }
        return row;
      });
      // Everyone receives everyone's row, in three different orders: the results agree.
      const [a, b, c] = replicas as [Fields, Fields, Fields];
      const one = receive(receive(a, b), c);
      const two = receive(receive(c, a), b);
      const three = receive(receive(b, c), a);
      expect(canonical(one), `round ${round}`).toEqual(canonical(two));
      expect(canonical(one), `round ${round}`).toEqual(canonical(three));
    }
  });
});
