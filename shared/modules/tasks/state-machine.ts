import type { TaskStatus } from '../../db/tables.js';
import { InvalidTransitionError } from '../../http/errors.js';

/**
 * (docs/domain.md "State machine") the one place that says which status may follow which.
 * ASSIGNED -> ASSIGNED is a reassignment; COMPLETED and CANCELLED are final.
 */
const ALLOWED: Record<TaskStatus, readonly TaskStatus[]> = {
  QUEUED: ['ASSIGNED', 'CANCELLED'],
  ASSIGNED: ['QUEUED', 'ASSIGNED', 'IN_PROGRESS', 'CANCELLED'],
  IN_PROGRESS: ['COMPLETED', 'CANCELLED'],
  COMPLETED: [],
  CANCELLED: [],
};

export function isFinal(status: TaskStatus): boolean {
  return ALLOWED[status].length === 0;
}

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return ALLOWED[from].includes(to);
}

export function assertTransition(from: TaskStatus, to: TaskStatus): void {
  if (!canTransition(from, to)) {
    throw new InvalidTransitionError(
      from,
      to,
      isFinal(from)
        ? `The task is ${from}, which is final: it cannot change any more.`
        : `Cannot go from ${from} to ${to}.`,
    );
  }
}

/** Field edits (no status change) are allowed on any task that is not final. */
export function assertEditable(from: TaskStatus): void {
  if (isFinal(from)) {
    throw new InvalidTransitionError(
      from,
      from,
      `The task is ${from}, which is final: it cannot change any more.`,
    );
  }
}

/** A yard's open tasks, as its figures count them: waiting for a driver, assigned, under way. */
export const UNFINISHED_TASK_STATUSES = [
  'QUEUED',
  'ASSIGNED',
  'IN_PROGRESS',
] as const satisfies readonly TaskStatus[];
