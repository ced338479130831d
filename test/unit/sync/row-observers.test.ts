import { describe, expect, it } from 'vitest';
import type { SqlWork } from '../../../shared/db/sql-work.js';
import { signedOutBy } from '../../../shared/modules/auth/sign-outs.js';
import {
  type AfterCommitEvent,
  RowObservers,
  type RowWrite,
  type WorkRowObserver,
} from '../../../shared/sync/row-observers.js';

/** Runs work that yields no statement (the observers below write nothing). */
function run(work: SqlWork<void>): void {
  const step = work.next();
  expect(step.done).toBe(true);
}

function recorder(tables: string[], writes: string[] = []) {
  const seen: RowWrite[] = [];
  const observer: WorkRowObserver & { rowWritten(write: RowWrite): void } = {
    tables: new Set(tables),
    writes: new Set(writes),
    // biome-ignore lint/correctness/useYield: records only
    *rowWork(write) {
      seen.push(write);
    },
    rowWritten: (write) => seen.push(write),
  };
  return { observer, seen };
}

describe('row observers (the seam of derived rules, docs/sync.md "Derived state")', () => {
  it('before-delete observers are told only before a delete, write observers only after a write', () => {
    const observers = new RowObservers();
    const after = recorder(['yardTask']);
    const before = recorder(['yardTask'], ['taskEvent']);
    observers.add(after.observer);
    observers.addBeforeDelete(before.observer);
    run(observers.deletingWork('yardTask', { id: 't1' }));
    expect(before.seen).toEqual([{ table: 'yardTask', before: { id: 't1' }, after: undefined }]);
    expect(after.seen).toEqual([]);
    run(observers.work('yardTask', { id: 't1' }, undefined));
    expect(after.seen).toHaveLength(1);
    expect(before.seen).toHaveLength(1);
    expect(observers.watchesDeletes('yardTask')).toBe(true);
    expect(observers.watchesDeletes('trailer')).toBe(false);
    // What an observer writes beside the row is known to the writer (its caches go too).
    expect([...observers.writtenBeside('yardTask')]).toEqual(['taskEvent']);
    expect([...observers.writtenBeside('trailer')]).toEqual([]);
  });

  it('what an observer announces reaches the writer that collects it, and is dropped for one that does not', () => {
    const observers = new RowObservers();
    const announcer: WorkRowObserver & { rowWritten(write: RowWrite): void } = {
      tables: new Set(['appUser']),
      // biome-ignore lint/correctness/useYield: announces only
      *rowWork(write) {
        const who = signedOutBy(write);
        if (who) write.announce?.({ type: 'sync.signed-out', data: who });
      },
      rowWritten: () => {},
    };
    observers.add(announcer);
    const events: AfterCommitEvent[] = [];
    const user = { id: 'u1', passwordHash: 'a', role: 'gate', yardIds: null, disabled: 0 };
    run(observers.work('appUser', user, { ...user, passwordHash: 'b' }, (e) => events.push(e)));
    run(observers.work('appUser', user, { ...user, displayName: 'Jo' }, (e) => events.push(e)));
    run(observers.work('appUser', user, { ...user, disabled: 1 }));
    expect(events).toEqual([{ type: 'sync.signed-out', data: { kind: 'user', id: 'u1' } }]);
  });

  it('the sign-out rule: which user and driver changes end their sessions', () => {
    const user = { id: 'u1', passwordHash: 'a', role: 'gate', yardIds: '["y1"]', disabled: 0 };
    const userWrite = (after: Record<string, unknown>) =>
      signedOutBy({ table: 'appUser', before: user, after });
    expect(userWrite({ ...user, disabled: 1 })).toEqual({ kind: 'user', id: 'u1' });
    expect(userWrite({ ...user, role: 'admin' })).toEqual({ kind: 'user', id: 'u1' });
    expect(userWrite({ ...user, yardIds: null })).toEqual({ kind: 'user', id: 'u1' });
    expect(userWrite({ ...user, displayName: 'Jo' })).toBeUndefined();
    expect(signedOutBy({ table: 'appUser', before: undefined, after: user })).toBeUndefined();
    const driver = { id: 'd1', status: 'active', pinHash: 'p', driverCode: 'J01' };
    const driverWrite = (after: Record<string, unknown>) =>
      signedOutBy({ table: 'driver', before: driver, after });
    expect(driverWrite({ ...driver, status: 'blocked' })).toEqual({ kind: 'driver', id: 'd1' });
    expect(driverWrite({ ...driver, pinHash: null })).toEqual({ kind: 'driver', id: 'd1' });
    expect(driverWrite({ ...driver, driverCode: 'J02' })).toEqual({ kind: 'driver', id: 'd1' });
    expect(driverWrite({ ...driver, licenseNumber: 'X' })).toBeUndefined();
  });
});
