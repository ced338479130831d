import { assertCanSeeYard, type Principal, visibleOr404 } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import {
  ConflictError,
  InvalidTransitionError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { RowPatch } from '../../sync/change-capture.js';
import { TaskRefs } from './refs.js';
import { relocationErrors } from './relocation.js';
import { type TaskRow, taskRepo } from './repo.js';
import type { TaskCreateT, TaskPatchT, TaskPutT } from './schema.js';
import { assertEditable, assertTransition } from './state-machine.js';
import {
  type Actor,
  type Announcement,
  actorOf,
  announcement,
  writeEvent,
  writeTransition,
} from './writes.js';

export interface WriteOutcome {
  rows: TaskRow[];
  announcements: Announcement[];
  /** Yards whose queue or drivers changed: run dispatch there after commit. */
  yards: Set<string>;
}

/** What creating and editing tasks uses: the database, the clock and the change log. */
export type TaskEditDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'>;
/** Creates tasks, all or nothing: every task is checked before the first row is written. */
export async function createTasks(
  deps: TaskEditDeps,
  principal: Principal,
  inputs: TaskCreateT[],
  batch: boolean,
): Promise<WriteOutcome> {
  inputs.forEach((input, i) => {
    assertCanSeeYard(principal, input.yardId, batch ? `tasks[${i}]` : undefined);
  });
  const shapeErrors = inputs.flatMap((input, i) =>
    relocationErrors(input, batch ? `body.tasks[${i}]` : 'body'),
  );
  if (shapeErrors.length > 0) throw new ValidationError(shapeErrors);
  const actor = actorOf(principal);
  return deps.kysely.transaction().execute(async (trx) => {
    const givenIds = inputs.flatMap((t) => (t.id ? [t.id] : []));
    const [taken] = await taskRepo.byIds(trx, givenIds);
    if (taken)
      throw new ConflictError('duplicate', `A task with id ${taken.id} exists already.`, { id: taken.id });
    const refs = new TaskRefs(trx);
    const pickups: Array<string | null> = [];
    for (const [i, input] of inputs.entries()) {
      const label = batch ? `tasks[${i}]: ` : '';
      await refs.yard(input.yardId, label);
      await refs.fields(input.yardId, input, label);
      pickups.push(await pickupOf(refs, input.yardId, input));
    }
    const out: WriteOutcome = { rows: [], announcements: [], yards: new Set() };
    for (const [i, input] of inputs.entries()) {
      const created = await insertTask(deps, trx, principal, actor, {
        ...input,
        fromLocationId: pickups[i] ?? null,
      });
      out.announcements.push(announcement('task.created', created, null));
      let row = created;
      if (input.driverId) {
        row = await writeTransition(
          deps,
          trx,
          created,
          'ASSIGNED',
          { driverId: input.driverId, assignedAt: deps.clock.now() },
          { actor, driverId: input.driverId },
        );
        out.announcements.push(announcement('task.assigned', row, input.driverId));
      } else out.yards.add(input.yardId);
      out.rows.push(row);
    }
    return out;
  });
}

/**
 * Where the jockey picks the trailer up: the given place, else the spot the trailer stands on now
 * (docs/domain.md "Creating and editing"). Kept on the task, so it records where the trailer was
 * when the task was made, and every reader (the driver's card, the dashboard, a peer after sync)
 * shows it without asking for the trailer.
 */
async function pickupOf(
  refs: TaskRefs,
  yardId: string,
  task: { trailerId?: string | null | undefined; fromLocationId?: string | null | undefined },
): Promise<string | null> {
  if (task.fromLocationId) return task.fromLocationId;
  return task.trailerId ? refs.trailer(yardId, task.trailerId) : null;
}

async function insertTask(
  deps: TaskEditDeps,
  trx: Kdb,
  principal: Principal,
  actor: Actor,
  input: TaskCreateT,
) {
  const now = deps.clock.now();
  const row = await deps.changes.insert(trx, 'yardTask', {
    id: input.id ?? newId(),
    yardId: input.yardId,
    type: input.type,
    trailerId: input.trailerId ?? null,
    fromLocationId: input.fromLocationId ?? null,
    toLocationId: input.toLocationId ?? null,
    priority: input.priority ?? 1,
    status: 'QUEUED',
    driverId: null,
    notes: input.notes ?? null,
    dueAt: input.dueAt ?? null,
    createdBy: principal.id,
    createdAt: now,
    updatedAt: now,
    assignedAt: null,
    startedAt: null,
    completedAt: null,
    cancelledAt: null,
    cancelReason: null,
    billedCarrierId: null,
  });
  await writeEvent(deps, trx, row, null, 'QUEUED', { actor, driverId: null });
  return row;
}

/** PUT: the whole editable record (omitted nullable fields become null; omitted driverId stays). */
export function replaceTask(
  deps: TaskEditDeps,
  principal: Principal,
  id: string,
  body: TaskPutT,
  ifMatch?: number,
) {
  return editTask(deps, principal, id, ifMatch, {
    fields: {
      type: body.type,
      priority: body.priority,
      trailerId: body.trailerId ?? null,
      fromLocationId: body.fromLocationId ?? null,
      toLocationId: body.toLocationId ?? null,
      notes: body.notes ?? null,
      dueAt: body.dueAt ?? null,
    },
    driverId: body.driverId,
  });
}

/** PATCH: the fields sent; `driverId` assigns or unassigns; `status: CANCELLED` cancels. */
export function patchTask(
  deps: TaskEditDeps,
  principal: Principal,
  id: string,
  body: TaskPatchT,
  ifMatch?: number,
) {
  const { driverId, status, cancelReason, ...fields } = body;
  return editTask(deps, principal, id, ifMatch, {
    fields,
    driverId,
    cancelReason: status === 'CANCELLED' ? cancelReason : undefined,
  });
}

interface Edit {
  fields: RowPatch<'yardTask'>;
  driverId?: string | null | undefined;
  cancelReason?: string | undefined;
}

async function editTask(
  deps: TaskEditDeps,
  principal: Principal,
  id: string,
  ifMatch: number | undefined,
  edit: Edit,
): Promise<WriteOutcome> {
  const actor = actorOf(principal);
  return deps.kysely.transaction().execute(async (trx) => {
    const row = await loadForStaffToWrite(trx, principal, id);
    if (ifMatch !== undefined && ifMatch !== row.version) throw new PreconditionFailedError(row.version);
    assertEditable(row.status);
    const changed = Object.fromEntries(
      Object.entries(edit.fields).filter(([k, v]) => v !== undefined && row[k as keyof TaskRow] !== v),
    ) as RowPatch<'yardTask'>;
    const merged = { ...row, ...changed };
    // A cancel keeps the task as it was: an incomplete old task can still be cancelled.
    const shapeErrors = edit.cancelReason === undefined ? relocationErrors(merged, 'body') : [];
    if (shapeErrors.length > 0) throw new ValidationError(shapeErrors);
    const refs = new TaskRefs(trx);
    await refs.fields(row.yardId, {
      trailerId: changed.trailerId,
      fromLocationId: changed.fromLocationId,
      toLocationId: changed.toLocationId,
    });
    // An edit that changes the trailer or clears the pickup place: picked up where it stands now.
    const touched = changed.trailerId !== undefined || changed.fromLocationId !== undefined;
    if (touched && merged.trailerId && !merged.fromLocationId) {
      const spot = await pickupOf(refs, row.yardId, { trailerId: merged.trailerId });
      if (spot) changed.fromLocationId = spot;
    }
    const out: WriteOutcome = { rows: [], announcements: [], yards: new Set([row.yardId]) };
    const now = deps.clock.now();
    if (edit.cancelReason !== undefined) {
      assertTransition(row.status, 'CANCELLED');
      const written = await writeTransition(
        deps,
        trx,
        row,
        'CANCELLED',
        { ...changed, cancelledAt: now, cancelReason: edit.cancelReason },
        { actor, driverId: row.driverId, reason: edit.cancelReason },
      );
      out.rows.push(written);
      out.announcements.push(announcement('task.cancelled', written, row.driverId));
      return out;
    }
    if (edit.driverId !== undefined && edit.driverId !== row.driverId) {
      const to = edit.driverId === null ? 'QUEUED' : 'ASSIGNED';
      assertTransition(row.status, to);
      if (edit.driverId) await refs.driver(edit.driverId);
      const written = await writeTransition(
        deps,
        trx,
        row,
        to,
        { ...changed, driverId: edit.driverId, assignedAt: edit.driverId ? now : null },
        { actor, driverId: edit.driverId ?? row.driverId },
      );
      out.rows.push(written);
      if (row.driverId) out.announcements.push(announcement('task.unassigned', written, row.driverId));
      if (edit.driverId) out.announcements.push(announcement('task.assigned', written, edit.driverId));
      return out;
    }
    const written = await deps.changes.update(trx, 'yardTask', row.id, changed, {
      expectedVersion: row.version,
    });
    if (!written) throw new NotFoundError('Task', id);
    out.rows.push(written);
    if (written.version !== row.version) {
      out.announcements.push(announcement('task.updated', written, written.driverId, { push: false }));
    }
    return out;
  });
}

/** DELETE: only a QUEUED task; its history goes with it (the change_log rows are tombstones). */
export async function deleteTask(deps: TaskEditDeps, principal: Principal, id: string, ifMatch?: number) {
  return deps.kysely.transaction().execute(async (trx) => {
    const row = await loadForStaffToWrite(trx, principal, id);
    if (ifMatch !== undefined && ifMatch !== row.version) throw new PreconditionFailedError(row.version);
    if (row.status !== 'QUEUED') {
      throw new InvalidTransitionError(
        row.status,
        'DELETED',
        `Only a QUEUED task can be deleted; this one is ${row.status}.`,
      );
    }
    for (const event of await taskRepo.eventIdsOf(trx, id))
      await deps.changes.delete(trx, 'taskEvent', event.id);
    await deps.changes.delete(trx, 'yardTask', id);
    return row;
  });
}

/** The task, or 404 when it does not exist or lies outside the principal's yard scope. */
export async function loadForStaff(db: Kdb, principal: Principal, id: string): Promise<TaskRow> {
  return visibleOr404(principal, await taskRepo.byId(db, id), 'Task', id);
}

/**
 * As loadForStaff, in a write transaction that decides on the row: of concurrent changes of one
 * task the later ones see the first one's result (412 on a stale If-Match, 409 on a transition no
 * longer allowed) on PostgreSQL as on SQLite.
 */
export async function loadForStaffToWrite(trx: Kdb, principal: Principal, id: string): Promise<TaskRow> {
  return visibleOr404(principal, await taskRepo.byIdToWrite(trx, id), 'Task', id);
}
