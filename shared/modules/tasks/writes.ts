import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import type { TaskStatus } from '../../db/tables.js';
import type { LiveEventType } from '../../events.js';
import { newId } from '../../ids.js';
import type { RowPatch } from '../../sync/change-capture.js';
import type { PushService } from '../push/service.js';
import { taskOut } from './out.js';
import type { TaskRow } from './repo.js';

export interface Actor {
  id: string | null;
  kind: 'user' | 'driver' | 'api-key' | 'system';
}

export const SYSTEM_ACTOR: Actor = { id: null, kind: 'system' };

export function actorOf(principal: Principal): Actor {
  return { id: principal.id, kind: principal.kind };
}

export interface EventDetail {
  actor: Actor;
  /** The driver concerned: the assignee after the event, or the one taken off the task. */
  driverId: string | null;
  reason?: string | undefined;
  lat?: number | undefined;
  lon?: number | undefined;
  /** When the driver tapped the action (already bounded: transition.ts `actedAt`). */
  tappedAt?: number | undefined;
}

/** What a task write uses: the clock and the change log (the caller opens the transaction). */
export type TaskWriteDeps = Pick<CoreParts, 'clock' | 'changes'>;

/** What announcing a task change uses: the bus (SSE), the push service, the log. */
export type AnnounceDeps = Pick<CoreParts, 'bus' | 'log'> & { push: Pick<PushService, 'notify'> };

/** The task_event row of one transition (history), in the caller's transaction. */
export async function writeEvent(
  deps: TaskWriteDeps,
  trx: Kdb,
  task: Pick<TaskRow, 'id' | 'yardId'>,
  from: TaskStatus | null,
  to: TaskStatus,
  detail: EventDetail,
): Promise<void> {
  const now = deps.clock.now();
  await deps.changes.insert(trx, 'taskEvent', {
    id: newId(),
    taskId: task.id,
    yardId: task.yardId,
    at: now,
    actorId: detail.actor.id,
    actorKind: detail.actor.kind,
    fromStatus: from,
    toStatus: to,
    driverId: detail.driverId,
    reason: detail.reason ?? null,
    lat: detail.lat ?? null,
    lon: detail.lon ?? null,
    tappedAt: detail.tappedAt ?? null,
    createdAt: now,
  });
}

/**
 * Moves a task (read in this same transaction) to `to` with the other field changes, and writes
 * its event. The version check makes a concurrent writer that read the same row lose.
 */
export async function writeTransition(
  deps: TaskWriteDeps,
  trx: Kdb,
  row: TaskRow,
  to: TaskStatus,
  patch: RowPatch<'yardTask'>,
  detail: EventDetail,
): Promise<TaskRow> {
  const written = await deps.changes.update(
    trx,
    'yardTask',
    row.id,
    { ...patch, status: to },
    { expectedVersion: row.version },
  );
  if (!written) throw new Error(`yard task ${row.id} vanished inside its own transaction`);
  await writeEvent(deps, trx, row, row.status, to, detail);
  return written;
}

/** The task events of the event map (shared/events.ts). */
export type TaskEventType = Extract<LiveEventType, `task.${string}`>;

/** Something to tell once the transaction committed: an SSE event, and for drivers a push message. */
export interface Announcement {
  type: TaskEventType;
  task: TaskRow;
  driverId: string | null;
  push?: { title: string; body: string } | undefined;
}

const PUSH_TEXT: Partial<Record<TaskEventType, (task: TaskRow) => { title: string; body: string }>> = {
  'task.assigned': (t) => ({ title: 'New yard task', body: `${label(t)} is assigned to you.` }),
  'task.unassigned': (t) => ({ title: 'Task reassigned', body: `${label(t)} was taken off your list.` }),
  'task.cancelled': (t) => ({
    title: 'Task cancelled',
    body: `${label(t)} was cancelled${t.cancelReason ? `: ${t.cancelReason}` : '.'}`,
  }),
};

/** DOMAIN.md: priority 0 low .. 3 urgent (the driver app uses the same words); normal goes unsaid. */
const PRIORITY_WORDS = ['Low-priority', '', 'High-priority', 'Urgent'];

/** "Urgent pull to door task", "Move task": no article, so that every type reads right. */
function label(task: TaskRow): string {
  const type = task.type.replaceAll('_', ' ');
  const words = PRIORITY_WORDS[task.priority] ?? `Priority ${task.priority}`;
  return words ? `${words} ${type} task` : `${type.charAt(0).toUpperCase()}${type.slice(1)} task`;
}

/** The announcement of an event; drivers get a push message for (re)assignment and cancellation. */
export function announcement(
  type: TaskEventType,
  task: TaskRow,
  driverId: string | null,
  options: { push?: boolean } = {},
): Announcement {
  const text = PUSH_TEXT[type];
  return { type, task, driverId, push: options.push !== false && text && driverId ? text(task) : undefined };
}

/** After commit: SSE events at once, then push messages (which never fail the operation). */
export function announce(deps: AnnounceDeps, announcements: Announcement[]): void {
  for (const a of announcements) {
    const data = taskOut(a.task);
    deps.bus.publish({ type: a.type, yardId: a.task.yardId, driverId: a.driverId, data });
    if (a.push && a.driverId) {
      const message = { ...a.push, data: { event: a.type, taskId: a.task.id } };
      // notify() never throws by contract; guard anyway so a push problem cannot fail a task write.
      Promise.resolve()
        .then(() => deps.push.notify(a.driverId as string, message))
        .catch((err: unknown) => deps.log.warn({ err, taskId: a.task.id }, 'push notification failed'));
    }
  }
}
