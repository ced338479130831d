import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeOnvifClient } from '../../../shared/cameras/onvif-client.js';
import { CAMERA_PROVIDER_KINDS } from '../../../shared/cameras/providers/index.js';
import { ALLOW_LOCAL_SETTING } from '../../../shared/net/outbound-policy.js';
import { type FakeOnvifCamera, startFakeOnvifCamera } from '../../fixtures/fake-onvif-camera.js';
import { seed } from '../../helpers/builders.js';
import { Client, type Res, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Yard cameras through the API against fake ONVIF cameras speaking SOAP and HTTP Digest on
 * 127.0.0.1: registration reads the camera, snapshots are the camera's bytes, failures are clear
 * problems that change nothing, and movements with snapshot: true carry the gate cameras' pictures.
 */
// ONVIF cameras, gates and movements are the edge's (only it reaches the cameras): SQLite, edge only (docs/architecture.md "Two databases, and several cloud nodes").
let t: TestApp;
let admin: Client;
let yardId: string;
let gateId: string;
const cams: FakeOnvifCamera[] = [];
let gate: FakeOnvifCamera;
let spare: FakeOnvifCamera;

async function bytes(path: string): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.adminToken}` } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

function onvif(cam: FakeOnvifCamera, password = 'cam-pass-1') {
  return { xaddr: cam.xaddr, username: 'yard', password };
}

beforeAll(async () => {
  gate = await startFakeOnvifCamera({ username: 'yard', password: 'cam-pass-1', name: 'Gate Cam', seed: 1 });
  spare = await startFakeOnvifCamera({
    username: 'yard',
    password: 'cam-pass-1',
    name: 'Spare Cam',
    seed: 2,
  });
  cams.push(gate, spare);
  t = await startTestApp({
    cameras: {
      onvif: new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: gate.discoveryPort }),
      providers: CAMERA_PROVIDER_KINDS,
    },
  });
  admin = new Client(t.url, t.adminToken);
  yardId = (await seed(admin).yard({ code: 'CAM1', name: 'Camera yard', timeZone: 'America/Chicago' })).id;
  gateId = (
    await admin.post(`/api/yard/${yardId}/gate`, {
      name: 'Main',
      direction: 'both',
      relay: { driver: 'simulated', channel: 1 },
    })
  ).body.id;
  // The fake cameras listen on loopback: the site allows that explicitly (off by default).
  await admin.put('/api/settings', {
    settings: {
      'camera.snapshotTimeoutMs': 1500,
      'camera.movementSnapshotTimeoutMs': 1000,
      [ALLOW_LOCAL_SETTING]: true,
    },
  });
});

afterAll(async () => {
  await t?.close();
  for (const cam of cams) await cam.close();
});

describe('registering an ONVIF camera', () => {
  it('reads the profiles and snapshot URI from the camera; the password never reads back', async () => {
    const res = await admin.post('/api/camera', { yardId, name: 'Gate north', onvif: onvif(gate) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      yardId,
      name: 'Gate north',
      source: 'onvif',
      gateId: null,
      enabled: true,
      onvif: {
        xaddr: gate.xaddr,
        username: 'yard',
        password: '********',
        profileToken: 'Profile_1',
        snapshotUri: gate.snapshotUri,
      },
      provider: null,
    });
    expect(res.body.onvif.device.manufacturer).toBeTruthy();
    expect(res.text).not.toContain('cam-pass-1');
    expect((await admin.get(`/api/camera?yardId=${yardId}`)).text).not.toContain('cam-pass-1');
    const [row] = rows(
      t.db,
      'SELECT onvif_password, onvif_snapshot_uri FROM camera WHERE id = ?',
      res.body.id,
    );
    expect(row).toEqual({ onvif_password: 'cam-pass-1', onvif_snapshot_uri: gate.snapshotUri });
    expect(gate.requests.some((r) => r.kind === 'soap' && r.action === 'GetSnapshotUri')).toBe(true);
  });

  it('a profile can be chosen; an unknown one is 400 naming the profiles the camera has', async () => {
    const sub = await admin.post('/api/camera', {
      yardId,
      name: 'Gate sub',
      onvif: { ...onvif(gate), profileToken: 'Profile_2' },
    });
    expect(sub.status).toBe(201);
    expect(sub.body.onvif).toMatchObject({
      profileToken: 'Profile_2',
      snapshotUri: gate.snapshotUris.Profile_2,
    });
    const bad = await admin.post('/api/camera', {
      yardId,
      name: 'Gate x',
      onvif: { ...onvif(gate), profileToken: 'nope' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ path: 'body.onvif.profileToken' });
    expect(bad.body.errors[0].message).toContain('Profile_1');
  });

  it('a wrong password is 502 camera-auth-failed and nothing is stored', async () => {
    const before = rows(t.db, 'SELECT count(*) AS n FROM camera')[0].n;
    const res = await admin.post('/api/camera', {
      yardId,
      name: 'Wrong pass',
      onvif: onvif(spare, 'not-it'),
    });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('camera-auth-failed');
    expect(res.text).not.toContain('not-it');
    expect(rows(t.db, 'SELECT count(*) AS n FROM camera')[0].n).toBe(before);
  });

  it('an address where nothing listens is 502 camera-unreachable; verify: false registers it anyway', async () => {
    const down = await startFakeOnvifCamera({ username: 'yard', password: 'cam-pass-1' });
    const xaddr = down.xaddr;
    await down.close();
    const res = await admin.post('/api/camera', {
      yardId,
      name: 'Offline',
      onvif: { xaddr, username: 'yard', password: 'x' },
    });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('camera-unreachable');
    const later = await admin.post('/api/camera', {
      yardId,
      name: 'Offline',
      onvif: { xaddr, username: 'yard', password: 'x' },
      verify: false,
    });
    expect(later.status).toBe(201);
    expect(later.body.onvif.snapshotUri).toBeNull();
    const snap = await bytes(`/api/camera/${later.body.id}/snapshot`);
    expect(snap.status).toBe(502);
  });

  it('refuses bad input with field paths and writes nothing', async () => {
    const before = rows(t.db, 'SELECT count(*) AS n FROM change_log')[0].n;
    const both = await admin.post('/api/camera', {
      yardId,
      name: 'Both',
      onvif: onvif(gate),
      provider: { integrationId: yardId, providerCameraId: 'x' },
    });
    expect(both.status).toBe(400);
    const userinfo = await admin.post('/api/camera', {
      yardId,
      name: 'Creds in URL',
      onvif: { xaddr: 'http://admin:secret@192.0.2.1/onvif/device_service', username: 'a', password: 'b' },
    });
    expect(userinfo.status).toBe(400);
    expect(userinfo.body.errors[0].path).toBe('body.onvif.xaddr');
    const noYard = await admin.post('/api/camera', {
      yardId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
      name: 'Nowhere',
      onvif: onvif(gate),
      verify: false,
    });
    expect(noYard.status).toBe(404);
    const dup = await admin.post('/api/camera', {
      yardId,
      name: 'GATE NORTH',
      onvif: onvif(gate),
      verify: false,
    });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate');
    expect(rows(t.db, 'SELECT count(*) AS n FROM change_log')[0].n).toBe(before);
  });
});

describe('snapshots', () => {
  let cameraId: string;
  beforeAll(async () => {
    cameraId = (await admin.get(`/api/camera?yardId=${yardId}`)).body.items.find(
      (c: any) => c.name === 'Gate north',
    ).id;
  });

  it('answers the JPEG the camera served, byte for byte', async () => {
    const res = await bytes(`/api/camera/${cameraId}/snapshot`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('image/jpeg');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.equals(gate.lastJpeg!)).toBe(true);
    expect(res.headers.get('x-attachment-id')).toBeNull();
  });

  it('store=true keeps it as an attachment of the camera', async () => {
    const res = await bytes(`/api/camera/${cameraId}/snapshot?store=true`);
    expect(res.status).toBe(200);
    const attachmentId = res.headers.get('x-attachment-id')!;
    const [row] = rows(
      t.db,
      'SELECT ref_type, ref_id, content_type, size FROM attachment WHERE id = ?',
      attachmentId,
    );
    expect(row).toEqual({
      ref_type: 'camera',
      ref_id: cameraId,
      content_type: 'image/jpeg',
      size: res.body.length,
    });
    const download = await bytes(`/api/attachment/${attachmentId}`);
    expect(download.status).toBe(200);
    expect(download.body.equals(res.body)).toBe(true);
  });

  it('a camera that hangs is 504 camera-timeout within the snapshot timeout', async () => {
    spare.setBehaviour('normal');
    const id = (await admin.post('/api/camera', { yardId, name: 'Spare', onvif: onvif(spare) })).body.id;
    spare.setBehaviour('hang');
    try {
      const started = Date.now();
      const res = await admin.get(`/api/camera/${id}/snapshot`);
      expect(res.status).toBe(504);
      expect(res.body.code).toBe('camera-timeout');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      spare.setBehaviour('normal');
    }
  });

  it('a disabled camera is 409; unknown is 404; a viewer may look, not register', async () => {
    const id = (
      await admin.post('/api/camera', { yardId, name: 'Disabled', onvif: onvif(gate), enabled: false })
    ).body.id;
    expect((await admin.get(`/api/camera/${id}/snapshot`)).body.code).toBe('camera-disabled');
    expect((await admin.get('/api/camera/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f/snapshot')).status).toBe(404);
  });
});

describe('cameras of a gate and movements with snapshot: true', () => {
  it('binding through the camera or the gate keeps camera.gate_id and gate.cameraIds equal', async () => {
    const a = (await admin.post('/api/camera', { yardId, name: 'Lane A', onvif: onvif(gate), gateId })).body;
    expect(a.gateId).toBe(gateId);
    const b = (await admin.post('/api/camera', { yardId, name: 'Lane B', onvif: onvif(spare) })).body;
    const g = await admin.patch(`/api/yard/${yardId}/gate/${gateId}`, { cameraIds: [a.id, b.id] });
    expect(g.status).toBe(200);
    expect(g.body.cameraIds).toEqual([a.id, b.id]);
    expect(
      rows(t.db, 'SELECT id FROM camera WHERE gate_id = ? ORDER BY name', gateId).map((r) => r.id),
    ).toEqual([a.id, b.id]);
    expect((await admin.get(`/api/camera/${b.id}`)).body.gateId).toBe(gateId);
  });

  it('a movement takes one picture per gate camera, notes the one that failed, and still opens the gate', async () => {
    const cameras = (await admin.get(`/api/camera?gateId=${gateId}`)).body.items;
    expect(cameras).toHaveLength(2);
    spare.setBehaviour('hang');
    const pulsesBefore = t.gates.history.length;
    let res: Res;
    try {
      res = await admin.post('/api/movement', {
        yardId,
        gateId,
        direction: 'in',
        trailer: { number: 'SNAP-1' },
        actuate: true,
        snapshot: true,
      });
    } finally {
      spare.setBehaviour('normal');
    }
    expect(res.status).toBe(201);
    expect(res.body.actuation).toMatchObject({ result: 'ok' });
    expect(t.gates.history.length).toBe(pulsesBefore + 1);
    const shots = res.body.snapshots as Array<{
      cameraName: string;
      attachmentId: string | null;
      error: string | null;
    }>;
    const ok = shots.find((s) => s.cameraName === 'Lane A')!;
    const failed = shots.find((s) => s.cameraName === 'Lane B')!;
    expect(ok.attachmentId).toBeTruthy();
    expect(failed).toMatchObject({ attachmentId: null });
    expect(failed.error).toContain('camera-timeout');
    expect(res.body.attachmentIds).toEqual([ok.attachmentId]);
    expect(
      res.body.warnings.some((w: string) => w.startsWith('snapshot-failed: Lane B: camera-timeout')),
    ).toBe(true);
    const [stored] = rows(t.db, 'SELECT attachment_ids, warnings FROM movement WHERE id = ?', res.body.id);
    expect(JSON.parse(stored.attachment_ids)).toEqual([ok.attachmentId]);
    expect(JSON.parse(stored.warnings)).toEqual(res.body.warnings);
    const picture = await bytes(`/api/camera/${cameras[0].id}/snapshot`);
    expect(picture.status).toBe(200);
  });

  it('de-registering a camera removes it from its gate', async () => {
    const lane = (await admin.get(`/api/camera?gateId=${gateId}`)).body.items.find(
      (c: any) => c.name === 'Lane B',
    );
    expect((await admin.delete(`/api/camera/${lane.id}`)).status).toBe(204);
    const g = (await admin.get(`/api/yard/${yardId}/gate`)).body.items.find((x: any) => x.id === gateId);
    expect(g.cameraIds).toHaveLength(1);
    expect(g.cameraIds).not.toContain(lane.id);
    expect(rows(t.db, 'SELECT count(*) AS n FROM camera WHERE id = ?', lane.id)[0].n).toBe(0);
  });
});

describe('changing a camera', () => {
  it('a masked or missing password keeps the stored one; a new wrong one is refused and changes nothing', async () => {
    const cam = (await admin.post('/api/camera', { yardId, name: 'Patch me', onvif: onvif(gate) })).body;
    const renamed = await admin.patch(
      `/api/camera/${cam.id}`,
      { name: 'Patched', onvif: { password: '********', username: 'yard' } },
      { 'if-match': `"v${cam.version}"` },
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Patched');
    expect(rows(t.db, 'SELECT onvif_password FROM camera WHERE id = ?', cam.id)[0].onvif_password).toBe(
      'cam-pass-1',
    );
    const wrong = await admin.patch(`/api/camera/${cam.id}`, { onvif: { password: 'guess' } });
    expect(wrong.status).toBe(502);
    expect(wrong.body.code).toBe('camera-auth-failed');
    expect(rows(t.db, 'SELECT onvif_password, version FROM camera WHERE id = ?', cam.id)[0]).toEqual({
      onvif_password: 'cam-pass-1',
      version: renamed.body.version,
    });
    const stale = await admin.patch(
      `/api/camera/${cam.id}`,
      { name: 'Stale' },
      { 'if-match': `"v${cam.version}"` },
    );
    expect(stale.status).toBe(412);
  });
});

describe('discovery', () => {
  it('a WS-Discovery probe finds the camera and says which yard cameras use that address', async () => {
    const res = await admin.post('/api/camera/discover', { timeoutMs: 1000 });
    expect(res.status).toBe(200);
    const found = res.body.find((d: any) => d.xaddr === gate.xaddr);
    expect(found).toMatchObject({ urn: gate.urn });
    expect(found.registeredCameraIds.length).toBeGreaterThan(0);
  });
});
