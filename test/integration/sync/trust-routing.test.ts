import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { cloudMasterData, count, countAt, type MasterData, valueAt } from './link-fixture.js';

/**
 * docs/sync.md "Trust", the other direction: the cloud sends a site only what it needs (no password
 * hash of a user whose scope does not cover it), secrets stay where they are used, and a linked
 * edge refuses the changes the cloud would refuse from it, so both sides agree.
 */
describe.each(TEST_DIALECTS)('trust routing (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  const cloudCount = (sql: string, ...args: unknown[]) => countAt(h.cloud.app.db, sql, ...args);
  let a: MasterData;
  let b: MasterData;

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, sites: ['site-a', 'site-b'] });
    a = await cloudMasterData(h.cloud.client, 'site-a', 'A');
    b = await cloudMasterData(h.cloud.client, 'site-b', 'B');
    for (const edge of h.edges) await h.converged(edge, { entities: ['carrier', 'driver'] });
  });
  afterAll(() => h?.close());

  const siteA = () => h.edges[0]!;
  const siteB = () => h.edges[1]!;
  const hasUser = (app: (typeof h.edges)[number]['app'], id: string) =>
    count(app, 'SELECT count(*) FROM app_user WHERE id = ?', id) === 1;

  describe('what the cloud sends a site', () => {
    it('a scoped user reaches only the sites its yards are at, and leaves a site when its scope moves', async () => {
      const user = await h.cloud.client.post('/api/user', {
        username: 'clerk-a',
        password: 'clerk-password-1',
        role: 'gate',
        yardIds: [a.yardId],
      });
      expect(user.status, user.text).toBe(201);
      const id = user.body.id as string;
      await waitFor(() => hasUser(siteA().app, id), { what: 'clerk-a at site-a' });
      // A marker written after the user reached site-b's log too: when it arrives, the user would have.
      const marker = await h.cloud.client.post('/api/carrier', { name: 'Marker One' });
      await waitFor(
        () => count(siteB().app, 'SELECT count(*) FROM carrier WHERE id = ?', marker.body.id) === 1,
        {
          what: 'the marker at site-b',
        },
      );
      expect(hasUser(siteB().app, id)).toBe(false);

      const moved = await h.cloud.client.patch(`/api/user/${id}`, { yardIds: [b.yardId] });
      expect(moved.status, moved.text).toBe(200);
      await waitFor(() => hasUser(siteB().app, id), { what: 'clerk-a at site-b' });
      await waitFor(() => !hasUser(siteA().app, id), { what: 'clerk-a gone from site-a' });
      const login = await siteA().client.as(undefined).post('/api/auth/login', {
        username: 'clerk-a',
        password: 'clerk-password-1',
      });
      expect(login.status).toBe(401);
    });

    it('an integration (with its secrets) reaches only the sites with a camera that uses it', async () => {
      const made = await h.cloud.client.post('/api/integration', {
        kind: 'http-snapshot',
        name: 'Dock cams',
        config: {
          auth: { type: 'basic', username: 'viewer', password: 'dock-secret' },
          cameras: [{ id: 'dock-1', name: 'Dock 1', snapshotUrl: 'http://192.0.2.20/snap.jpg' }],
        },
      });
      expect(made.status, made.text).toBe(201);
      const integrationId = made.body.id as string;
      const inLog = (site: string) =>
        cloudCount(
          "SELECT count(*) FROM change_log WHERE peer = ? AND entity = 'integration' AND entity_id = ?",
          site,
          integrationId,
        );
      expect(await inLog('site-a')).toBe(0);
      expect(await inLog('site-b')).toBe(0);

      const camera = await h.cloud.client.post('/api/camera', {
        yardId: a.yardId,
        name: 'Dock 1',
        verify: false,
        provider: { integrationId, providerCameraId: 'dock-1' },
      });
      expect(camera.status, camera.text).toBe(201);
      await waitFor(
        () => count(siteA().app, 'SELECT count(*) FROM camera WHERE id = ?', camera.body.id) === 1,
        {
          what: 'the provider camera at site-a',
        },
      );
      expect(count(siteA().app, 'SELECT count(*) FROM integration WHERE id = ?', integrationId)).toBe(1);
      // Later changes go to site-a, still not to site-b.
      const renamed = await h.cloud.client.patch(`/api/integration/${integrationId}`, {
        name: 'Dock cameras',
      });
      expect(renamed.status, renamed.text).toBe(200);
      await waitFor(
        () => count(siteA().app, "SELECT count(*) FROM integration WHERE name = 'Dock cameras'") === 1,
        { what: 'the renamed integration at site-a' },
      );
      expect(await inLog('site-b')).toBe(0);
      expect(count(siteB().app, 'SELECT count(*) FROM integration WHERE id = ?', integrationId)).toBe(0);
    });

    it('an ONVIF camera’s password stays at its edge', async () => {
      const made = await siteA().client.post('/api/camera', {
        yardId: a.yardId,
        name: 'North gate',
        verify: false,
        onvif: {
          xaddr: 'http://10.0.0.20/onvif/device_service',
          username: 'yard',
          password: 'camera-secret',
        },
      });
      expect(made.status, made.text).toBe(201);
      const id = made.body.id as string;
      const logged = siteA()
        .app.db.sqlite.prepare("SELECT data FROM change_log WHERE entity = 'camera' AND entity_id = ?")
        .pluck()
        .all(id) as string[];
      expect(logged.length).toBeGreaterThan(0);
      for (const data of logged) expect(data).not.toContain('camera-secret');
      await waitFor(async () => (await cloudCount('SELECT count(*) FROM camera WHERE id = ?', id)) === 1, {
        what: 'the camera at the cloud',
      });
      expect(await valueAt(h.cloud.app.db, 'SELECT onvif_password FROM camera WHERE id = ?', id)).toBeNull();
      expect(
        siteA().app.db.sqlite.prepare('SELECT onvif_password FROM camera WHERE id = ?').pluck().get(id),
      ).toBe('camera-secret');
      await h.converged(siteA(), { entities: ['camera'] });
    });
  });

  describe('a linked edge refuses what the cloud would refuse from it', () => {
    it("driver codes, PINs and blocks are the cloud's; walk-ins and contact details are the site's", async () => {
      const edge = siteA().client;
      const block = await edge.patch(`/api/driver/${a.driverId}`, { status: 'blocked', blockedReason: 'x' });
      expect(block.status, block.text).toBe(409);
      expect(block.body.code).toBe('cloud-owned');
      expect((await edge.patch(`/api/driver/${a.driverId}`, { pin: '9999' })).status).toBe(409);
      expect((await edge.patch(`/api/driver/${a.driverId}`, { driverCode: 'J999' })).status).toBe(409);
      expect((await edge.delete(`/api/driver/${a.driverId}`)).status).toBe(409);
      const jockey = await edge.post('/api/driver', {
        kind: 'yard',
        firstName: 'New',
        lastName: 'Jockey',
        driverCode: 'J777',
        pin: '1234',
      });
      expect(jockey.status, jockey.text).toBe(409);
      expect(count(siteA().app, "SELECT count(*) FROM driver WHERE driver_code = 'J777'")).toBe(0);

      const phone = await edge.patch(`/api/driver/${a.driverId}`, { phone: '+15550123' });
      expect(phone.status, phone.text).toBe(200);
      const walkIn = await edge.post('/api/driver', {
        kind: 'carrier',
        carrierId: a.carrierId,
        firstName: 'Walk',
        lastName: 'In',
        licenseNumber: 'D1234567',
        licenseRegion: 'TX',
      });
      expect(walkIn.status, walkIn.text).toBe(201);
      await waitFor(
        async () => (await cloudCount('SELECT count(*) FROM driver WHERE id = ?', walkIn.body.id)) === 1,
        {
          what: 'the walk-in at the cloud',
        },
      );
      expect(await cloudCount("SELECT count(*) FROM dead_letter WHERE peer = 'site-a'")).toBe(0);
      await h.converged(siteA(), { entities: ['driver'] });
    });
  });
});
