import type { TaskType } from '../../enums.js';
import { relocates } from './relocation.js';

/**
 * What completing a task does to its trailer (docs/domain.md "Working a task"), as pure rules so
 * that the unit tests (and mutation testing) check them; transition.ts reads the rows and writes.
 */

export interface CompletedTask {
  type: TaskType;
  yardId: string;
  trailerId: string | null;
  toLocationId: string | null;
}

/** Whether completing the task relocates (and bills) its trailer. */
export function relocatesTrailer(task: CompletedTask): task is CompletedTask & { trailerId: string } {
  return task.trailerId !== null && relocates(task.type);
}

/**
 * The spot the trailer stands on once the task is completed: the task's destination while the
 * trailer is still in the task's yard; null (left where it is) when it has no destination or the
 * trailer left the yard before the task was completed.
 */
export function spotOnCompletion(task: CompletedTask, trailer: { yardId: string | null }): string | null {
  if (task.toLocationId === null || trailer.yardId !== task.yardId) return null;
  return task.toLocationId;
}

/**
 * The carrier a completed move is billed to: the carrier of the trailer's open visit (the carrier on
 * its in-movement, which for a pooled trailer is not the carrier on the trailer's record, and may be
 * none); the trailer's own carrier only when it has no open visit.
 */
export function billedCarrierOf(
  trailer: { carrierId: string | null },
  openVisit: { carrierId: string | null } | undefined,
): string | null {
  return openVisit === undefined ? trailer.carrierId : openVisit.carrierId;
}
