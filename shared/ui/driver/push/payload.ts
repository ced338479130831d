/**
 * What the service worker shows for a push message, worked out without any browser API (unit
 * tested). The server sends `{title, body, data: {event, taskId}}` (shared/modules/tasks/writes.ts);
 * anything else still becomes a notification, because a push subscribed with userVisibleOnly must
 * show one, and a message it cannot read should still bring the driver to the app.
 */

/** Where the driver app lives; a tap on a notification opens a page under it. */
export const APP_PATH = '/driver/';

export interface TaskNotification {
  title: string;
  options: {
    body: string;
    /** One notification per task: a later message about the same task replaces the earlier one. */
    tag: string;
    /** Replacing one still alerts the driver (a cancellation after the assignment). */
    renotify: boolean;
    icon: string;
    data: { taskId: string | null; url: string };
  };
}

const FALLBACK_TITLE = 'Yard tasks';
const FALLBACK_BODY = 'Your task list changed. Open the app to see it.';
/** Plenty for a lock screen; longer texts are cut rather than refused. */
const MAX_TITLE = 120;
const MAX_BODY = 500;
const TASK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The page that shows one task, or the app's start page without one. */
export function taskUrl(taskId: string | null): string {
  return taskId ? `${APP_PATH}task/${encodeURIComponent(taskId)}` : APP_PATH;
}

/** The notification for a push message's text (null when the message had no payload). */
export function taskNotification(text: string | null): TaskNotification {
  const message = parse(text);
  const data = record(message?.data);
  const taskId = typeof data?.taskId === 'string' && TASK_ID.test(data.taskId) ? data.taskId : null;
  const title = cleanText(message?.title, MAX_TITLE) ?? FALLBACK_TITLE;
  const body = cleanText(message?.body, MAX_BODY) ?? FALLBACK_BODY;
  return {
    title,
    options: {
      body,
      tag: taskId ? `task-${taskId}` : 'tasks',
      renotify: true,
      icon: `${APP_PATH}icons/icon-192.png`,
      data: { taskId, url: taskUrl(taskId) },
    },
  };
}

/** The page a tapped notification opens: its own url when it is one of the app's, else the app. */
export function notificationUrl(data: unknown): string {
  const url = record(data)?.url;
  return typeof url === 'string' && url.startsWith(APP_PATH) && !url.startsWith('//') ? url : APP_PATH;
}

/**
 * Which open window a tapped notification should bring forward: one already showing the app
 * (the one the worker controls first), else none (a new window is opened).
 */
export function pickAppWindow<C extends { url: string }>(
  windows: readonly C[],
  origin: string,
): C | undefined {
  return windows.find((w) => {
    try {
      const url = new URL(w.url);
      return url.origin === origin && url.pathname.startsWith(APP_PATH);
    } catch {
      return false;
    }
  });
}

function parse(text: string | null): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    return record(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function cleanText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!text) return undefined;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
