import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { ALLOW_LOCAL_SETTING } from '../../../shared/net/outbound-policy.js';
import {
  FakeApiKeyTokenService,
  FakeFrameUrlService,
  FakeSnapshotCameras,
} from '../../fixtures/fake-camera-provider.js';
import { seed } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Integrations and provider cameras through the API against fake provider services on 127.0.0.1:
 * configs checked against each kind's schema, secrets write-only, cameras listed and pictures
 * fetched through the provider's real flow (token exchange, frame URL), failures reported clearly.
 */
describe.each(TEST_DIALECTS)('integrations (%s)', (dialect) => {
  const API_KEY = 'vk-api-key-0123456789';
  const CLIENT_SECRET = 'frame-client-secret-42';
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse('2026-11-21T08:00:00Z'));
  let tokenApi: FakeApiKeyTokenService;
  let frameApi: FakeFrameUrlService;
  let cgi: FakeSnapshotCameras;

  async function bytes(path: string) {
    const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.adminToken}` } });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  }

  beforeAll(async () => {
    tokenApi = await new FakeApiKeyTokenService({
      apiKey: API_KEY,
      now: () => clock.now(),
      cameras: [
        { id: 'cam-a', name: 'Dock door 1', site: 'Dallas' },
        { id: 'cam-b', name: 'Dock door 2', site: 'Dallas', online: false },
      ],
    }).start();
    frameApi = await new FakeFrameUrlService({
      clientId: 'yard-app',
      clientSecret: CLIENT_SECRET,
      now: () => clock.now(),
      cameras: [{ id: 'q2-1', name: 'Lot east' }],
    }).start();
    cgi = await new FakeSnapshotCameras({ type: 'digest', username: 'view', password: 'cgi-pass' }, [
      'ch1',
    ]).start();
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' }, clock });
    admin = new Client(t.url, t.adminToken);
    // The fake providers listen on loopback: the site allows that explicitly (off by default). A
    // site setting is the site's edge's (the cloud answers 409 edge-owned): stored as its sync does.
    await query(
      t.db,
      "INSERT INTO setting (name, value, scope, created_at, updated_at, hlc) VALUES (?, 'true', 'site', ?, ?, ?)",
      ALLOW_LOCAL_SETTING,
      clock.now(),
      clock.now(),
      `${String(clock.now()).padStart(13, '0')}-0000-site-1`,
    );
  });

  afterAll(async () => {
    await t?.close();
    await tokenApi?.stop();
    await frameApi?.stop();
    await cgi?.stop();
  });

  describe('integrations', () => {
    let tokenId: string;

    it('lists the provider kinds with a JSON schema for each config and its secret fields', async () => {
      const res = await admin.get('/api/integration/camera-provider');
      expect(res.status).toBe(200);
      expect(res.body.items.map((k: any) => k.kind)).toEqual(['http-snapshot', 'api-key-token', 'frame-url']);
      expect(res.body.nextCursor).toBeNull();
      const apiKey = res.body.items.find((k: any) => k.kind === 'api-key-token');
      expect(apiKey.secretFields).toEqual(['apiKey']);
      expect(apiKey.configSchema.properties.apiKey).toBeDefined();
      expect(apiKey.configSchema.required).toContain('baseUrl');
      const staff = await admin.get('/api/camera/provider');
      expect(staff.body.items.map((k: any) => k.kind)).toEqual([
        'http-snapshot',
        'api-key-token',
        'frame-url',
      ]);
    });

    it('adds an integration; the key is stored, and every read shows it masked', async () => {
      const res = await admin.post('/api/integration', {
        kind: 'api-key-token',
        name: 'Dock cameras',
        config: { baseUrl: tokenApi.baseUrl, apiKey: API_KEY },
      });
      expect(res.status).toBe(201);
      tokenId = res.body.id;
      expect(res.body).toMatchObject({ kind: 'api-key-token', enabled: true, secretFields: ['apiKey'] });
      expect(res.body.config.apiKey).toBe('********');
      for (const read of [
        await admin.get(`/api/integration/${tokenId}`),
        await admin.get('/api/integration'),
      ]) {
        expect(read.status).toBe(200);
        expect(read.text).not.toContain(API_KEY);
      }
      const [row] = await query(t.db, 'SELECT config FROM integration WHERE id = ?', tokenId);
      expect(JSON.parse(row.config).apiKey).toBe(API_KEY);
    });

    it('lists the provider cameras, marking the ones registered as yard cameras', async () => {
      const res = await admin.get(`/api/integration/${tokenId}/cameras`);
      expect(res.status).toBe(200);
      expect(res.body.items.map((c: any) => [c.id, c.name, c.online])).toEqual([
        ['cam-a', 'Dock door 1', true],
        ['cam-b', 'Dock door 2', false],
      ]);
      expect(res.body.items[0].registeredCameraIds).toEqual([]);
      expect(res.body.nextCursor).toBeNull();
    });

    it('fetches a provider camera picture through the token flow, reusing the token', async () => {
      const tokensBefore = tokenApi.tokenRequests;
      const first = await bytes(`/api/camera/integration/${tokenId}/cam-a/snapshot`);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toContain('image/jpeg');
      expect(first.body.equals(tokenApi.last('cam-a')!)).toBe(true);
      const second = await bytes(`/api/camera/integration/${tokenId}/cam-a/snapshot`);
      expect(second.body.equals(tokenApi.last('cam-a')!)).toBe(true);
      expect(tokenApi.tokenRequests - tokensBefore).toBeLessThanOrEqual(1);
      const unknown = await admin.get(`/api/camera/integration/${tokenId}/no-such-cam/snapshot`);
      expect(unknown.status).toBe(404);
    });

    it('PATCH with the masked key keeps it; a wrong key makes the provider calls 502 camera-auth-failed', async () => {
      const current = (await admin.get(`/api/integration/${tokenId}`)).body;
      const kept = await admin.patch(
        `/api/integration/${tokenId}`,
        { name: 'Dock cams', config: current.config },
        { 'if-match': `"v${current.version}"` },
      );
      expect(kept.status).toBe(200);
      expect(
        JSON.parse((await query(t.db, 'SELECT config FROM integration WHERE id = ?', tokenId))[0].config)
          .apiKey,
      ).toBe(API_KEY);
      expect((await bytes(`/api/camera/integration/${tokenId}/cam-b/snapshot`)).status).toBe(200);

      await admin.patch(`/api/integration/${tokenId}`, {
        config: { ...current.config, apiKey: 'wrong-key-000' },
      });
      const refused = await admin.get(`/api/camera/integration/${tokenId}/cam-a/snapshot`);
      expect(refused.status).toBe(502);
      expect(refused.body.code).toBe('camera-auth-failed');
      expect(refused.text).not.toContain('wrong-key-000');
      await admin.patch(`/api/integration/${tokenId}`, { config: { ...current.config, apiKey: API_KEY } });
      expect((await bytes(`/api/camera/integration/${tokenId}/cam-a/snapshot`)).status).toBe(200);
    });

    it('refuses an unknown kind or a config its schema rejects, writing nothing', async () => {
      const before = (await query(t.db, 'SELECT count(*) AS n FROM integration'))[0].n;
      const kind = await admin.post('/api/integration', { kind: 'webhookz', name: 'X', config: {} });
      expect(kind.status).toBe(400);
      expect(kind.body.errors[0].message).toContain('api-key-token');
      const config = await admin.post('/api/integration', {
        kind: 'api-key-token',
        name: 'Y',
        config: { baseUrl: 'not a url' },
      });
      expect(config.status).toBe(400);
      expect(config.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining(['body.config.baseUrl', 'body.config.apiKey']),
      );
      const dup = await admin.post('/api/integration', {
        kind: 'api-key-token',
        name: 'DOCK CAMS',
        config: { baseUrl: tokenApi.baseUrl, apiKey: API_KEY },
      });
      expect(dup.status).toBe(409);
      expect((await query(t.db, 'SELECT count(*) AS n FROM integration'))[0].n).toBe(before);
    });

    it('the frame-URL kind: OAuth token, frame URL, then the picture', async () => {
      const res = await admin.post('/api/integration', {
        kind: 'frame-url',
        name: 'Lot cameras',
        config: { baseUrl: frameApi.baseUrl, clientId: 'yard-app', clientSecret: CLIENT_SECRET },
      });
      expect(res.status).toBe(201);
      expect(res.text).not.toContain(CLIENT_SECRET);
      const pic = await bytes(`/api/camera/integration/${res.body.id}/q2-1/snapshot`);
      expect(pic.status).toBe(200);
      expect(pic.body.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    });

    it('the generic snapshot-URL kind with Digest', async () => {
      const res = await admin.post('/api/integration', {
        kind: 'http-snapshot',
        name: 'Gatehouse CGI',
        config: {
          auth: { type: 'digest', username: 'view', password: 'cgi-pass' },
          cameras: [{ id: 'ch1', name: 'Gatehouse', snapshotUrl: cgi.urlOf('ch1') }],
        },
      });
      expect(res.status).toBe(201);
      expect(res.body.config.auth.password).toBe('********');
      const pic = await bytes(`/api/camera/integration/${res.body.id}/ch1/snapshot`);
      expect(pic.status).toBe(200);
    });

    it('all integration cameras at once; a failing integration is reported, the others still listed', async () => {
      const broken = await admin.post('/api/integration', {
        kind: 'api-key-token',
        name: 'Broken',
        config: { baseUrl: 'http://127.0.0.1:9', apiKey: 'whatever-key' },
      });
      expect(broken.status).toBe(201);
      const res = await admin.get('/api/camera/integration');
      expect(res.status).toBe(200);
      expect(res.body.items.map((c: any) => c.id)).toEqual(
        expect.arrayContaining(['cam-a', 'cam-b', 'q2-1', 'ch1']),
      );
      expect(res.body.failures).toEqual([
        expect.objectContaining({
          integrationId: broken.body.id,
          integrationName: 'Broken',
          code: 'camera-unreachable',
        }),
      ]);
      expect(res.text).not.toContain('whatever-key');
      await admin.patch(`/api/integration/${broken.body.id}`, { enabled: false });
      expect((await admin.get('/api/camera/integration')).body.failures).toEqual([]);
      const disabled = await admin.get(`/api/camera/integration/${broken.body.id}/x/snapshot`);
      expect(disabled.status).toBe(409);
      expect(disabled.body.code).toBe('integration-disabled');
    });

    it('a yard camera from a provider: registered (verified at the provider), pictures, and the integration is in use', async () => {
      const yardId = (await seed(admin).yard({ code: 'INT1', name: 'Provider yard', timeZone: 'UTC' })).id;
      const missing = await admin.post('/api/camera', {
        yardId,
        name: 'Nope',
        provider: { integrationId: tokenId, providerCameraId: 'cam-zzz' },
      });
      expect(missing.status).toBe(400);
      const cam = await admin.post('/api/camera', {
        yardId,
        name: 'Door 1',
        provider: { integrationId: tokenId, providerCameraId: 'cam-a' },
      });
      expect(cam.status).toBe(201);
      // The name is unique in the yard, case-insensitively as the database folds it (ASCII letters):
      // a second camera of the same name, a non-ASCII letter included, is 409 duplicate, not a 500.
      const named = { yardId, provider: { integrationId: tokenId, providerCameraId: 'cam-b' } };
      const first = await admin.post('/api/camera', { ...named, name: 'Tor Ä' });
      expect(first.status).toBe(201);
      const before = (await query(t.db, 'SELECT count(*) AS n FROM camera'))[0].n;
      const again = await admin.post('/api/camera', { ...named, name: 'tor Ä' });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('duplicate');
      expect((await query(t.db, 'SELECT count(*) AS n FROM camera'))[0].n).toBe(before);
      expect((await admin.delete(`/api/camera/${first.body.id}`)).status).toBe(204);
      expect(cam.body).toMatchObject({
        source: 'provider',
        onvif: null,
        provider: { integrationId: tokenId, providerCameraId: 'cam-a' },
      });
      const pic = await bytes(`/api/camera/${cam.body.id}/snapshot`);
      expect(pic.status).toBe(200);
      expect(pic.body.equals(tokenApi.last('cam-a')!)).toBe(true);
      const listed = await admin.get(`/api/integration/${tokenId}/cameras`);
      expect(listed.body.items.find((c: any) => c.id === 'cam-a').registeredCameraIds).toEqual([cam.body.id]);

      const inUse = await admin.delete(`/api/integration/${tokenId}`);
      expect(inUse.status).toBe(409);
      expect(inUse.body.code).toBe('in-use');
      expect((await admin.delete(`/api/camera/${cam.body.id}`)).status).toBe(204);
      expect((await admin.delete(`/api/integration/${tokenId}`)).status).toBe(204);
      expect((await admin.get(`/api/integration/${tokenId}`)).status).toBe(404);
    });

    it('a token past its expiry is replaced before use', async () => {
      const id = (
        await admin.post('/api/integration', {
          kind: 'api-key-token',
          name: 'Expiry',
          config: { baseUrl: tokenApi.baseUrl, apiKey: API_KEY },
        })
      ).body.id;
      expect((await bytes(`/api/camera/integration/${id}/cam-a/snapshot`)).status).toBe(200);
      const before = tokenApi.tokenRequests;
      clock.advance(31 * 60_000);
      expect((await bytes(`/api/camera/integration/${id}/cam-a/snapshot`)).status).toBe(200);
      expect(tokenApi.tokenRequests).toBe(before + 1);
    });
  });
});
