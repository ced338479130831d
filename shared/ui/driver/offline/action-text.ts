import { problemText } from '../../common/api/words';
import type { ActionKind } from './outbox-queue';

/**
 * The words the driver reads about queued and refused actions: one home, shared by the pending
 * list and the conflicts. Pure (tested in test/unit/ui/driver-outbox-text.test.ts).
 */
const KIND: Record<ActionKind, string> = { start: 'Start', complete: 'Complete', cancel: 'Cancel' };

export function kindLabel(kind: ActionKind): string {
  return KIND[kind];
}

interface Described {
  kind: ActionKind;
  taskId: string;
  label?: string;
}

/**
 * The task as the driver knows it (the label the screen gave, e.g. "Move: trailer PRHU 100001"), else the end of
 * its id: ids are UUIDv7, whose first characters are the creation time, alike for a day's tasks.
 */
export function taskName(action: Described): string {
  return action.label ?? `Task …${action.taskId.slice(-6).toUpperCase()}`;
}

/**
 * A refused action in plain words: what happened to the task, that this action was not applied,
 * and what to do. `code` and `detail` are the server's (the task's error or the problem).
 */
export function conflictMessage(action: Described, code: string, detail: string): string {
  const task = taskName(action);
  const notApplied = `your ${kindLabel(action.kind)} was not applied`;
  switch (code) {
    case 'forbidden':
      return `${task} was reassigned to someone else meanwhile: ${notApplied}. Check your current task.`;
    case 'not-found':
      return `${task} no longer exists: ${notApplied}. Check your current task.`;
    case 'invalid-transition':
      return `${task} was changed meanwhile (${detail}): ${notApplied}. Check your current task.`;
    case 'no-active-session':
      return `${task}: ${notApplied} because your shift was not open. Start your shift, then try again.`;
    default:
      // The server's detail only when it is in the driver's words (common/api/words.ts).
      return `${task}: ${notApplied}. ${problemText({ status: 409, code, detail })}`;
  }
}
