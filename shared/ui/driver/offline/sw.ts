/// <reference lib="webworker" />
/**
 * The driver app's service worker, built on its own to /driver/sw.js (tools/vite.config.ts). It
 * imports nothing, so that it stays one file. The build (tools/driver-precache.ts) replaces the two
 * placeholders: the app shell's files and a hash of them, so each release is a new worker that
 * caches the new shell.
 */
import { listenForPush } from '../push/sw-push';

const PRECACHE: string[] = ['__DRIVER_PRECACHE__'];
const BUILD = '__DRIVER_BUILD__';
const sw = self as unknown as ServiceWorkerGlobalScope;
const CACHE = `driver-shell-${BUILD}`;

sw.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(PRECACHE)));
});

listenForPush(sw);
