import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { AppError, ValidationError } from '../../http/errors.js';
import type { TaskOutT } from '../tasks/schema.js';
import type { TaskService } from '../tasks/service.js';
import { driverIdOf } from './acting-driver.js';

export type DriverTransition = 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED';

interface BatchResult {
  taskId: string;
  ok: boolean;
  task?: TaskOutT;
  error?: { status: number; code: string; detail: string };
}

export type TaskBatchDeps = Pick<CoreParts, 'log'> & { tasks: Pick<TaskService, 'transition'> };

/**
 * Applies one transition to each task in order, each on its own (a result per task): one task
 * that cannot move does not hold back the others. The rules live in TaskService.transition.
 */
export async function transitionBatch(
  deps: TaskBatchDeps,
  principal: Principal,
  to: DriverTransition,
  input: {
    taskIds: string[];
    reason?: string | undefined;
    lat?: number | undefined;
    lon?: number | undefined;
    tappedAt?: number | undefined;
  },
): Promise<{ results: BatchResult[] }> {
  driverIdOf(principal);
  if ((input.lat === undefined) !== (input.lon === undefined)) {
    throw new ValidationError([{ path: 'body.lon', message: 'lat and lon come together' }]);
  }
  const opts = {
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
    ...(input.lat !== undefined && input.lon !== undefined ? { lat: input.lat, lon: input.lon } : {}),
    ...(input.tappedAt !== undefined ? { tappedAt: input.tappedAt } : {}),
  };
  const results: BatchResult[] = [];
  for (const taskId of input.taskIds) {
    try {
      const task = await deps.tasks.transition(principal, taskId, to, opts);
      results.push({ taskId, ok: true, task });
    } catch (err) {
      if (err instanceof AppError) {
        results.push({
          taskId,
          ok: false,
          error: { status: err.status, code: err.code, detail: err.detail },
        });
      } else {
        deps.log.error({ err, taskId, to }, 'task transition failed unexpectedly');
        results.push({
          taskId,
          ok: false,
          error: { status: 500, code: 'internal-error', detail: 'The task could not be changed; try again.' },
        });
      }
    }
  }
  return { results };
}
