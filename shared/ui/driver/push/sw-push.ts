/// <reference lib="webworker" />
/**
 * The service worker's side of Web Push: shows a notification for a task message and opens that
 * task when the driver taps it. Imported only by offline/sw.ts, so it is bundled into the worker.
 * FOUNDATION STUB: the push helper builds this.
 */
export function listenForPush(_sw: ServiceWorkerGlobalScope): void {}
