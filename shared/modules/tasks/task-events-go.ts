import type { AppDatabase } from '../../db/database.js';
import { type SqlWork, sqlRun, statement } from '../../db/sql-work.js';
import { type AnyRowObserver, type RowWrite, workObserver } from '../../sync/row-observers.js';

/**
 * A deleted yard task takes its task events with it (they reference it): told before the task's
 * row is deleted (RowObservers.addBeforeDelete), in the delete's transaction, on both write paths.
 * A local delete (edits.ts deleteTask) first deletes the events through ChangeCapture, so that
 * peers delete them too, and this finds none left; a delete applied by sync also takes the events
 * the deleting side never saw.
 */
export function taskEventsGoWithTask(db: AppDatabase): AnyRowObserver {
  return workObserver(db, { tables: TASK, writes: EVENTS }, taskDeleting);
}

const TASK: ReadonlySet<string> = new Set(['yardTask']);
const EVENTS: ReadonlySet<string> = new Set(['taskEvent']);

function* taskDeleting({ before }: RowWrite): SqlWork<void> {
  if (typeof before?.id !== 'string') return;
  yield* sqlRun(TASK_EVENTS_DELETED, [before.id]);
}

const TASK_EVENTS_DELETED = statement(
  'task_event|by-task',
  'changes',
  'DELETE FROM task_event WHERE task_id = ?',
);
