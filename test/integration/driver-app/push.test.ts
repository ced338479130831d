import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { newId } from '../../../shared/ids.js';
import { WebPushSender } from '../../../shared/modules/push/web-push-sender.js';
import type { OutboundPolicy } from '../../../shared/net/outbound-policy.js';
import { clientWithRole, rows } from '../../helpers/http.js';
import { FakePushService } from '../../helpers/push-service.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { DriverAppWorld } from './fixtures.js';

const vapid = webpush.generateVAPIDKeys();
const SUBJECT = 'mailto:yard-ops@example.com';
const TOKEN_ROUTE = '/api/yard-task/driver/notification-token';
const KEYS = { publicKey: vapid.publicKey, privateKey: vapid.privateKey, subject: SUBJECT };

/**
 * The fake push service runs on loopback over plain http, which the production endpoint policy
 * (https, public addresses) refuses: these tests give the sender a policy allowing exactly that.
 */
const FAKE_PUSH_SERVICE_ONLY: OutboundPolicy = {
  purpose: 'push endpoint',
  protocols: ['http:'],
  refusal: (address) => (address.range() === 'loopback' ? null : `${address} is not the test's push service`),
};

let t: TestApp;
let w: DriverAppWorld;
let pushService: FakePushService;

beforeAll(async () => {
  pushService = await new FakePushService().start();
  t = await startTestApp({
    config: {
      push: { vapidPublicKey: vapid.publicKey, vapidPrivateKey: vapid.privateKey, subject: SUBJECT },
    },
  });
  t.services.push.useSenders([new WebPushSender(KEYS, { policy: FAKE_PUSH_SERVICE_ONLY })]);
  w = new DriverAppWorld(t);
});
afterAll(async () => {
  await t.close();
  await pushService.stop();
});
beforeEach(() => pushService.answer(201));

const count = (sql: string, ...params: unknown[]) => rows(t.db, sql, ...params)[0].n as number;
const tokenRows = (driverId: string) =>
  rows(
    t.db,
    'SELECT id, device_id, platform, token, version FROM push_token WHERE driver_id = ? ORDER BY id',
    driverId,
  );

