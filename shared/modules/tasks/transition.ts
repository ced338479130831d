import type { Principal } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { ConflictError, ForbiddenError, ValidationError } from '../../http/errors.js';
import type { RowPatch } from '../../sync/change-capture.js';
import type { TrailerService } from '../trailers/service.js';
import { billedCarrierOf, relocatesTrailer, spotOnCompletion } from './completion.js';
import type { TaskEditDeps, WriteOutcome } from './edits.js';
import { loadForStaffToWrite } from './edits.js';
import { type TaskRow, taskRepo } from './repo.js';
import { assertTransition } from './state-machine.js';
import { actorOf, announcement, type TaskEventType, writeTransition } from './writes.js';

export type WorkTransition = 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED';
export interface TransitionOptions {
  reason?: string | undefined;
  lat?: number | undefined;
  lon?: number | undefined;
  /** When the driver tapped it on the phone (ms), for actions queued offline and sent later. */
  tappedAt?: number | undefined;
}

/** A phone's clock may run this far ahead of the server's; a tap later than that is refused. */
export const TAP_CLOCK_SKEW_MS = 30_000;

/**
 * When the action counts as done (docs/domain.md "Working a task"): the tap, as the phone says,
 * kept between the task's previous step (a start is never before the assignment, a completion never
 * before the start) and the server's now. A tap more than TAP_CLOCK_SKEW_MS in the future is a
 * wrong phone clock: 400. Without a tap time, now.
 */
export function actedAt(row: TaskRow, to: WorkTransition, now: number, tappedAt: number | undefined): number {
  if (tappedAt === undefined) return now;
  if (tappedAt > now + TAP_CLOCK_SKEW_MS) {
    throw new ValidationError([
      {
        path: 'body.tappedAt',
        message: `is ahead of the server's clock by more than ${TAP_CLOCK_SKEW_MS / 1000} s: set the phone's clock`,
        code: 'tapped-in-future',
      },
    ]);
  }
  const previous =
    to === 'COMPLETED'
      ? (row.startedAt ?? row.assignedAt ?? row.createdAt)
      : to === 'IN_PROGRESS'
        ? (row.assignedAt ?? row.createdAt)
        : Math.max(row.createdAt, row.assignedAt ?? 0, row.startedAt ?? 0);
  return Math.min(now, Math.max(previous, tappedAt));
}

const EVENT_OF: Record<WorkTransition, TaskEventType> = {
  IN_PROGRESS: 'task.started',
  COMPLETED: 'task.completed',
  CANCELLED: 'task.cancelled',
};

/**
 * Start, complete or cancel, checked and written in one transaction. The task is read inside the
 * transaction, so of two concurrent requests for the same change the second finds the new status
 * and gets 409 invalid-transition.
 */
/** A completed move puts its trailer on the new spot through the trailers module. */
export type TransitionDeps = TaskEditDeps & { trailers: Pick<TrailerService, 'placeOnSpot'> };

export function transitionTask(
  deps: TransitionDeps,
  principal: Principal,
  taskId: string,
  to: WorkTransition,
  opts: TransitionOptions,
): Promise<WriteOutcome> {
  const reason = opts.reason?.trim();
  if (to === 'CANCELLED' && !reason) {
    throw new ValidationError([{ path: 'reason', message: 'a cancellation needs a reason' }]);
  }
  return deps.kysely.transaction().execute(async (trx) => {
    const row =
      principal.role === 'driver'
        ? await loadOwn(trx, principal, taskId)
        : await loadForStaffToWrite(trx, principal, taskId);
    assertTransition(row.status, to);
    // The task's times are when the driver acted; the event also keeps when it arrived (writeEvent).
    const now = actedAt(row, to, deps.clock.now(), opts.tappedAt);
    let patch: RowPatch<'yardTask'>;
    if (to === 'IN_PROGRESS') {
      await assertActiveSession(trx, row);
      patch = { startedAt: now };
    } else if (to === 'COMPLETED') {
      patch = { completedAt: now, ...(await moveTrailer(deps, trx, row)) };
    } else {
      patch = { cancelledAt: now, cancelReason: reason ?? null };
    }
    const written = await writeTransition(deps, trx, row, to, patch, {
      actor: actorOf(principal),
      driverId: row.driverId,
      reason,
      lat: opts.lat,
      lon: opts.lon,
      tappedAt: opts.tappedAt === undefined ? undefined : now,
    });
    // The driver who acted needs no push about their own action.
    const push = !(principal.role === 'driver' && principal.id === row.driverId);
    return {
      rows: [written],
      announcements: [announcement(EVENT_OF[to], written, row.driverId, { push })],
      yards: new Set([row.yardId]),
    };
  });
}

/** A driver acts only on tasks assigned to them: 404 if unknown, 403 if someone else's. */
async function loadOwn(db: Kdb, principal: Principal, taskId: string): Promise<TaskRow> {
  const row = await loadForStaffToWrite(db, principal, taskId);
  if (row.driverId !== (principal.driverId ?? principal.id)) {
    throw new ForbiddenError('The task is not assigned to you.');
  }
  return row;
}

async function assertActiveSession(db: Kdb, row: TaskRow): Promise<void> {
  const session = row.driverId ? await taskRepo.openSessionOf(db, row.driverId) : undefined;
  if (session?.yardId !== row.yardId) {
    throw new ConflictError(
      'no-active-session',
      'Starting a task needs an active driver session in the task’s yard. Start a session first.',
    );
  }
}

/**
 * Completing a relocating task puts the trailer on the task's destination if it is still in the
 * task's yard, and bills the move to the carrier of the trailer's visit (completion.ts).
 */
async function moveTrailer(deps: TransitionDeps, trx: Kdb, row: TaskRow): Promise<RowPatch<'yardTask'>> {
  if (!relocatesTrailer(row)) return {};
  const trailer = await taskRepo.trailer(trx, row.trailerId);
  if (!trailer) return {};
  const spot = spotOnCompletion(row, trailer);
  if (spot !== null) await deps.trailers.placeOnSpot(trx, trailer.id, spot);
  return { billedCarrierId: billedCarrierOf(trailer, await taskRepo.openVisitOf(trx, trailer.id)) };
}
