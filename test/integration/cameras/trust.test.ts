import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { FakeApiKeyTokenService, FakeSnapshotCameras } from '../../fixtures/fake-camera-provider.js';
import { type FakeOnvifCamera, startFakeOnvifCamera } from '../../fixtures/fake-onvif-camera.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The trust rules around camera and provider addresses (docs/security.md, "Outbound addresses and secrets"): stored
 * secrets go only to the addresses they were given with, Digest never turns into Basic, provider
 * cameras keep to yard scopes, loopback and link-local addresses need the site's consent, and a
 * malformed address is a 400 on its field. Fakes listen on 127.0.0.1.
 *
 * At a standalone edge (SQLite), and at the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes"). ONVIF cameras and the
 * site's settings are the edge's (the cloud answers 409 edge-owned): those cases run at the edge only.
 */
const VARIANTS = [
  { role: 'edge', dialect: 'sqlite' },
  ...TEST_DIALECTS.map((dialect) => ({ role: 'cloud', dialect })),
] as const;

describe.each(VARIANTS)('trust at the $role ($dialect)', ({ role, dialect }) => {
  const atCloud = role === 'cloud';
  const ALLOW_LOCAL = 'network.allowLoopbackAndLinkLocal';
  const API_KEY = 'vk-api-key-0123456789';
  const CAM = { username: 'yard', password: 'cam-pass-1' };
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  let home: FakeOnvifCamera;
  let other: FakeOnvifCamera;
  let basicOnly: FakeOnvifCamera;
  let tokenApi: FakeApiKeyTokenService;
  let tokenApi2: FakeApiKeyTokenService;
  let cgiBasic: FakeSnapshotCameras;

  const now = () => Date.now();
  const cameraRow = async (id: string) =>
    (await query(t.db, 'SELECT onvif_xaddr, onvif_password, version FROM camera WHERE id = ?', id))[0];
  const integrationRow = async (id: string) =>
    (await query(t.db, 'SELECT config, version FROM integration WHERE id = ?', id))[0];
  const count = async (table: string) =>
    (await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;
  const soapCalls = (cam: FakeOnvifCamera) => cam.requests.filter((r) => r.kind === 'soap').length;

  async function allowLocal(value: boolean) {
    return admin.put('/api/settings', { settings: { [ALLOW_LOCAL]: value } });
  }

  async function registerOnvif(name: string, cam: FakeOnvifCamera, yardId = yardA) {
    const res = await admin.post('/api/camera', { yardId, name, onvif: { xaddr: cam.xaddr, ...CAM } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  }

  async function addIntegration(name: string, kind: string, config: Record<string, unknown>) {
    const res = await admin.post('/api/integration', { kind, name, config });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  }

  beforeAll(async () => {
    home = await startFakeOnvifCamera({ ...CAM, name: 'Home Cam', seed: 1 });
    other = await startFakeOnvifCamera({ ...CAM, name: 'Other Cam', seed: 2 });
    basicOnly = await startFakeOnvifCamera({ ...CAM, name: 'Basic Cam', seed: 3, snapshotAuth: 'basic' });
    tokenApi = await new FakeApiKeyTokenService({
      apiKey: API_KEY,
      now,
      cameras: [{ id: 'cam-a', name: 'A' }],
    }).start();
    tokenApi2 = await new FakeApiKeyTokenService({
      apiKey: API_KEY,
      now,
      cameras: [{ id: 'cam-a', name: 'A' }],
    }).start();
    cgiBasic = await new FakeSnapshotCameras({ type: 'basic', username: 'view', password: 'cgi-pass' }, [
      'ch1',
      'ch2',
    ]).start();
    t = await startTestApp({ dialect, env: role === 'cloud' ? { YARD_ROLE: 'cloud' } : {} });
    admin = new Client(t.url, t.adminToken);
    // The fakes are on loopback: this site allows that (the setting this file also tests). Site
    // settings are the edge's: at the cloud they are stored as the site's sync stores them.
    if (role === 'edge') {
      expect((await allowLocal(true)).status).toBe(200);
      await admin.put('/api/settings', { settings: { 'camera.snapshotTimeoutMs': 1500 } });
    } else {
      for (const [name, value] of [
        [ALLOW_LOCAL, 'true'],
        ['camera.snapshotTimeoutMs', '1500'],
      ]) {
        await query(
          t.db,
          "INSERT INTO setting (name, value, scope, created_at, updated_at, hlc) VALUES (?, ?, 'site', ?, ?, ?)",
          name,
          value,
          now(),
          now(),
          `${String(now()).padStart(13, '0')}-0000-site-1`,
        );
      }
    }
    yardA = (await seed(admin).yard({ code: 'TRA', name: 'Trust A', timeZone: 'UTC' })).id;
    yardB = (await seed(admin).yard({ code: 'TRB', name: 'Trust B', timeZone: 'UTC' })).id;
  });

  afterAll(async () => {
    await t?.close();
    for (const cam of [home, other, basicOnly]) await cam?.close();
    await tokenApi?.stop();
    await tokenApi2?.stop();
    await cgiBasic?.stop();
  });

  describe('a malformed camera address is 400 on its field', () => {
    it.skipIf(atCloud)(
      'POST and PATCH with onvif.xaddr "not a url" or "http://" change nothing',
      async () => {
        const id = await registerOnvif('Malformed check', home);
        const before = await count('camera');
        const row = await cameraRow(id);
        for (const xaddr of ['not a url', 'http://', 'ftp://cam.local/onvif']) {
          const created = await admin.post('/api/camera', {
            yardId: yardA,
            name: `Bad ${xaddr}`,
            onvif: { xaddr, ...CAM },
            verify: false,
          });
          expect(created.status, created.text).toBe(400);
          expect(created.body.code).toBe('validation-failed');
          expect(created.body.errors.map((e: any) => e.path)).toEqual(['body.onvif.xaddr']);
          const patched = await admin.patch(`/api/camera/${id}`, { onvif: { xaddr }, verify: false });
          expect(patched.status, patched.text).toBe(400);
          expect(patched.body.errors.map((e: any) => e.path)).toEqual(['body.onvif.xaddr']);
        }
        expect(await count('camera')).toBe(before);
        expect(await cameraRow(id)).toEqual(row);
      },
    );
  });

  describe('stored secrets go only to the address they were given with', () => {
    it.skipIf(atCloud)('an ONVIF camera moved to another address needs its password again', async () => {
      const id = await registerOnvif('Moving cam', home);
      const row = await cameraRow(id);
      const calls = soapCalls(other);
      for (const onvif of [{ xaddr: other.xaddr }, { xaddr: other.xaddr, password: '********' }]) {
        const res = await admin.patch(`/api/camera/${id}`, { onvif });
        expect(res.status, res.text).toBe(400);
        expect(res.body.code).toBe('validation-failed');
        expect(res.body.errors).toEqual([
          expect.objectContaining({ path: 'body.onvif.password', code: 'secret-required' }),
        ]);
        expect(res.body.errors[0].message).toMatch(/never sent to a new address/);
      }
      expect(await cameraRow(id)).toEqual(row);
      expect(soapCalls(other)).toBe(calls);

      // Another path on the same origin keeps it (the same host has the password already).
      const samePath = await admin.patch(`/api/camera/${id}`, {
        onvif: { xaddr: `${home.xaddr}?again` },
        verify: false,
      });
      expect(samePath.status, samePath.text).toBe(200);
      const moved = await admin.patch(`/api/camera/${id}`, { onvif: { xaddr: other.xaddr, ...CAM } });
      expect(moved.status, moved.text).toBe(200);
      expect((await cameraRow(id)).onvif_xaddr).toBe(other.xaddr);
    });

    it('an integration whose URL moves to a new host needs its key again; nothing reaches the new host', async () => {
      const id = await addIntegration('Moving provider', 'api-key-token', {
        baseUrl: tokenApi.baseUrl,
        apiKey: API_KEY,
      });
      const row = await integrationRow(id);
      for (const config of [
        { baseUrl: tokenApi2.baseUrl },
        { baseUrl: tokenApi2.baseUrl, apiKey: '********' },
      ]) {
        const res = await admin.patch(`/api/integration/${id}`, { config });
        expect(res.status, res.text).toBe(400);
        expect(res.body.errors).toEqual([
          expect.objectContaining({ path: 'body.config.apiKey', code: 'secret-required' }),
        ]);
      }
      expect(await integrationRow(id)).toEqual(row);
      expect((await admin.get(`/api/camera/integration/${id}/cam-a/snapshot`)).status).toBe(200);
      expect(tokenApi2.tokenRequests).toBe(0);

      const sameHost = await admin.patch(`/api/integration/${id}`, {
        config: { baseUrl: `${tokenApi.baseUrl}/`, apiKey: '********' },
      });
      expect(sameHost.status, sameHost.text).toBe(200);
      const moved = await admin.patch(`/api/integration/${id}`, {
        config: { baseUrl: tokenApi2.baseUrl, apiKey: API_KEY },
      });
      expect(moved.status, moved.text).toBe(200);
      expect((await admin.get(`/api/camera/integration/${id}/cam-a/snapshot`)).status).toBe(200);
      expect(tokenApi2.tokenRequests).toBe(1);
    });

    it('a snapshot camera added on a new host needs the shared password again', async () => {
      const auth = { type: 'basic', username: 'view', password: 'cgi-pass' };
      const id = await addIntegration('CGI move', 'http-snapshot', {
        auth,
        cameras: [{ id: 'ch1', name: 'One', snapshotUrl: cgiBasic.urlOf('ch1') }],
      });
      const res = await admin.patch(`/api/integration/${id}`, {
        config: {
          auth: { ...auth, password: '********' },
          cameras: [
            { id: 'ch1', name: 'One', snapshotUrl: cgiBasic.urlOf('ch1') },
            { id: 'x', name: 'Elsewhere', snapshotUrl: `${tokenApi2.baseUrl}/snap.jpg` },
          ],
        },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors.map((e: any) => [e.path, e.code])).toEqual([
        ['body.config.auth.password', 'secret-required'],
      ]);
    });

    it('a Digest integration switched to Basic needs its password again; the camera never reads it as Basic', async () => {
      const digest = { type: 'digest', username: 'view', password: 'cgi-pass' };
      const cameras = [{ id: 'ch1', name: 'One', snapshotUrl: cgiBasic.urlOf('ch1') }];
      const id = await addIntegration('Digest kept', 'http-snapshot', { auth: digest, cameras });
      const row = await integrationRow(id);
      const seen = cgiBasic.requests.length;
      for (const auth of [
        { type: 'basic', username: 'view' },
        { type: 'basic', username: 'view', password: '********' },
      ]) {
        const res = await admin.patch(`/api/integration/${id}`, { config: { auth, cameras } });
        expect(res.status, res.text).toBe(400);
        expect(res.body.code).toBe('validation-failed');
        expect(res.body.errors.map((e: any) => [e.path, e.code])).toEqual([
          ['body.config.auth.password', 'secret-required'],
        ]);
        expect(res.body.errors[0].message).toMatch(/authentication changed from digest to basic/);
      }
      expect(await integrationRow(id)).toEqual(row);
      // The next snapshot still answers the camera's Basic-only challenge with nothing.
      const snap = await admin.get(`/api/camera/integration/${id}/ch1/snapshot`);
      expect(snap.status, snap.text).toBe(502);
      const basic = `Basic ${Buffer.from('view:cgi-pass').toString('base64')}`;
      expect(cgiBasic.requests.slice(seen).some((r) => r.authorization === basic)).toBe(false);

      // Sent with the new type, the password is the admin's choice.
      const retyped = await admin.patch(`/api/integration/${id}`, {
        config: { auth: { type: 'basic', username: 'view', password: 'cgi-pass' }, cameras },
      });
      expect(retyped.status, retyped.text).toBe(200);
      expect((await admin.get(`/api/camera/integration/${id}/ch1/snapshot`)).status).toBe(200);
    });

    it.skipIf(atCloud)(
      '"digest" never sends Basic, even when the server asks only for Basic (provider and ONVIF)',
      async () => {
        const id = await addIntegration('Digest to Basic', 'http-snapshot', {
          auth: { type: 'digest', username: 'view', password: 'cgi-pass' },
          cameras: [{ id: 'ch2', name: 'Two', snapshotUrl: cgiBasic.urlOf('ch2') }],
        });
        const seen = cgiBasic.requests.length;
        const res = await admin.get(`/api/camera/integration/${id}/ch2/snapshot`);
        expect(res.status, res.text).toBe(502);
        expect(res.body.code).toBe('camera-auth-failed');
        expect(res.body.detail).toMatch(/asks for HTTP Basic/);
        const received = cgiBasic.requests.slice(seen);
        expect(received.length).toBeGreaterThan(0);
        expect(received.every((r) => r.authorization === null)).toBe(true);

        const cameraId = await registerOnvif('Basic-only snapshots', basicOnly);
        const snap = await admin.get(`/api/camera/${cameraId}/snapshot`);
        expect(snap.status, snap.text).toBe(502);
        expect(snap.body.code).toBe('camera-auth-failed');
        const snapshots = basicOnly.requests.filter((r) => r.kind === 'snapshot');
        expect(snapshots.length).toBeGreaterThan(0);
        expect(snapshots.every((r) => r.kind === 'snapshot' && r.authorization === null)).toBe(true);
      },
    );
  });

  describe('provider cameras keep to yard scopes', () => {
    let integrationId: string;
    let registeredId: string;

    beforeAll(async () => {
      integrationId = await addIntegration('Scoped CGI', 'http-snapshot', {
        auth: { type: 'basic', username: 'view', password: 'cgi-pass' },
        cameras: [
          { id: 'ch1', name: 'Yard A dock', snapshotUrl: cgiBasic.urlOf('ch1') },
          { id: 'ch2', name: 'Unregistered', snapshotUrl: cgiBasic.urlOf('ch2') },
        ],
      });
      const cam = await admin.post('/api/camera', {
        yardId: yardA,
        name: 'Dock via provider',
        provider: { integrationId, providerCameraId: 'ch1' },
      });
      expect(cam.status, cam.text).toBe(201);
      registeredId = cam.body.id;
    });

    it('a yard-B user lists none of them and gets no picture', async () => {
      const b = await clientWithRole(admin, 'viewer', { yardIds: [yardB] });
      const list = await b.get('/api/camera/integration');
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ items: [], nextCursor: null, failures: [] });
      for (const camera of ['ch1', 'ch2']) {
        const snap = await b.get(`/api/camera/integration/${integrationId}/${camera}/snapshot`);
        expect(snap.status, camera).toBe(404);
        expect(snap.body.code).toBe('not-found');
      }
    });

    it('a yard-A user sees the camera registered in yard A, and only that registration', async () => {
      const a = await clientWithRole(admin, 'viewer', { yardIds: [yardA] });
      const list = await a.get('/api/camera/integration');
      expect(list.status).toBe(200);
      expect(list.body.items.map((c: any) => [c.integrationId, c.id, c.registeredCameraIds])).toEqual([
        [integrationId, 'ch1', [registeredId]],
      ]);
      expect((await a.get(`/api/camera/integration/${integrationId}/ch1/snapshot`)).status).toBe(200);
      expect((await a.get(`/api/camera/integration/${integrationId}/ch2/snapshot`)).status).toBe(404);
    });

    it('a user who sees every yard lists and photographs unregistered provider cameras too', async () => {
      const all = await clientWithRole(admin, 'viewer');
      const list = await all.get('/api/camera/integration');
      const ids = list.body.items.filter((c: any) => c.integrationId === integrationId).map((c: any) => c.id);
      expect(ids).toEqual(['ch1', 'ch2']);
      expect((await all.get(`/api/camera/integration/${integrationId}/ch2/snapshot`)).status).toBe(200);
    });
  });

  describe('loopback and link-local camera addresses need the site setting', () => {
    it.skipIf(atCloud)('refused when stored and when used; private LAN addresses stay allowed', async () => {
      const cameraId = await registerOnvif('Loopback cam', home);
      const integrationId = await addIntegration('Loopback provider', 'api-key-token', {
        baseUrl: tokenApi.baseUrl,
        apiKey: API_KEY,
      });
      const setting = await admin.get(`/api/settings/${ALLOW_LOCAL}`);
      expect(setting.body).toMatchObject({ default: false, scope: 'site' });
      expect((await allowLocal(false)).status).toBe(200);
      try {
        const cameras = await count('camera');
        for (const xaddr of [
          home.xaddr,
          'http://169.254.169.254/onvif/device_service',
          'http://[::ffff:127.0.0.1]/onvif/device_service',
          'http://localhost:9/onvif/device_service',
        ]) {
          const res = await admin.post('/api/camera', {
            yardId: yardA,
            name: 'Refused',
            onvif: { xaddr, ...CAM },
            verify: false,
          });
          expect(res.status, xaddr).toBe(400);
          expect(res.body.errors).toEqual([
            expect.objectContaining({ path: 'body.onvif.xaddr', code: 'address-refused' }),
          ]);
          expect(res.body.errors[0].message).toContain(ALLOW_LOCAL);
        }
        expect(await count('camera')).toBe(cameras);
        const provider = await admin.post('/api/integration', {
          kind: 'api-key-token',
          name: 'Metadata',
          config: { baseUrl: 'http://169.254.169.254/latest', apiKey: API_KEY },
        });
        expect(provider.status).toBe(400);
        expect(provider.body.errors.map((e: any) => [e.path, e.code])).toEqual([
          ['body.config.baseUrl', 'address-refused'],
        ]);
        const lan = await admin.post('/api/camera', {
          yardId: yardA,
          name: 'LAN cam',
          onvif: { xaddr: 'http://10.20.30.40/onvif/device_service', ...CAM },
          verify: false,
        });
        expect(lan.status, lan.text).toBe(201);

        // Registered while allowed, used after: refused before anything is sent.
        const soap = home.requests.length;
        const snap = await admin.get(`/api/camera/${cameraId}/snapshot`);
        expect(snap.status, snap.text).toBe(409);
        expect(snap.body.code).toBe('address-refused');
        expect(home.requests.length).toBe(soap);
        const tokens = tokenApi.tokenRequests;
        const pic = await admin.get(`/api/camera/integration/${integrationId}/cam-a/snapshot`);
        expect(pic.status, pic.text).toBe(409);
        expect(pic.body.code).toBe('address-refused');
        expect(tokenApi.tokenRequests).toBe(tokens);
      } finally {
        expect((await allowLocal(true)).status).toBe(200);
      }
      expect((await admin.get(`/api/camera/${cameraId}/snapshot`)).status).toBe(200);
    });
  });
});