describe('notification tokens', () => {
  it('saves a web PushSubscription per device (upsert), logged for sync', async () => {
    const d = await w.driver();
    const sub = pushService.subscribe();
    const saved = await d.client.post(TOKEN_ROUTE, {
      deviceId: 'phone-1',
      platform: 'web',
      token: sub.token,
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ driverId: d.id, deviceId: 'phone-1', platform: 'web' });
    expect(saved.text).not.toContain('p256dh');
    const parsed = JSON.parse(sub.token);
    expect(tokenRows(d.id)).toEqual([
      {
        id: saved.body.id,
        device_id: 'phone-1',
        platform: 'web',
        token: JSON.stringify({ endpoint: parsed.endpoint, keys: parsed.keys }),
        version: 1,
      },
    ]);

    const renewed = pushService.subscribe();
    const again = await d.client.post(TOKEN_ROUTE, {
      deviceId: 'phone-1',
      platform: 'web',
      token: renewed.token,
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(saved.body.id);
    const other = await d.client.post(TOKEN_ROUTE, {
      deviceId: 'tablet',
      platform: 'android',
      token: 'fcm-token-1',
    });
    expect(other.status).toBe(200);
    const stored = tokenRows(d.id);
    expect(stored.map((r) => [r.device_id, r.version])).toEqual([
      ['phone-1', 2],
      ['tablet', 1],
    ]);
    expect(JSON.parse(stored[0].token).endpoint).toBe(JSON.parse(renewed.token).endpoint);
    expect(
      count(
        "SELECT count(*) AS n FROM change_log WHERE entity = 'push_token' AND entity_id = ?",
        saved.body.id,
      ),
    ).toBe(2);
  });

  it('a token moves with a shared phone: the previous driver’s row for it is removed', async () => {
    const [a, b] = [await w.driver('Al'), await w.driver('Bo')];
    const sub = pushService.subscribe();
    const first = await a.client.post(TOKEN_ROUTE, {
      deviceId: 'yard-phone-7',
      platform: 'web',
      token: sub.token,
    });
    await b.client.post(TOKEN_ROUTE, { deviceId: 'yard-phone-7', platform: 'web', token: sub.token });
    expect(tokenRows(a.id)).toEqual([]);
    expect(tokenRows(b.id)).toHaveLength(1);
    expect(
      rows(
        t.db,
        "SELECT op FROM change_log WHERE entity = 'push_token' AND entity_id = ? ORDER BY seq",
        first.body.id,
      ),
    ).toEqual([{ op: 'upsert' }, { op: 'delete' }]);
  });

  it('bad tokens are 400 on body.token and store nothing', async () => {
    const d = await w.driver();
    const good = JSON.parse(pushService.subscribe().token);
    const bad = [
      'not json',
      JSON.stringify({ ...good, keys: { ...good.keys, p256dh: 'AAAA' } }),
      JSON.stringify({ ...good, keys: { p256dh: good.keys.p256dh } }),
      JSON.stringify({ endpoint: 'ftp://x' }),
    ];
    for (const token of bad) {
      const res = await d.client.post(TOKEN_ROUTE, { deviceId: 'p', platform: 'web', token });
      expect(res.status, token).toBe(400);
      expect(
        res.body.errors.every((e: any) => e.path === 'body.token'),
        res.text,
      ).toBe(true);
    }
    const fields = await d.client.post(TOKEN_ROUTE, { deviceId: '', platform: 'pager', token: '', x: 1 });
    expect(fields.status).toBe(400);
    expect(fields.body.errors.map((e: any) => e.path).sort()).toEqual([
      'body',
      'body.deviceId',
      'body.platform',
      'body.token',
    ]);
    expect(tokenRows(d.id)).toEqual([]);
  });
});

describe('Web Push delivery', () => {
  async function subscribedDriver() {
    const d = await w.driver();
    const sub = pushService.subscribe();
    const res = await d.client.post(TOKEN_ROUTE, {
      deviceId: `dev-${sub.id}`,
      platform: 'web',
      token: sub.token,
    });
    expect(res.status).toBe(200);
    return { ...d, sub };
  }

  it('sends an encrypted (aes128gcm) message with a VAPID signature and a TTL', async () => {
    const d = await subscribedDriver();
    const message = { title: 'New task', body: 'Move trailer 4411 to door 3', data: { taskId: 't-1' } };
    await t.services.push.notify(d.id, message);
    await t.services.push.idle();
    const [got] = pushService.for(d.sub.id);
    expect(got).toBeDefined();
    expect(got!.payload).toEqual(message);
    expect(got!.body.toString('utf8')).not.toContain('Move trailer');
    expect(got!.headers).toMatchObject({ 'content-encoding': 'aes128gcm', ttl: '600', urgency: 'high' });
    const origin = new URL(JSON.parse(d.sub.token).endpoint).origin;
    expect(got!.vapid).toMatchObject({ aud: origin, sub: SUBJECT, publicKey: vapid.publicKey });
    expect(got!.vapid!.exp * 1000).toBeGreaterThan(Date.now());
  });

  it('410 Gone deletes the token (through change capture); 500 keeps it; neither throws', async () => {
    const d = await subscribedDriver();
    pushService.answer(500);
    await expect(t.services.push.notify(d.id, { title: 'x', body: 'y' })).resolves.toBeUndefined();
    await t.services.push.idle();
    expect(pushService.for(d.sub.id)).toHaveLength(1);
    expect(tokenRows(d.id)).toHaveLength(1);

    pushService.answer(410);
    const [token] = tokenRows(d.id);
    await t.services.push.notify(d.id, { title: 'x', body: 'y' });
    await t.services.push.idle();
    expect(pushService.for(d.sub.id)).toHaveLength(2);
    expect(tokenRows(d.id)).toEqual([]);
    expect(
      rows(
        t.db,
        "SELECT op FROM change_log WHERE entity = 'push_token' AND entity_id = ? ORDER BY seq",
        token.id,
      ),
    ).toEqual([{ op: 'upsert' }, { op: 'delete' }]);
  });

  it('an unreachable push service is logged, not thrown; android/ios tokens need a provider (none here)', async () => {
    const d = await w.driver();
    await d.client.post(TOKEN_ROUTE, {
      deviceId: 'gone-box',
      platform: 'web',
      token: JSON.stringify({
        ...JSON.parse(pushService.subscribe().token),
        endpoint: 'http://127.0.0.1:9/push/x',
      }),
    });
    await d.client.post(TOKEN_ROUTE, { deviceId: 'droid', platform: 'android', token: 'fcm-abc' });
    const before = pushService.received.length;
    await t.services.push.notify(d.id, { title: 'x', body: 'y' });
    await t.services.push.idle();
    expect(pushService.received.length).toBe(before);
    expect(tokenRows(d.id)).toHaveLength(2);
  });

  it('redirects are not followed: a push service cannot send the message on to another address', async () => {
    const d = await subscribedDriver();
    pushService.answer(302, { Location: `${pushService.url}/elsewhere` });
    await t.services.push.notify(d.id, { title: 'x', body: 'y' });
    await t.services.push.idle();
    expect(pushService.for(d.sub.id)).toHaveLength(1);
    expect(pushService.received.filter((r) => r.subscriptionId.includes('elsewhere'))).toEqual([]);
    expect(tokenRows(d.id)).toHaveLength(1);
  });

  it('without VAPID keys nothing is sent', async () => {
    const plain = await startTestApp();
    try {
      const service = plain.services.push;
      const d = await new DriverAppWorld(plain).driver();
      const sub = pushService.subscribe();
      await d.client.post(TOKEN_ROUTE, { deviceId: 'p', platform: 'web', token: sub.token });
      await service.notify(d.id, { title: 'x', body: 'y' });
      await service.idle();
      expect(pushService.for(sub.id)).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});

describe('task notifications reach the driver by push', () => {
  it('assignment and cancellation push to the driver; a failing push service fails no task operation', async () => {
    const yardId = await w.yard();
    const d = await subscribedDriverInSession(yardId);
    const dispatcher = await clientWithRole(w.admin, 'dispatcher');
    pushService.answer(500);
    const before = pushService.received.length;
    const created = await dispatcher.post('/api/yard-task', { yardId, type: 'other', driverId: d.id });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status: 'ASSIGNED', driverId: d.id });
    await pushService.waitFor(before + 1);
    await t.services.push.idle();
    const assigned = pushService.for(d.sub.id);
    expect(assigned).toHaveLength(1);
    expect(assigned[0]!.payload.data).toMatchObject({ taskId: created.body.id });

    pushService.answer(201);
    const cancelled = await dispatcher.patch(`/api/yard-task/${created.body.id}`, {
      status: 'CANCELLED',
      cancelReason: 'trailer left',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    await pushService.waitFor(before + 2);
    await t.services.push.idle();
    const all = pushService.for(d.sub.id);
    expect(all).toHaveLength(2);
    expect(all[1]!.payload.data).toMatchObject({ taskId: created.body.id });
    expect(tokenRows(d.id)).toHaveLength(1);
  });
});

async function subscribedDriverInSession(yardId: string) {
  const d = await w.driver();
  const sub = pushService.subscribe();
  expect(
    (await d.client.post(TOKEN_ROUTE, { deviceId: 'p', platform: 'web', token: sub.token })).status,
  ).toBe(200);
  expect((await d.client.post('/api/yard-task/driver/session/start', { yardId })).status).toBe(201);
  return { ...d, sub };
}

describe('push endpoints are https on public addresses (production policy)', () => {
  let prod: TestApp;
  let pw: DriverAppWorld;
  beforeAll(async () => {
    prod = await startTestApp({
      config: {
        push: { vapidPublicKey: vapid.publicKey, vapidPrivateKey: vapid.privateKey, subject: SUBJECT },
      },
    });
    pw = new DriverAppWorld(prod);
  });
  afterAll(() => prod.close());

  const withEndpoint = (endpoint: string) =>
    JSON.stringify({ ...JSON.parse(pushService.subscribe().token), endpoint });

  it('a driver cannot register an endpoint on loopback, the LAN, link-local or any special range', async () => {
    const d = await pw.driver();
    const refused = [
      `${pushService.url}/push/x`,
      'http://push.example.com/x',
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://0.0.0.0/x',
      'https://10.0.0.5/x',
      'https://192.168.1.1/x',
      'https://172.16.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[fe80::1]/x',
      'https://[fd00::1]/x',
      'https://100.64.0.1/x',
      'https://224.0.0.1/x',
    ];
    for (const endpoint of refused) {
      const res = await d.client.post(TOKEN_ROUTE, {
        deviceId: 'p',
        platform: 'web',
        token: withEndpoint(endpoint),
      });
      expect(res.status, endpoint).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors.map((e: any) => e.path)).toEqual(['body.token']);
    }
    expect(rows(prod.db, 'SELECT id FROM push_token WHERE driver_id = ?', d.id)).toEqual([]);
    const publicEndpoint = await d.client.post(TOKEN_ROUTE, {
      deviceId: 'p',
      platform: 'web',
      token: withEndpoint('https://8.8.8.8/push/abc'),
    });
    expect(publicEndpoint.status, publicEndpoint.text).toBe(200);
  });

  it('a stored endpoint is checked again before sending: nothing reaches a loopback address', async () => {
    const d = await pw.driver();
    const sub = pushService.subscribe();
    // A row from before this rule (or from a device that got through another way).
    const now = prod.core.clock.now();
    await prod.core.changes.insert(prod.core.kysely, 'pushToken', {
      id: newId(),
      driverId: d.id,
      deviceId: 'old-phone',
      platform: 'web',
      token: sub.token,
      createdAt: now,
      updatedAt: now,
    });
    await prod.services.push.notify(d.id, { title: 'x', body: 'y' });
    await prod.services.push.idle();
    expect(pushService.for(sub.id)).toEqual([]);
  });
});
