/// <reference lib="webworker" />
/**
 * The driver app's service worker, built on its own to /driver/sw.js (tools/vite.config.ts). It
 * imports nothing but the push side, so that it stays one file. The build
 * (tools/driver-precache.ts) replaces the two placeholders: the app shell's files and a hash of
 * them, so each release is a new worker that caches the new shell in a cache of its own.
 *
 * - Pages under /driver/ (also deep links, /driver/task/<id>): the network first, for a short
 *   while; without an answer in time, the cached app page (its router shows the screen), so the
 *   app opens on a dead link.
 * - /assets/*: content-hashed, never changing: the cache first.
 * - /api/*: never touched; the outbox (outbox.ts) deals with failed calls.
 *
 * Releases: a new worker installs its shell beside the old one and then waits. It does not take
 * over by itself: a driver in the middle of a task keeps the page and worker they have (a reload
 * under their thumb could lose an open dialog). The page offers "Update ready: reload"
 * (register.ts), whose tap sends `skip-waiting`; otherwise the new worker takes over when every
 * window of the app is closed, as browsers do.
 */
import { listenForPush } from '../push/sw-push';

const PRECACHE: string[] = ['__DRIVER_PRECACHE__'];
const BUILD = '__DRIVER_BUILD__';
const sw = self as unknown as ServiceWorkerGlobalScope;
const PREFIX = 'driver-shell-';
const CACHE = `${PREFIX}${BUILD}`;
const APP_PAGE = '/driver/';
/** How long a page waits for the network before the cached app page: the yard's Wi-Fi can hang. */
const NAVIGATION_TIMEOUT_MS = 3_000;

sw.addEventListener('install', (event) => {
  // `reload`: the files themselves, not an older copy from the HTTP cache.
  event.waitUntil(
    caches.open(CACHE).then((c) => c.addAll(PRECACHE.map((url) => new Request(url, { cache: 'reload' })))),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys())
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      // The first install controls the page that registered it at once (no reload needed to work offline).
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type === 'skip-waiting') void sw.skipWaiting();
});

sw.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== sw.location.origin || url.pathname.startsWith('/api/')) return;
  if (request.mode === 'navigate' && url.pathname.startsWith(APP_PAGE)) {
    event.respondWith(networkFirstPage(request));
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(cacheFirst(request, true));
  } else if (PRECACHE.includes(url.pathname)) {
    event.respondWith(cacheFirst(request, false));
  }
});

async function networkFirstPage(request: Request): Promise<Response> {
  const network = fetch(request);
  network.catch(() => undefined); // when the cached page answered first, a late failure is no news
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), NAVIGATION_TIMEOUT_MS);
  });
  try {
    const answer = await Promise.race([network, late]);
    // A 5xx (the edge restarting) is as good as no answer: the cached app works on its own.
    if (answer && answer.status < 500) return answer;
  } catch {
    // no network: the cached page below
  } finally {
    clearTimeout(timer);
  }
  const cached = await caches.match(APP_PAGE, { cacheName: CACHE, ignoreVary: true });
  if (cached) return cached;
  // Not cached (storage cleared?): wait for the network after all.
  return network;
}

async function cacheFirst(request: Request, keep: boolean): Promise<Response> {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreVary: true });
  if (cached) return cached;
  const answer = await fetch(request);
  // A hashed file never changes: keep what the shell list did not know (e.g. a new lazy chunk).
  if (keep && answer.ok) {
    const copy = answer.clone();
    void caches.open(CACHE).then((c) => c.put(request, copy));
  }
  return answer;
}

listenForPush(sw);
