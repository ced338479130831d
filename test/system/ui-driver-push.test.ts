import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoEdge,
  launchChromium,
  screenshot,
  seriousA11yViolations,
  startDemoEdge,
} from '../helpers/browser.js';
import { Client, clientWithRole } from '../helpers/http.js';
import { FakePushService } from '../helpers/push-service.js';
import { selfSignedLoopbackCert } from '../helpers/push-service-tls.js';

/**
 * Web Push for the driver app, in Chromium against the demo edge process. Headless Chromium has no
 * real push service (no internet, no FCM), so:
 * - the subscription is the fake push service's (keys made by the test), handed to the app's own
 *   code by replacing PushManager.prototype.subscribe; the app asks for the server's key, subscribes
 *   and registers the device as on a phone. With the page closed, a dispatcher's assignment then
 *   reaches the fake push service (HTTPS, its certificate trusted by the edge via NODE_EXTRA_CA_CERTS)
 *   encrypted for that subscription and signed with the demo's VAPID key;
 * - the service worker's side gets a push delivered by DevTools (ServiceWorker.deliverPushMessage)
 *   and must show the task's notification.
 * A tap on a notification cannot be made here (no API clicks a system notification; a synthetic
 * notificationclick is untrusted, so waitUntil and focus/openWindow refuse it): the page and window
 * it picks are unit tested (test/unit/ui/push-payload.test.ts).
 */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const DRIVER = { driverCode: 'J103', pin: '3333' };
const DEFAULT_SUBJECT = 'mailto:yard-admin@example.invalid';
/** What the app and the edge get to react (a worker installing, a push going out): generous, not timed. */
const WAIT = { timeout: 15_000 };

let edge: DemoEdge;
let browser: Browser;
let pushService: FakePushService;
let tls: ReturnType<typeof selfSignedLoopbackCert>;
let admin: Client;
let yardId: string;
let driverSession: { token: string; expiresAt: string; principal: { driverId?: string; id: string } };
let driverId: string;

beforeAll(async () => {
  tls = selfSignedLoopbackCert();
  pushService = await new FakePushService().start({ tls });
  edge = await startDemoEdge({
    env: { YARD_PUSH_ALLOW_LOCAL_ENDPOINTS: 'true', NODE_EXTRA_CA_CERTS: tls.certFile },
  });
  const login = await new Client(edge.url).post('/api/auth/login', edge.admin);
  admin = new Client(edge.url, login.body.token);
  yardId = (await admin.get('/api/yard')).body.items[0].id;
  const driverLogin = await new Client(edge.url).post('/api/auth/driver-login', DRIVER);
  expect(driverLogin.status, driverLogin.text).toBe(200);
  driverSession = driverLogin.body;
  driverId = driverSession.principal.driverId ?? driverSession.principal.id;
  const shift = await new Client(edge.url, driverSession.token).post('/api/yard-task/driver/session/start', {
    yardId,
  });
  expect(shift.status, shift.text).toBe(201);
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
  await pushService?.stop();
  tls?.remove();
});

/**
 * A phone's browser with a driver signed in (the app's stored session, unless the phone already
 * has one) and the given permissions.
 */
async function signedInPhone(
  permissions: string[],
  signedIn: object = driverSession,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ...PHONE, permissions, serviceWorkers: 'allow' });
  await context.addInitScript((session) => {
    if (!localStorage.getItem('yard.session')) localStorage.setItem('yard.session', session);
  }, JSON.stringify(signedIn));
  const page = await context.newPage();
  return { context, page };
}

/**
 * The browser's push service, played by the fake one: subscribe() answers the fake's subscription
 * (noting the applicationServerKey the app passed) and getSubscription() gives it back afterwards,
 * across reloads, as a browser does.
 */
async function playBrowserPushService(context: BrowserContext, token: string): Promise<void> {
  await context.addInitScript((subscriptionJson) => {
    const json = JSON.parse(subscriptionJson);
    const subscription = (keyText: string) => {
      const key = Uint8Array.from(atob(keyText.replace(/-/g, '+').replace(/_/g, '/')), (c) =>
        c.charCodeAt(0),
      );
      return {
        endpoint: json.endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true, applicationServerKey: key.buffer },
        getKey: () => null,
        toJSON: () => json,
        unsubscribe: async () => {
          localStorage.removeItem('test.subscribedWithKey');
          return true;
        },
      } as unknown as PushSubscription;
    };
    PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
      const key = new Uint8Array(options?.applicationServerKey as ArrayBuffer);
      const keyText = btoa(String.fromCharCode(...key))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
      localStorage.setItem('test.subscribedWithKey', keyText);
      return subscription(keyText);
    };
    PushManager.prototype.getSubscription = async () => {
      const keyText = localStorage.getItem('test.subscribedWithKey');
      return keyText ? subscription(keyText) : null;
    };
  }, token);
}

