import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../../shared/ui/common/api/problem';
import { availabilityWords, pickerOrder } from '../../../shared/ui/dashboard/tasks/driver-words';
import type { DriverAvailability } from '../../../shared/ui/dashboard/tasks/task-data';
import { applyTaskEvent, RECENT_DONE } from '../../../shared/ui/dashboard/tasks/task-lists';
import {
  actionsFor,
  createFieldErrors,
  isConflict,
  priorityWords,
  type Task,
  taskProblemWords,
} from '../../../shared/ui/dashboard/tasks/task-words';

const YARD = 'y1';
function task(over: Partial<Task> & { id: string }): Task {
  return {
    yardId: YARD,
    type: 'move',
    trailerId: null,
    fromLocationId: null,
    toLocationId: null,
    priority: 1,
    status: 'QUEUED',
    driverId: null,
    notes: null,
    dueAt: null,
    createdBy: null,
    createdAt: '2026-01-01T10:00:00Z',
    updatedAt: '2026-01-01T10:00:00Z',
    assignedAt: null,
    startedAt: null,
    completedAt: null,
    cancelledAt: null,
    cancelReason: null,
    billedCarrierId: null,
    version: 1,
    ...over,
  };
}
const problem = (status: number, code: string, detail: string, errors?: ProblemError['problem']['errors']) =>
  new ProblemError({ status, code, title: code, detail, ...(errors ? { errors } : {}) });

describe('task words', () => {
  it('priority 0..3 in words; out-of-range values are clamped', () => {
    expect([0, 1, 2, 3].map(priorityWords)).toEqual(['Low', 'Normal', 'High', 'Urgent']);
    expect(priorityWords(9)).toBe('Urgent');
    expect(priorityWords(-2)).toBe('Low');
  });

  it('which changes each status takes (the API state machine)', () => {
    expect(actionsFor('QUEUED')).toEqual({ assign: true, unassign: false, cancel: true });
    expect(actionsFor('ASSIGNED')).toEqual({ assign: true, unassign: true, cancel: true });
    expect(actionsFor('IN_PROGRESS')).toEqual({ assign: false, unassign: false, cancel: true });
    expect(actionsFor('COMPLETED')).toEqual({ assign: false, unassign: false, cancel: false });
  });

  it('a 412 says someone else changed the task and that the list was reloaded; conflicts reload', () => {
    const stale = problem(412, 'precondition-failed', 'The record changed since you read it.');
    expect(taskProblemWords(stale)).toBe(
      'Someone changed this task since the list was loaded. The list has been reloaded: check the task and try again.',
    );
    expect(isConflict(stale)).toBe(true);
    expect(isConflict(problem(409, 'invalid-transition', 'The task is COMPLETED.'))).toBe(true);
    expect(isConflict(problem(400, 'validation-failed', 'x'))).toBe(false);
    expect(taskProblemWords(new Error('x'))).toBe('Something went wrong. Try again.');
  });

  it("the server's field errors land on the create form's fields", () => {
    const err = problem(400, 'validation-failed', 'Invalid', [
      { path: 'body.notes', message: 'at most 2000 characters' },
      { path: 'body.priority', message: 'at most 3' },
      { path: 'body.unknown', message: 'ignored' },
    ]);
    expect(createFieldErrors(err)).toEqual({ notes: 'at most 2000 characters', priority: 'at most 3' });
  });
});

describe('applyTaskEvent: live task events update the lists', () => {
  const a = task({ id: 'a', priority: 1, createdAt: '2026-01-01T09:00:00Z' });
  const b = task({ id: 'b', priority: 3, createdAt: '2026-01-01T11:00:00Z' });

  it('a new task joins the open list in dispatch order (urgent first, then oldest)', () => {
    const next = applyTaskEvent({ open: [a], done: [] }, 'task.created', b, YARD);
    expect(next.open.map((t) => t.id)).toEqual(['b', 'a']);
  });

  it('an assignment replaces the row; a cancellation moves it to the recent list', () => {
    const assigned = { ...a, status: 'ASSIGNED' as const, driverId: 'd1', version: 2 };
    let lists = applyTaskEvent({ open: [a, b], done: [] }, 'task.assigned', assigned, YARD);
    expect(lists.open.find((t) => t.id === 'a')?.driverId).toBe('d1');
    const cancelled = {
      ...assigned,
      status: 'CANCELLED' as const,
      cancelledAt: '2026-01-01T12:00:00Z',
      version: 3,
    };
    lists = applyTaskEvent(lists, 'task.cancelled', cancelled, YARD);
    expect(lists.open.map((t) => t.id)).toEqual(['b']);
    expect(lists.done.map((t) => t.id)).toEqual(['a']);
  });

  it("an older version than the list's, another yard's task, or a delete are handled", () => {
    const newer = { ...a, version: 5, priority: 2 };
    expect(applyTaskEvent({ open: [newer], done: [] }, 'task.updated', a, YARD).open[0]?.version).toBe(5);
    const lists = { open: [a], done: [] };
    expect(applyTaskEvent(lists, 'task.created', task({ id: 'x', yardId: 'other' }), YARD)).toBe(lists);
    expect(applyTaskEvent(lists, 'task.deleted', a, YARD).open).toEqual([]);
  });

  it('the recent list keeps the latest finished ones only', () => {
    const done = Array.from({ length: RECENT_DONE }, (_, i) =>
      task({ id: `d${i}`, status: 'COMPLETED', completedAt: `2026-01-01T0${i % 10}:00:00Z` }),
    );
    const latest = task({ id: 'new', status: 'COMPLETED', completedAt: '2026-01-02T00:00:00Z' });
    const next = applyTaskEvent({ open: [], done }, 'task.completed', latest, YARD);
    expect(next.done).toHaveLength(RECENT_DONE);
    expect(next.done[0]?.id).toBe('new');
  });
});

describe('driver picker', () => {
  const session = (yardId: string) => ({
    id: 's',
    yardId,
    deviceId: null,
    startedAt: '2026-01-01T08:00:00Z',
    lastCheckAt: null,
    lastLocation: null,
  });
  const d = (over: Partial<DriverAvailability>): DriverAvailability => ({
    driverId: 'x',
    name: 'X',
    driverCode: null,
    availability: 'offline',
    session: null,
    openTasks: 0,
    ...over,
  });

  it('says where each driver stands for this yard', () => {
    expect(availabilityWords(d({ availability: 'available', session: session(YARD) }), YARD)).toBe(
      'on shift, available (0 open tasks)',
    );
    expect(availabilityWords(d({ availability: 'busy', session: session(YARD), openTasks: 1 }), YARD)).toBe(
      'on shift, busy (1 open task)',
    );
    expect(availabilityWords(d({ availability: 'available', session: session('y2') }), YARD)).toBe(
      'on shift at another yard',
    );
    expect(availabilityWords(d({}), YARD)).toBe('not on shift');
  });

  it('orders on shift here and free first, then busy, then the rest', () => {
    const order = pickerOrder(
      [
        d({ driverId: 'off', name: 'A' }),
        d({ driverId: 'busy', name: 'B', availability: 'busy', session: session(YARD) }),
        d({ driverId: 'free', name: 'C', availability: 'available', session: session(YARD) }),
      ],
      YARD,
    );
    expect(order.map((x) => x.driverId)).toEqual(['free', 'busy', 'off']);
  });
});
