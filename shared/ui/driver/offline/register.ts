/**
 * Registers the driver app's service worker (sw.ts, built to /driver/sw.js), which caches the app
 * shell so the app opens without a network and shows task notifications (Web Push).
 * Service workers exist only in a secure context (HTTPS, or localhost).
 */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('/driver/sw.js', { scope: '/driver/' }).catch(() => undefined);
}