function pushTokens(
  ofDriver = driverId,
): Array<{ device_id: string; platform: string; token: string; version: number }> {
  const db = new Database(edge.dbFile, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare('SELECT device_id, platform, token, version FROM push_token WHERE driver_id = ?')
      .all(ofDriver) as Array<{ device_id: string; platform: string; token: string; version: number }>;
  } finally {
    db.close();
  }
}

describe('turning notifications on, then a task reaching the locked phone', () => {
  it('the app subscribes with the server key and registers the device; an assignment arrives encrypted', async () => {
    const { publicKey } = (
      await new Client(edge.url, driverSession.token).get('/api/yard-task/driver/push-key')
    ).body as { publicKey: string };
    const sub = pushService.subscribe();
    const { context, page } = await signedInPhone(['notifications']);
    await playBrowserPushService(context, sub.token);

    await page.goto(`${edge.url}/driver/`);
    // The shift screen places the toggle (shared/ui/driver/push/push-toggle.tsx).
    const turnOn = page.getByRole('button', { name: 'Turn on notifications' });
    await turnOn.waitFor(WAIT);
    await turnOn.tap();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Notifications are on' }).count(), WAIT)
      .toBe(1);
    expect(await page.evaluate(() => localStorage.getItem('test.subscribedWithKey'))).toBe(publicKey);
    const deviceId = await page.evaluate(() => localStorage.getItem('yard.driver.deviceId'));
    expect(deviceId).toMatch(/^phone-[0-9a-f-]{36}$/);
    expect(pushTokens()).toEqual([
      { device_id: deviceId, platform: 'web', token: expect.any(String), version: expect.any(Number) },
    ]);
    expect(JSON.parse(pushTokens()[0]!.token)).toEqual({
      endpoint: JSON.parse(sub.token).endpoint,
      keys: JSON.parse(sub.token).keys,
    });
    await screenshot(page, 'driver-push-on');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await context.close();

    const dispatcher = await clientWithRole(admin, 'dispatcher');
    const created = await dispatcher.post('/api/yard-task', { yardId, type: 'other', driverId, priority: 2 });
    expect(created.status, created.text).toBe(201);
    const forTask = () => pushService.for(sub.id).filter((p) => p.payload?.data?.taskId === created.body.id);
    await expect.poll(() => forTask().length, WAIT).toBe(1);
    const [got] = forTask();
    expect(got!.headers['content-encoding']).toBe('aes128gcm');
    expect(got!.body.toString('utf8')).not.toContain(created.body.id);
    expect(got!.payload).toEqual({
      title: 'New yard task',
      body: 'High-priority other task is assigned to you.',
      data: { event: 'task.assigned', taskId: created.body.id },
    });
    expect(got!.vapid).toMatchObject({ aud: pushService.url, sub: DEFAULT_SUBJECT, publicKey });
  });

  it('a shared phone: the next driver signed in gets its notifications, without a tap', async () => {
    const [maria, sam] = await Promise.all(
      [
        { driverCode: 'J101', pin: '1111' },
        { driverCode: 'J102', pin: '2222' },
      ].map(async (d) => (await new Client(edge.url).post('/api/auth/driver-login', d)).body),
    );
    const sub = pushService.subscribe();
    const { context, page } = await signedInPhone(['notifications'], maria);
    await playBrowserPushService(context, sub.token);
    const saves: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/notification-token')) saves.push(r.headers().authorization ?? '');
    });
    await page.goto(`${edge.url}/driver/`);
    await page.getByRole('button', { name: 'Turn on notifications' }).tap(WAIT);
    await expect.poll(() => pushTokens(maria.principal.driverId).length, WAIT).toBe(1);

    // Maria's shift ends; Sam signs in on the same phone and opens the app.
    await page.evaluate((next) => localStorage.setItem('yard.session', next), JSON.stringify(sam));
    await page.reload();
    await expect.poll(() => pushTokens(sam.principal.driverId).length, WAIT).toBe(1);
    expect(pushTokens(maria.principal.driverId)).toEqual([]);
    expect(await page.getByRole('status').filter({ hasText: 'Notifications are on' }).count()).toBe(1);
    // Opening the app again changes nothing: no new save (each is a synced change).
    const version = pushTokens(sam.principal.driverId)[0]!.version;
    await page.reload();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Notifications are on' }).count(), WAIT)
      .toBe(1);
    expect(saves).toEqual([`Bearer ${maria.token}`, `Bearer ${sam.token}`]);
    expect(pushTokens(sam.principal.driverId)[0]!.version).toBe(version);
    await context.close();
  });

  it('blocked notifications are explained: where to allow them', async () => {
    const { context, page } = await signedInPhone([]);
    await context.addInitScript(() => {
      Notification.requestPermission = async () => 'denied';
    });
    await page.goto(`${edge.url}/driver/`);
    await page.getByRole('button', { name: 'Turn on notifications' }).tap(WAIT);
    const status = page.getByRole('status').filter({ hasText: 'Notifications are blocked' });
    await expect.poll(() => status.count(), WAIT).toBe(1);
    expect(await status.textContent()).toContain('allow notifications');
    await screenshot(page, 'driver-push-denied');
    await context.close();
  });
});

