import type { Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';

/**
 * How the office reads a yard task: status, type and priority in words, and what a refused change
 * means. Pure, so every wording is unit-tested.
 */
export type Task = Schemas['YardTask'];
export type TaskStatus = Task['status'];
export type TaskType = Task['type'];

export const OPEN_STATUSES = ['QUEUED', 'ASSIGNED', 'IN_PROGRESS'] as const satisfies readonly TaskStatus[];
export const DONE_STATUSES = ['COMPLETED', 'CANCELLED'] as const satisfies readonly TaskStatus[];

export const STATUS_WORDS: Record<TaskStatus, string> = {
  QUEUED: 'Queued',
  ASSIGNED: 'Assigned',
  IN_PROGRESS: 'In progress',
  COMPLETED: 'Completed',
  CANCELLED: 'Cancelled',
};

export const TYPE_WORDS: Record<TaskType, string> = {
  move: 'Move',
  pull_to_door: 'Pull to door',
  return_to_spot: 'Return to spot',
  shunt: 'Shunt',
  inspect: 'Inspect',
  other: 'Other',
};

/**
 * Types that take a trailer somewhere: the API refuses one without its trailer and destination
 * (docs/domain.md "Creating and editing"), so the form labels those two fields as needed.
 */
export const MOVES_A_TRAILER: ReadonlySet<TaskType> = new Set([
  'move',
  'pull_to_door',
  'return_to_spot',
  'shunt',
]);

/** The API's priority 0..3 as the yard says it. */
export const PRIORITY_WORDS = ['Low', 'Normal', 'High', 'Urgent'] as const;

export function priorityWords(p: number): string {
  return PRIORITY_WORDS[Math.max(0, Math.min(3, Math.trunc(p)))] ?? 'Normal';
}

/** Which changes a task in this status still takes (the API's state machine, as the office sees it). */
export function actionsFor(status: TaskStatus): { assign: boolean; unassign: boolean; cancel: boolean } {
  return {
    assign: status === 'QUEUED' || status === 'ASSIGNED',
    unassign: status === 'ASSIGNED',
    cancel: status === 'QUEUED' || status === 'ASSIGNED' || status === 'IN_PROGRESS',
  };
}

/**
 * A refused task change in words. `reloaded`: the screen reads the task list anew after a conflict,
 * so the message can say the list now shows what is true.
 */
export function taskProblemWords(err: unknown): string {
  if (!(err instanceof ProblemError)) return 'Something went wrong. Try again.';
  switch (err.code) {
    case 'precondition-failed':
      return 'Someone changed this task since the list was loaded. The list has been reloaded: check the task and try again.';
    case 'invalid-transition':
      return `${err.message} The list has been reloaded to show the task as it is now.`;
    case 'not-found':
      return `${err.message} It may have been deleted; the list has been reloaded.`;
    case 'not-a-yard-driver':
    case 'driver-blocked':
      return `${err.message} Choose another driver.`;
    case 'forbidden':
      return `${err.message} Dispatchers and admins may change tasks: ask an admin for that role.`;
    case 'cloud-owned':
    case 'edge-owned':
      return `${err.message} Change it where it is managed.`;
    case 'validation-failed':
      return 'Some fields need a change: see the messages next to them.';
    default:
      return err.message;
  }
}

/** Whether a refusal means the list on screen is stale (it is read anew). */
export function isConflict(err: unknown): boolean {
  return err instanceof ProblemError && (err.status === 412 || err.status === 409 || err.status === 404);
}

/** The server's field errors keyed by the create form's fields. */
export function createFieldErrors(err: unknown): Partial<Record<CreateField, string>> {
  if (!(err instanceof ProblemError)) return {};
  const out: Partial<Record<CreateField, string>> = {};
  for (const [path, message] of Object.entries(err.fieldErrors())) {
    const field = CREATE_FIELDS.find((f) => path === f || path.startsWith(`${f}.`));
    if (field) out[field] ??= message;
  }
  return out;
}

export const CREATE_FIELDS = [
  'type',
  'trailerId',
  'fromLocationId',
  'toLocationId',
  'priority',
  'driverId',
  'notes',
] as const;
export type CreateField = (typeof CREATE_FIELDS)[number];
