/// <reference lib="webworker" />
/**
 * The service worker's side of Web Push: shows a notification for a task message and opens that
 * task when the driver taps it. Imported only by offline/sw.ts, so it is bundled into the worker.
 */
import { notificationUrl, pickAppWindow, taskNotification } from './payload';

export function listenForPush(sw: ServiceWorkerGlobalScope): void {
  sw.addEventListener('push', (event) => {
    const { title, options } = taskNotification(pushText(event.data));
    // Every push must show a notification (subscribed with userVisibleOnly), even an unreadable one.
    event.waitUntil(sw.registration.showNotification(title, options));
  });

  sw.addEventListener('notificationclick', (event) => {
    event.notification.close();
    event.waitUntil(openPage(sw, notificationUrl(event.notification.data)));
  });
}

function pushText(data: PushMessageData | null): string | null {
  try {
    return data ? data.text() : null;
  } catch {
    return null;
  }
}

/**
 * Brings the app's open window forward on that page, or opens one. navigate() works only on a
 * window this worker controls; any other is left alone and a new window opened instead.
 */
async function openPage(sw: ServiceWorkerGlobalScope, path: string): Promise<void> {
  const target = new URL(path, sw.location.origin).href;
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: false });
  const open = pickAppWindow(windows, sw.location.origin);
  if (open) {
    const focused = await open.focus();
    if (focused.url === target) return;
    const navigated = await focused.navigate(target).catch(() => null);
    if (navigated) return;
  }
  await sw.clients.openWindow(target);
}