describe('over plain http on the LAN (no secure context)', () => {
  it('says HTTPS is needed instead of offering a button that cannot work', async () => {
    // The edge under a LAN-like name: http to a name that is not localhost is no secure context.
    const lan = await launchChromium({ args: ['--host-resolver-rules=MAP yard-edge.lan 127.0.0.1'] });
    try {
      const context = await lan.newContext({ ...PHONE, permissions: ['notifications'] });
      await context.addInitScript((session) => {
        localStorage.setItem('yard.session', session);
      }, JSON.stringify(driverSession));
      const page = await context.newPage();
      await page.goto(`${edge.url.replace('127.0.0.1', 'yard-edge.lan')}/driver/`);
      expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
      const status = page
        .getByRole('status')
        .filter({ hasText: 'Notifications need the app opened over HTTPS' });
      await expect.poll(() => status.count(), WAIT).toBe(1);
      expect(await page.getByRole('button', { name: 'Turn on notifications' }).count()).toBe(0);
      await screenshot(page, 'driver-push-insecure');
    } finally {
      await lan.close();
    }
  });
});

describe("the service worker's push handling", () => {
  it('a push message for a task shows that task’s notification', async () => {
    const { context, page } = await signedInPhone(['notifications']);
    await page.goto(`${edge.url}/driver/`);
    // `ready` resolves while the worker may still be activating; a push delivered then can be lost.
    await expect
      .poll(() => page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.active?.state)), WAIT)
      .toBe('activated');
    const cdp = await context.newCDPSession(page);
    const registrations: Array<{ registrationId: string; scopeURL: string }> = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
    await cdp.send('ServiceWorker.enable');
    await expect.poll(() => registrations.some((r) => r.scopeURL === `${edge.url}/driver/`), WAIT).toBe(true);
    const registrationId = registrations.find((r) => r.scopeURL === `${edge.url}/driver/`)!.registrationId;

    const message = {
      title: 'Task cancelled',
      body: 'Move task was cancelled: spot blocked',
      data: { event: 'task.cancelled', taskId: 'task-4711' },
    };
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: edge.url,
      registrationId,
      data: JSON.stringify(message),
    });
    const shown = () =>
      page.evaluate(async () => {
        const registration = await navigator.serviceWorker.ready;
        return (await registration.getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
          data: n.data,
        }));
      });
    await expect.poll(shown, WAIT).toEqual([
      {
        title: 'Task cancelled',
        body: 'Move task was cancelled: spot blocked',
        tag: 'task-task-4711',
        data: { taskId: 'task-4711', url: '/driver/task/task-4711' },
      },
    ]);

    // A second message about the same task replaces the first; one that cannot be read still shows.
    // One at a time: each is seen shown before the next is delivered, as pushes arrive in life.
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: edge.url,
      registrationId,
      data: JSON.stringify({ ...message, title: 'Task reassigned', body: 'taken off your list' }),
    });
    await expect
      .poll(async () => (await shown()).map((n) => [n.tag, n.title]), WAIT)
      .toEqual([['task-task-4711', 'Task reassigned']]);
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: edge.url, registrationId, data: 'garbled' });
    await expect
      .poll(async () => (await shown()).map((n) => [n.tag, n.title]).sort(), WAIT)
      .toEqual([
        ['task-task-4711', 'Task reassigned'],
        ['tasks', 'Yard tasks'],
      ]);
    await context.close();
  });
});
