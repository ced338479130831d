import { describe, expect, it } from 'vitest';
import type { TaskStatus } from '../../../shared/db/tables.js';
import { AppError } from '../../../shared/http/errors.js';
import {
  assertEditable,
  assertTransition,
  canTransition,
  isFinal,
} from '../../../shared/modules/tasks/state-machine.js';

const STATUSES: TaskStatus[] = ['QUEUED', 'ASSIGNED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'];

/**
 * The lifecycle of a yard task, written out from the domain rules (not read from the module):
 * assign, unassign, reassign (ASSIGNED -> ASSIGNED), start, complete, cancel from any open status;
 * COMPLETED and CANCELLED are final.
 */
const LEGAL = new Set([
  'QUEUED->ASSIGNED', // assign
  'QUEUED->CANCELLED',
  'ASSIGNED->QUEUED', // unassign
  'ASSIGNED->ASSIGNED', // reassign to another driver
  'ASSIGNED->IN_PROGRESS', // start
  'ASSIGNED->CANCELLED',
  'IN_PROGRESS->COMPLETED', // complete
  'IN_PROGRESS->CANCELLED',
]);

const FINAL: TaskStatus[] = ['COMPLETED', 'CANCELLED'];

const pairs = STATUSES.flatMap((from) =>
  STATUSES.map((to) => ({ from, to, legal: LEGAL.has(`${from}->${to}`) })),
);

/** The error an illegal step throws (fails the test when it throws none). */
function refusal(step: () => void): AppError {
  try {
    step();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the step to be refused');
}

describe('task state machine: every pair of statuses', () => {
  for (const { from, to } of pairs.filter((p) => p.legal)) {
    it(`${from} -> ${to} is allowed`, () => {
      expect(canTransition(from, to)).toBe(true);
      expect(() => assertTransition(from, to)).not.toThrow();
    });
  }

  for (const { from, to } of pairs.filter((p) => !p.legal)) {
    it(`${from} -> ${to} is 409 invalid-transition`, () => {
      expect(canTransition(from, to)).toBe(false);
      const err = refusal(() => assertTransition(from, to));
      expect(err.status).toBe(409);
      expect(err.code).toBe('invalid-transition');
      expect(err.extra).toEqual({ from, to });
      expect(err.detail).toBe(
        FINAL.includes(from)
          ? `The task is ${from}, which is final: it cannot change any more.`
          : `Cannot go from ${from} to ${to}.`,
      );
    });
  }
});

describe('final statuses', () => {
  it('exactly COMPLETED and CANCELLED are final', () => {
    expect(STATUSES.filter(isFinal)).toEqual(FINAL);
  });

  it('a final task cannot be edited (409 invalid-transition naming its status); an open one can', () => {
    for (const status of ['COMPLETED', 'CANCELLED'] as const) {
      const err = refusal(() => assertEditable(status));
      expect(err.status).toBe(409);
      expect(err.code).toBe('invalid-transition');
      expect(err.extra).toEqual({ from: status, to: status });
      expect(err.detail).toContain(`${status}, which is final`);
    }
    for (const status of ['QUEUED', 'ASSIGNED', 'IN_PROGRESS'] as const) {
      expect(() => assertEditable(status)).not.toThrow();
    }
  });
});

describe('paths through the lifecycle', () => {
  const walk = (...path: TaskStatus[]) => {
    for (let i = 1; i < path.length; i++) assertTransition(path[i - 1]!, path[i]!);
  };

  it('the happy path and the unassign loop are walkable', () => {
    expect(() => walk('QUEUED', 'ASSIGNED', 'IN_PROGRESS', 'COMPLETED')).not.toThrow();
    expect(() => walk('QUEUED', 'ASSIGNED', 'QUEUED', 'ASSIGNED', 'ASSIGNED', 'IN_PROGRESS')).not.toThrow();
  });
});
