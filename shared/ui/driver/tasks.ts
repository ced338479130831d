import { effect, signal } from '@preact/signals';
import { api, call, type Schemas } from '../common/api/client';
import { session } from '../common/auth';
import { onLive } from '../common/live';
import { kept } from './kept';
import { type ActionKind, act, lastSettled, pending } from './offline/outbox';
import { applyTaskEvent, type Notice, sortTasks, type Task, taskTitle } from './task-list';

export type Location = Schemas['Location'];

/** The driver's open tasks (assigned and under way), in working order. */
export const tasks = signal<Task[]>([]);
/** Reassignments and cancellations by the office, said until the driver dismisses them. */
export const notices = signal<Notice[]>([]);
/** The last load failed (no link): what is shown may be old. */
export const stale = signal(false);
/** Locations of the yard by id, for "from -> to" in words. */
export const places = signal<Map<string, Location>>(new Map());

const keptTasks = kept<Task[]>('tasks');
const keptPlaces = kept<Location[]>('places');

function setTasks(list: Task[]): void {
  tasks.value = list;
  keptTasks.write(list);
}

/** The list as the phone last had it, shown until the server answers (or while it cannot). */
export function restoreTasks(): void {
  if (tasks.value.length === 0) tasks.value = keptTasks.read() ?? [];
}

/** The shift ended: nothing of its list stays on the phone. */
export function forgetTasks(): void {
  tasks.value = [];
  keptTasks.write(null);
}

/** Tasks the driver cancelled here since the app opened (queued ones after a reload are in `pending`). */
const cancelledOnThisPhone = new Set<string>();

function cancelledHere(taskId: string): boolean {
  return (
    cancelledOnThisPhone.has(taskId) || pending.value.some((a) => a.taskId === taskId && a.kind === 'cancel')
  );
}

let loadSeq = 0;
let loading = false;

/** Reloads the list from the server; only the newest answer is kept when loads overlap. */
export async function loadTasks(): Promise<void> {
  const mine = ++loadSeq;
  loading = true;
  try {
    const page = await call(api.GET('/api/yard-task/driver/tasks', { params: { query: { limit: 200 } } }));
    if (mine !== loadSeq) return;
    setTasks(sortTasks(page.items));
    stale.value = false;
  } catch {
    if (mine === loadSeq) stale.value = true;
  } finally {
    if (mine === loadSeq) loading = false;
  }
}

export async function loadPlaces(yardId: string): Promise<void> {
  const copy = keptPlaces.read()?.filter((l) => l.yardId === yardId);
  if (copy && places.value.size === 0) places.value = new Map(copy.map((l) => [l.id, l]));
  const found = new Map<string, Location>();
  let cursor: string | undefined;
  do {
    const page = await call(
      api.GET('/api/yard/{id}/location', {
        params: { path: { id: yardId }, query: { limit: 500, ...(cursor ? { cursor } : {}) } },
      }),
    );
    for (const l of page.items) found.set(l.id, l);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  places.value = found;
  keptPlaces.write([...found.values()]);
}

/** A task the list no longer has (opened from a notification): read it on its own. */
export function loadTask(id: string): Promise<Task> {
  return call(api.GET('/api/yard-task/{id}', { params: { path: { id } } }));
}

/**
 * Follows the driver's task events while the app is open: each is applied to the list at once
 * (the card appears without a reload); after a gap in the stream, or when the phone shows the app
 * again, or the phone's network comes back, the whole list is read anew.
 */
export function followTasks(): () => void {
  const off = onLive(
    ['task.'],
    (e) => {
      const task = (e.data as { data?: Task }).data;
      const me = session.principal.value?.driverId ?? session.principal.value?.id;
      if (!task?.id || !me) return;
      const next = applyTaskEvent(tasks.value, e.type, task, me);
      setTasks(next.tasks);
      // A cancellation the driver made on this phone is no news to the driver.
      const ownCancel = e.type === 'task.cancelled' && cancelledHere(task.id);
      if (next.notice && !ownCancel)
        notices.value = [...notices.value.filter((n) => n.taskId !== task.id), next.notice];
      // The card is on screen already; the list read again names its trailer. A read under way
      // began before this event: its answer would undo it, so it is read again.
      if (next.incomplete || loading) void loadTasks();
    },
    () => void loadTasks(),
  );
  const onVisible = () => {
    if (document.visibilityState === 'visible') void loadTasks();
  };
  // The server answered a queued action (applied or refused, maybe replayed after a drop): its
  // word replaces the phone's. The effect's first run only subscribes.
  let subscribed = false;
  const stopWatching = effect(() => {
    const settled = lastSettled.value;
    if (subscribed && settled) void loadTasks();
    subscribed = true;
  });
  const onOnline = () => void loadTasks();
  document.addEventListener('visibilitychange', onVisible);
  window.addEventListener('online', onOnline);
  return () => {
    off();
    stopWatching();
    document.removeEventListener('visibilitychange', onVisible);
    window.removeEventListener('online', onOnline);
  };
}

export function dismissNotice(taskId: string): void {
  notices.value = notices.value.filter((n) => n.taskId !== taskId);
}

/**
 * A driver's action on a task, always through the outbox (kept and replayed when offline); the
 * list is read again once the outbox has it, so the server's word replaces the phone's.
 */
export async function doAction(kind: ActionKind, taskId: string, reason?: string): Promise<void> {
  if (kind === 'cancel') cancelledOnThisPhone.add(taskId);
  const task = tasks.value.find((t) => t.id === taskId);
  // The task's name goes with the action, so a waiting or refused one is listed by it.
  await act(kind, taskId, reason, task ? taskTitle(task) : undefined);
  await loadTasks();
}
