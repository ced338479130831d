import { RELOCATING_TASK_TYPES, type TaskType } from '../../enums.js';
import type { FieldError } from '../../http/errors.js';

const RELOCATING: ReadonlySet<TaskType> = new Set(RELOCATING_TASK_TYPES);

/** Does completing a task of this type put its trailer somewhere (move, pull_to_door, ...)? */
export function relocates(type: TaskType): boolean {
  return RELOCATING.has(type);
}

/**
 * A task that relocates a trailer must say which trailer and where it goes: without them a jockey
 * has nothing to do and completing it moves nothing (docs/domain.md "Creating and editing").
 * `path` is where the task sits in the request ("body", "body.tasks[2]"); messages are the clerk's
 * words, as the dashboard shows them beside its fields.
 */
export function relocationErrors(
  task: { type: TaskType; trailerId?: string | null | undefined; toLocationId?: string | null | undefined },
  path: string,
): FieldError[] {
  if (!relocates(task.type)) return [];
  const errors: FieldError[] = [];
  if (!task.trailerId) {
    errors.push({ path: `${path}.trailerId`, message: 'Choose the trailer to move.', code: 'required' });
  }
  if (!task.toLocationId) {
    errors.push({
      path: `${path}.toLocationId`,
      message: 'Choose where the trailer goes.',
      code: 'required',
    });
  }
  return errors;
}
