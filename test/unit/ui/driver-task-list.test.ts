import { describe, expect, it } from 'vitest';
import type { DriverAction } from '../../../shared/ui/driver/offline/outbox';
import { taskIdOf } from '../../../shared/ui/driver/route';
import { cancelReasonText } from '../../../shared/ui/driver/screens/cancel-dialog';
import {
  applyTaskEvent,
  arrange,
  effectiveStatus,
  pendingKind,
  sortTasks,
  type Task,
  taskTitle,
} from '../../../shared/ui/driver/task-list';

const ME = 'd-me';

function task(id: string, over: Partial<Task> = {}): Task {
  return {
    id,
    yardId: 'y1',
    type: 'move',
    trailerId: null,
    fromLocationId: null,
    toLocationId: null,
    priority: 1,
    status: 'ASSIGNED',
    driverId: ME,
    notes: null,
    dueAt: null,
    createdBy: null,
    createdAt: '2026-11-25T08:00:00Z',
    updatedAt: '2026-11-25T08:00:00Z',
    assignedAt: '2026-11-25T08:00:00Z',
    startedAt: null,
    completedAt: null,
    cancelledAt: null,
    cancelReason: null,
    billedCarrierId: null,
    version: 1,
    ...over,
  };
}

function action(kind: DriverAction['kind'], taskId: string): DriverAction {
  return { id: `${kind}-${taskId}`, kind, taskId, at: '2026-11-25T09:00:00Z' };
}

describe('driver task list: order', () => {
  it('puts the task under way first, then the most urgent, then the oldest', () => {
    const list = sortTasks([
      task('old-low', { priority: 0, createdAt: '2026-11-25T07:00:00Z' }),
      task('new-urgent', { priority: 3, createdAt: '2026-11-25T09:00:00Z' }),
      task('old-urgent', { priority: 3, createdAt: '2026-11-25T08:00:00Z' }),
      task('started', { priority: 0, status: 'IN_PROGRESS' }),
    ]);
    expect(list.map((t) => t.id)).toEqual(['started', 'old-urgent', 'new-urgent', 'old-low']);
  });
});

describe('driver task list: live events', () => {
  it('adds a new assignment in its place and asks for the trailer when the event cannot name it', () => {
    const out = applyTaskEvent(
      [task('a', { priority: 1 })],
      'task.assigned',
      task('b', { priority: 3, trailerId: 't1' }),
      ME,
    );
    expect(out.tasks.map((t) => t.id)).toEqual(['b', 'a']);
    expect(out.incomplete).toBe(true);
    expect(out.notice).toBeUndefined();
  });

  it('keeps the trailer the list named when the event is about the same trailer', () => {
    const had = task('a', {
      trailerId: 't1',
      trailer: { number: 'PRHU 1', carrierName: 'Prairie', locationId: null },
    });
    const out = applyTaskEvent(
      [had],
      'task.started',
      task('a', { trailerId: 't1', status: 'IN_PROGRESS', version: 2 }),
      ME,
    );
    expect(out.tasks[0]?.trailer).toEqual({ number: 'PRHU 1', carrierName: 'Prairie', locationId: null });
    expect(out.tasks[0]?.status).toBe('IN_PROGRESS');
    expect(out.incomplete).toBe(false);
  });

  it('never goes back to an older version of a task', () => {
    const now = task('a', { status: 'IN_PROGRESS', version: 3 });
    const out = applyTaskEvent([now], 'task.assigned', task('a', { version: 2 }), ME);
    expect(out.tasks).toEqual([now]);
  });

  it('takes off a task given to another driver, and says so', () => {
    const out = applyTaskEvent(
      [task('a')],
      'task.unassigned',
      task('a', { driverId: 'd-other', version: 2 }),
      ME,
    );
    expect(out.tasks).toEqual([]);
    expect(out.notice).toEqual({ taskId: 'a', text: 'Move task was given to another driver.' });
  });

  it('takes off a task the office cancelled, with its reason', () => {
    const cancelled = task('a', {
      status: 'CANCELLED',
      cancelReason: 'trailer left',
      version: 2,
      trailer: { number: 'X 1', carrierName: null, locationId: null },
    });
    const out = applyTaskEvent([task('a')], 'task.cancelled', cancelled, ME);
    expect(out.tasks).toEqual([]);
    expect(out.notice?.text).toBe('Move: trailer X 1 was cancelled: trailer left');
  });

  it('drops a completed task quietly and ignores events about tasks it never had', () => {
    expect(
      applyTaskEvent([task('a')], 'task.completed', task('a', { status: 'COMPLETED', version: 2 }), ME),
    ).toEqual({
      tasks: [],
    });
    expect(applyTaskEvent([], 'task.cancelled', task('z', { status: 'CANCELLED' }), ME)).toEqual({
      tasks: [],
    });
  });
});

describe('driver task list: pending actions', () => {
  it('the last action for a task wins and shows as its status', () => {
    const actions = [action('start', 'a'), action('complete', 'a'), action('start', 'b')];
    expect(pendingKind(actions, 'a')).toBe('complete');
    expect(pendingKind(actions, 'c')).toBeNull();
    expect(effectiveStatus(task('a'), 'complete')).toBe('COMPLETED');
    expect(effectiveStatus(task('b'), 'start')).toBe('IN_PROGRESS');
    expect(effectiveStatus(task('c'), null)).toBe('ASSIGNED');
  });

  it('a task done offline waits apart; the card moves on; a started one comes first', () => {
    const list = [
      task('urgent', { priority: 3 }),
      task('low', { priority: 0 }),
      task('mid', { priority: 1 }),
    ];
    const out = arrange(list, [action('complete', 'urgent'), action('start', 'low')], null);
    expect(out.waiting.map((t) => t.id)).toEqual(['urgent']);
    expect(out.current?.id).toBe('low');
    expect(out.queue.map((t) => t.id)).toEqual(['mid']);
  });

  it('the task opened by its link is the card, whatever its place', () => {
    const list = [task('a', { priority: 3 }), task('b', { priority: 0 })];
    const out = arrange(list, [], 'b');
    expect(out.current?.id).toBe('b');
    expect(out.queue.map((t) => t.id)).toEqual(['a']);
    expect(arrange(list, [], 'gone').current?.id).toBe('a');
  });
});

describe('driver app: small rules', () => {
  it('reads the task id of /driver/task/<id> and nothing else', () => {
    expect(taskIdOf('/driver/task/abc-1')).toBe('abc-1');
    expect(taskIdOf('/driver/task/abc-1/')).toBe('abc-1');
    expect(taskIdOf('/driver/')).toBeNull();
    expect(taskIdOf('/driver/task/')).toBeNull();
    expect(taskIdOf('/driver/task/a/b')).toBeNull();
  });

  it('a cancel reason is a quick one, or "Other" with words', () => {
    expect(cancelReasonText('blocked', '')).toBe('Spot blocked');
    expect(cancelReasonText('other', '  ')).toBeNull();
    expect(cancelReasonText('other', ' tyre flat ')).toBe('Other: tyre flat');
    expect(cancelReasonText(null, 'x')).toBeNull();
  });

  it('titles a task by its trailer when known', () => {
    expect(taskTitle(task('a', { type: 'pull_to_door' }))).toBe('Pull to door task');
    expect(taskTitle(task('a', { trailer: { number: 'PRHU 7', carrierName: null, locationId: null } }))).toBe(
      'Move: trailer PRHU 7',
    );
  });
});
