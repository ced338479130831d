import { OPEN_STATUSES, type Task } from './task-words';

/** How many finished tasks the screen lists (the most recently finished). */
export const RECENT_DONE = 20;

/** When a finished task finished (completed or cancelled). */
export function finishedAt(t: Task): string {
  return t.completedAt ?? t.cancelledAt ?? t.updatedAt;
}

/**
 * Applies one live task event to the lists: an open task is replaced or added, a finished one moves
 * to the recent list, a deleted one goes. Events of other yards are ignored. Pure.
 */
export function applyTaskEvent(
  lists: { open: Task[]; done: Task[] },
  type: string,
  task: Task,
  yardId: string,
): { open: Task[]; done: Task[] } {
  if (task.yardId !== yardId) return lists;
  const open = lists.open.filter((t) => t.id !== task.id);
  const done = lists.done.filter((t) => t.id !== task.id);
  if (type === 'task.deleted') return { open, done };
  // An older event than what the list shows (a reload raced it) changes nothing.
  const known = [...lists.open, ...lists.done].find((t) => t.id === task.id);
  if (known && known.version > task.version) return lists;
  if ((OPEN_STATUSES as readonly string[]).includes(task.status)) {
    return { open: [...open, task].sort(byUrgency), done };
  }
  return { open, done: [task, ...done].sort(byFinish).slice(0, RECENT_DONE) };
}

/** The dispatch order: most urgent first, then oldest. */
export function byUrgency(a: Task, b: Task): number {
  return b.priority - a.priority || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

export function byFinish(a: Task, b: Task): number {
  return finishedAt(b).localeCompare(finishedAt(a));
}
