import type { Schemas } from '../common/api/client';
import type { ActionKind, DriverAction } from './offline/outbox';

/**
 * The driver's task list as plain data: its order, how a live event changes it, and what a pending
 * action means for a task. Pure functions (unit-tested); tasks.ts keeps the state, the screens render.
 */
/**
 * A task of the driver's list: the list says which trailer (number, carrier); a live event carries
 * the task alone, so a task that came by an event may lack it until the list is read again.
 */
export type Task = Schemas['YardTask'] & { trailer?: Schemas['DriverTask']['trailer'] };

const OPEN: ReadonlySet<string> = new Set(['ASSIGNED', 'IN_PROGRESS']);

/**
 * The order the driver works in: the task under way first, then most urgent, then oldest (the
 * server's order for its list, kept when live events insert tasks).
 */
export function sortTasks(tasks: readonly Task[]): Task[] {
  return [...tasks].sort(
    (a, b) =>
      Number(b.status === 'IN_PROGRESS') - Number(a.status === 'IN_PROGRESS') ||
      b.priority - a.priority ||
      a.createdAt.localeCompare(b.createdAt) ||
      a.id.localeCompare(b.id),
  );
}

/** Something the office did to one of the driver's tasks, said on the screen until dismissed. */
export interface Notice {
  taskId: string;
  text: string;
}

/**
 * A live task event applied to the list: a task that is (still) the driver's and open is put in or
 * replaced (never by an older version); anything else takes it off. Reassignments and cancellations
 * by the office come back with a notice, so a task never vanishes without a word.
 */
export function applyTaskEvent(
  tasks: readonly Task[],
  type: string,
  task: Task,
  driverId: string,
): { tasks: Task[]; notice?: Notice; incomplete?: boolean } {
  const had = tasks.find((t) => t.id === task.id);
  if (had && had.version > task.version) return { tasks: [...tasks] };
  const rest = tasks.filter((t) => t.id !== task.id);
  const mine = task.driverId === driverId && OPEN.has(task.status) && type !== 'task.unassigned';
  if (mine) {
    // The event does not say which trailer in words: keep what the list said, or ask it again.
    const trailer =
      task.trailer !== undefined
        ? task.trailer
        : had?.trailerId === task.trailerId
          ? had?.trailer
          : undefined;
    const next = trailer !== undefined ? { ...task, trailer } : task;
    return {
      tasks: sortTasks([...rest, next]),
      incomplete: next.trailerId !== null && trailer === undefined,
    };
  }
  if (!had) return { tasks: rest };
  if (type === 'task.unassigned')
    return {
      tasks: rest,
      notice: { taskId: task.id, text: `${taskTitle(task)} was given to another driver.` },
    };
  if (type === 'task.cancelled') {
    const why = task.cancelReason ? `: ${task.cancelReason}` : '.';
    return { tasks: rest, notice: { taskId: task.id, text: `${taskTitle(task)} was cancelled${why}` } };
  }
  return { tasks: rest };
}

const TYPE_NAMES: Record<string, string> = {
  move: 'Move',
  pull_to_door: 'Pull to door',
  return_to_spot: 'Return to spot',
  shunt: 'Shunt',
  inspect: 'Inspect',
  other: 'Task',
};

export function typeName(type: string): string {
  return TYPE_NAMES[type] ?? type.replaceAll('_', ' ');
}

/** The trailer as the server may describe it on a driver's task (number, carrier), when it does. */
export function trailerOf(task: Task): { number: string; carrier: string | null } | null {
  return task.trailer ? { number: task.trailer.number, carrier: task.trailer.carrierName } : null;
}

/** "Pull to door: trailer PRHU 100001" or "Pull to door task" when the trailer is not known. */
export function taskTitle(task: Task): string {
  const trailer = trailerOf(task);
  return trailer ? `${typeName(task.type)}: trailer ${trailer.number}` : `${typeName(task.type)} task`;
}

export const PRIORITY_NAMES = ['Low', 'Normal', 'High', 'Urgent'] as const;

export function priorityName(priority: number): string {
  return PRIORITY_NAMES[priority] ?? `Priority ${priority}`;
}

/** What the driver did to a task that the server has not answered yet: the last action wins. */
export function pendingKind(actions: readonly DriverAction[], taskId: string): ActionKind | null {
  let kind: ActionKind | null = null;
  for (const a of actions) if (a.taskId === taskId) kind = a.kind;
  return kind;
}

const PENDING_TEXT: Record<ActionKind, string> = {
  start: 'Started — waiting for the link',
  complete: 'Completed — waiting for the link',
  cancel: 'Cancelled — waiting for the link',
};

export function pendingText(kind: ActionKind): string {
  return PENDING_TEXT[kind];
}

/**
 * The task as the driver sees it, the server's state with its own pending action on top: a task
 * completed or cancelled offline is done for the driver (it waits for the link, it is not worked).
 */
export function effectiveStatus(task: Task, pending: ActionKind | null): string {
  if (pending === 'complete') return 'COMPLETED';
  if (pending === 'cancel') return 'CANCELLED';
  if (pending === 'start') return 'IN_PROGRESS';
  return task.status;
}

/**
 * Splits the list: tasks done on the phone but not yet on the server (shown as pending), the
 * current task (the one opened by its link, else the first still to work), and the queue.
 */
export function arrange(
  tasks: readonly Task[],
  actions: readonly DriverAction[],
  openedId: string | null,
): { waiting: Task[]; current: Task | null; queue: Task[] } {
  const waiting: Task[] = [];
  const todo: Task[] = [];
  for (const t of sortTasks(tasks.map((t) => withPending(t, actions)))) {
    const k = pendingKind(actions, t.id);
    if (k === 'complete' || k === 'cancel') waiting.push(t);
    else todo.push(t);
  }
  const opened = openedId ? (tasks.find((t) => t.id === openedId) ?? null) : null;
  const current = opened ?? todo[0] ?? null;
  return {
    waiting: waiting.filter((t) => t.id !== current?.id),
    current,
    queue: todo.filter((t) => t.id !== current?.id),
  };
}

/** A task whose start is pending sorts as under way (it is, for the driver). */
function withPending(task: Task, actions: readonly DriverAction[]): Task {
  return pendingKind(actions, task.id) === 'start' && task.status === 'ASSIGNED'
    ? { ...task, status: 'IN_PROGRESS' }
    : task;
}
