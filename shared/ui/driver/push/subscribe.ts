/**
 * Web Push for the driver app: asks for permission (from a tap), subscribes through the service
 * worker with the server's VAPID public key and registers the subscription for this device
 * (POST notification-token). The server keeps one token per driver and device and moves a shared
 * phone's token to whoever registers it last, so the app registers again each time it starts.
 */
import { api, call } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { session } from '../../common/auth';
import { deviceId } from '../device';

/**
 * - on: this phone gets task notifications; off: it could, it does not (yet);
 * - denied: the browser blocks notifications for the app (only its settings can undo that);
 * - insecure: not HTTPS, where browsers offer no push; unsupported: this browser has no Web Push;
 * - not-configured: the yard server has no push keys; error: something failed, try again.
 */
export type PushState = 'on' | 'off' | 'denied' | 'insecure' | 'unsupported' | 'not-configured' | 'error';

/** Which driver and subscription this phone last registered: a start of the app that changes neither sends nothing. */
const REGISTERED_KEY = 'yard.driver.pushRegistered';
/** The worker is registered at start (offline/register.ts); past this it is not coming. */
const WORKER_WAIT_MS = 10_000;

/** Why this page cannot have push at all, or null when it can. */
function cannotPush(): PushState | null {
  if (!window.isSecureContext) return 'insecure';
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    return 'unsupported';
  }
  return null;
}

/** The state without asking anything: for the toggle's first render. */
export async function pushState(): Promise<PushState> {
  const cannot = cannotPush();
  if (cannot) return cannot;
  if (Notification.permission === 'denied') return 'denied';
  const registration = await navigator.serviceWorker.getRegistration();
  const subscription = await registration?.pushManager.getSubscription();
  return subscription && Notification.permission === 'granted' ? 'on' : 'off';
}

/**
 * Turns notifications on; call it from a tap (browsers ask for the permission only then). Also
 * the way to register again an existing subscription (the same one is reused).
 */
export async function enablePush(options: { onlyIfChanged?: boolean } = {}): Promise<PushState> {
  const cannot = cannotPush();
  if (cannot) return cannot;
  try {
    const permission = await Notification.requestPermission();
    if (permission === 'denied') return 'denied';
    if (permission !== 'granted') return 'off';
    const { publicKey } = await call(api.GET('/api/yard-task/driver/push-key'));
    const subscription = await subscribe(publicKey);
    const registered = `${session.principal.value?.id ?? ''} ${subscription.endpoint}`;
    // Each save is a synced change: not again for the same driver and subscription at every start.
    if (options.onlyIfChanged && localStorage.getItem(REGISTERED_KEY) === registered) return 'on';
    await call(
      api.POST('/api/yard-task/driver/notification-token', {
        body: { deviceId: deviceId(), platform: 'web', token: JSON.stringify(subscription) },
      }),
    );
    localStorage.setItem(REGISTERED_KEY, registered);
    return 'on';
  } catch (err) {
    if (err instanceof ProblemError && err.code === 'push-not-configured') return 'not-configured';
    return 'error';
  }
}

/**
 * Registers again a subscription this phone already has (a new driver on a shared phone, a key
 * the browser renewed); does nothing when notifications are off. Never asks for permission.
 */
export async function refreshPush(): Promise<PushState> {
  const state = await pushState().catch((): PushState => 'error');
  return state === 'on' ? enablePush({ onlyIfChanged: true }) : state;
}

/**
 * Stops notifications on this phone. The server's copy of the token is dropped the next time a
 * message finds the push service answering it is gone (410).
 */
export async function disablePush(): Promise<PushState> {
  const cannot = cannotPush();
  if (cannot) return cannot;
  try {
    const registration = await navigator.serviceWorker.getRegistration();
    await (await registration?.pushManager.getSubscription())?.unsubscribe();
    localStorage.removeItem(REGISTERED_KEY);
    return 'off';
  } catch {
    return 'error';
  }
}

async function subscribe(publicKey: string): Promise<PushSubscription> {
  const registration = await workerReady();
  const key = base64UrlBytes(publicKey);
  const existing = await registration.pushManager.getSubscription();
  if (existing) {
    // A subscription made with another key (the site's keys were replaced) no longer works.
    if (sameBytes(existing.options.applicationServerKey, key)) return existing;
    await existing.unsubscribe();
  }
  return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
}

function workerReady(): Promise<ServiceWorkerRegistration> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the service worker did not start')), WORKER_WAIT_MS);
    navigator.serviceWorker.ready.then((r) => {
      clearTimeout(timer);
      resolve(r);
    }, reject);
  });
}

/** A base64url string (the VAPID key) as the bytes subscribe() takes. */
export function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function sameBytes(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.length) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
}
