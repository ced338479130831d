import { computed, signal } from '@preact/signals';

/**
 * The driver app's two addresses: /driver/ (the shift) and /driver/task/<id> (one task, what a
 * notification opens). A router library would cost more of the 40 kB than these few lines.
 */
export const path = signal(typeof location === 'undefined' ? '/driver/' : location.pathname);

export const openedTaskId = computed(() => taskIdOf(path.value));

export function taskIdOf(pathname: string): string | null {
  const m = /^\/driver\/task\/([^/?#]+)\/?$/.exec(pathname);
  return m?.[1] ? decodeURIComponent(m[1]) : null;
}

export function taskHref(id: string): string {
  return `/driver/task/${encodeURIComponent(id)}`;
}

export function go(href: string): void {
  if (href === location.pathname) return;
  history.pushState(null, '', href);
  path.value = location.pathname;
}

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    path.value = location.pathname;
  });
  // A tapped notification while the app is open: the service worker may ask this page to show the
  // task ({type: 'open-task', taskId}) rather than load it anew.
  navigator.serviceWorker?.addEventListener('message', (e: MessageEvent) => {
    const m = e.data as { type?: unknown; taskId?: unknown } | null;
    if (m?.type === 'open-task' && typeof m.taskId === 'string') go(taskHref(m.taskId));
  });
}
