import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { loadConfig } from '../../../shared/config.js';
import { clientWithRole, rows } from '../../helpers/http.js';
import { captureLog } from '../../helpers/log-capture.js';
import { FakePushService } from '../../helpers/push-service.js';
import { selfSignedLoopbackCert } from '../../helpers/push-service-tls.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { DriverAppWorld } from './fixtures.js';

const KEY_ROUTE = '/api/yard-task/driver/push-key';
const TOKEN_ROUTE = '/api/yard-task/driver/notification-token';
const vapid = webpush.generateVAPIDKeys();
const pushConfig = (extra: Record<string, unknown> = {}) => ({
  push: { vapidPublicKey: vapid.publicKey, vapidPrivateKey: vapid.privateKey, ...extra },
});

describe('GET push-key: the VAPID public key drivers subscribe with', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: pushConfig() });
  });
  afterAll(() => t.close());

  it('a driver gets the public key, never the private one', async () => {
    const d = await new DriverAppWorld(t).driver();
    const res = await d.client.get(KEY_ROUTE);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ publicKey: vapid.publicKey });
    expect(res.text).not.toContain(vapid.privateKey);
    // What pushManager.subscribe() takes: an uncompressed P-256 point.
    const raw = Buffer.from(res.body.publicKey, 'base64url');
    expect([raw.length, raw[0]]).toEqual([65, 4]);
  });

  it('staff and anonymous callers are refused', async () => {
    const dispatcher = await clientWithRole(new DriverAppWorld(t).admin, 'dispatcher');
    expect((await dispatcher.get(KEY_ROUTE)).status).toBe(403);
    expect((await fetch(`${t.url}${KEY_ROUTE}`)).status).toBe(401);
  });

  it('without VAPID keys: 503 push-not-configured, a problem the app can explain', async () => {
    const plain = await startTestApp();
    try {
      const d = await new DriverAppWorld(plain).driver();
      const res = await d.client.get(KEY_ROUTE);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ status: 503, code: 'push-not-configured' });
      expect(res.body.detail).toContain('YARD_VAPID_PUBLIC_KEY');
    } finally {
      await plain.close();
    }
  });
});

describe('push.allowLocalEndpoints (YARD_PUSH_ALLOW_LOCAL_ENDPOINTS): tests and labs only', () => {
  it('is off unless set, read from the environment as a boolean', () => {
    expect(loadConfig({}).push.allowLocalEndpoints).toBe(false);
    expect(loadConfig({ YARD_PUSH_ALLOW_LOCAL_ENDPOINTS: 'true' }).push.allowLocalEndpoints).toBe(true);
    expect(loadConfig({ YARD_PUSH_ALLOW_LOCAL_ENDPOINTS: 'false' }).push.allowLocalEndpoints).toBe(false);
  });

  describe('on', () => {
    let t: TestApp;
    let w: DriverAppWorld;
    let pushService: FakePushService;
    let tls: ReturnType<typeof selfSignedLoopbackCert>;
    const captured = captureLog('info');
    const defaultCa = https.globalAgent.options.ca;

    beforeAll(async () => {
      tls = selfSignedLoopbackCert();
      pushService = await new FakePushService().start({ tls });
      // In this process the edge's HTTPS client must trust the fake service's certificate; the
      // system test does it as an operator would, with NODE_EXTRA_CA_CERTS for the edge process.
      https.globalAgent.options.ca = tls.cert;
      t = await startTestApp({ config: pushConfig({ allowLocalEndpoints: true }), log: captured.log });
      w = new DriverAppWorld(t);
    });
    afterAll(async () => {
      https.globalAgent.options.ca = defaultCa;
      await t.close();
      await pushService.stop();
      tls.remove();
    });

    it('says so at start, as a warning', () => {
      expect(captured.warnings().map((l) => l.msg)).toContainEqual(
        expect.stringContaining('YARD_PUSH_ALLOW_LOCAL_ENDPOINTS'),
      );
    });

    it('a loopback https endpoint is registered and reached, encrypted and signed', async () => {
      const d = await w.driver();
      const sub = pushService.subscribe();
      expect(sub.token).toContain('https://127.0.0.1:');
      const saved = await d.client.post(TOKEN_ROUTE, {
        deviceId: 'lab-phone',
        platform: 'web',
        token: sub.token,
      });
      expect(saved.status, saved.text).toBe(200);
      await t.services.push.notify(d.id, { title: 'New yard task', body: 'x', data: { taskId: 't-9' } });
      await t.services.push.idle();
      const [got] = pushService.for(sub.id);
      expect(got?.payload).toEqual({ title: 'New yard task', body: 'x', data: { taskId: 't-9' } });
      expect(got?.vapid).toMatchObject({ aud: pushService.url, publicKey: vapid.publicKey });
    });

    it('still https only, and never multicast or unspecified addresses', async () => {
      const d = await w.driver();
      const good = JSON.parse(pushService.subscribe().token);
      for (const endpoint of [
        `${pushService.url.replace('https:', 'http:')}/push/x`,
        'https://224.0.0.1/x',
        'https://0.0.0.0/x',
      ]) {
        const res = await d.client.post(TOKEN_ROUTE, {
          deviceId: 'p',
          platform: 'web',
          token: JSON.stringify({ ...good, endpoint }),
        });
        expect(res.status, endpoint).toBe(400);
        expect(res.body.errors).toMatchObject([{ path: 'body.token', code: 'address-refused' }]);
      }
      expect(rows(t.db, 'SELECT id FROM push_token WHERE driver_id = ?', d.id)).toEqual([]);
      const lan = await d.client.post(TOKEN_ROUTE, {
        deviceId: 'p',
        platform: 'web',
        token: JSON.stringify({ ...good, endpoint: 'https://192.168.1.20/push/x' }),
      });
      expect(lan.status, lan.text).toBe(200);
    });
  });

  it('off: the same loopback https endpoint is refused, nothing stored, no warning', async () => {
    const captured = captureLog('info');
    const t = await startTestApp({ config: pushConfig(), log: captured.log });
    try {
      const d = await new DriverAppWorld(t).driver();
      const pushService = await new FakePushService().start();
      const token = JSON.stringify({
        ...JSON.parse(pushService.subscribe().token),
        endpoint: 'https://127.0.0.1:8443/push/x',
      });
      await pushService.stop();
      const res = await d.client.post(TOKEN_ROUTE, { deviceId: 'p', platform: 'web', token });
      expect(res.status).toBe(400);
      expect(rows(t.db, 'SELECT id FROM push_token WHERE driver_id = ?', d.id)).toEqual([]);
      expect(captured.warnings().filter((l) => l.msg.includes('ALLOW_LOCAL'))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
