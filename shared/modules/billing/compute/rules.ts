import { RELOCATING_TASK_TYPES, type TaskType } from '../../../enums.js';
import type { Span } from './period.js';

/**
 * What the services count for the computation's `moves` and `checkIns` (docs/domain.md "Billing"),
 * in one place so the summary and the invoice count alike.
 */

/**
 * The task types that relocate a trailer: a COMPLETED task of one of these, of the carrier's
 * trailer (billedCarrierId), with completedAt in W, is one billed move. The list is the one the
 * tasks module relocates trailers by (shared/enums.ts).
 */
export const BILLED_TASK_TYPES: readonly TaskType[] = RELOCATING_TASK_TYPES;

/**
 * `at` lies in the window [start, end): a check-in (an `in` movement of the carrier) or a completed
 * move is billed in P when this holds. A check-in is billed even when its visit turns out shorter
 * than the grace minutes: grace decides presence (overage), not whether the gate was used.
 */
export function inWindow(at: number, window: Span): boolean {
  return at >= window.start && at < window.end;
}
