import { signal } from '@preact/signals';

/**
 * Registers the driver app's service worker (sw.ts, built to /driver/sw.js), which caches the app
 * shell so the app opens without a network and shows task notifications (Web Push).
 * Service workers exist only in a secure context (HTTPS, or localhost).
 *
 * A new release's worker waits (sw.ts says why); `updateReady` turns true when one does, and
 * `applyUpdate()` (a tap on "Update ready") lets it take over and reloads the page once it has.
 */
export const updateReady = signal(false);
let waiting: ServiceWorker | null = null;

export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker
    .register('/driver/sw.js', { scope: '/driver/' })
    .then(watchForUpdates)
    .catch(() => undefined);
}

function watchForUpdates(registration: ServiceWorkerRegistration): void {
  const offer = (worker: ServiceWorker | null) => {
    // Only a worker that replaces one: the first install simply takes over (clients.claim()).
    if (!worker || !navigator.serviceWorker.controller) return;
    waiting = worker;
    updateReady.value = true;
  };
  offer(registration.waiting);
  registration.addEventListener('updatefound', () => {
    const worker = registration.installing;
    worker?.addEventListener('statechange', () => {
      if (worker.state === 'installed') offer(worker);
    });
  });
  // A long shift: look for a new release now and then, not only at page loads.
  setInterval(() => void registration.update().catch(() => undefined), 30 * 60_000);
}

export function applyUpdate(): void {
  if (!waiting) return;
  navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
  waiting.postMessage({ type: 'skip-waiting' });
}
