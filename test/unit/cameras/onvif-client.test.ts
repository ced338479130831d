import { afterEach, describe, expect, it } from 'vitest';
import { NodeOnvifClient } from '../../../shared/cameras/onvif-client.js';
import { CameraError } from '../../../shared/cameras/types.js';
import { deviceAddressPolicy } from '../../../shared/net/outbound-policy.js';
import {
  type FakeOnvifCamera,
  type FakeOnvifCameraOptions,
  startDiscoveryGroup,
  startFakeOnvifCamera,
} from '../../fixtures/fake-onvif-camera.js';
import { jpegComment } from '../../fixtures/jpeg.js';

/** The fakes listen on loopback, which cameras may use only where the site allows it. */
const LOCAL = deviceAddressPolicy({ allowLoopbackAndLinkLocal: true });

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function camera(options: Partial<FakeOnvifCameraOptions> = {}): Promise<FakeOnvifCamera> {
  const cam = await startFakeOnvifCamera({ username: 'admin', password: 'Yard+Cam/1=', ...options });
  closers.push(() => cam.close());
  return cam;
}

const target = (cam: FakeOnvifCamera, password = 'Yard+Cam/1=') => ({
  xaddr: cam.xaddr,
  username: 'admin',
  password,
});

async function failure(promise: Promise<unknown>): Promise<CameraError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CameraError);
  return err as CameraError;
}

const client = new NodeOnvifClient();

describe('NodeOnvifClient.describe', () => {
  it('reads device information and the media profiles with snapshot and stream URIs', async () => {
    const cam = await camera({ manufacturer: 'Acme', model: 'GateCam 2', serialNumber: 'SN-42' });
    const info = await client.describe(target(cam), { timeoutMs: 5000, policy: LOCAL });
    expect(info).toEqual({
      manufacturer: 'Acme',
      model: 'GateCam 2',
      firmwareVersion: 'V5.7.3 build 220112',
      serialNumber: 'SN-42',
      hardwareId: '88',
      profiles: [
        {
          token: 'Profile_1',
          name: 'mainStream',
          snapshotUri: cam.snapshotUris.Profile_1,
          streamUri: 'rtsp://127.0.0.1:554/Streaming/Channels/Profile_1',
          encoding: 'H264',
          width: 1920,
          height: 1080,
        },
        {
          token: 'Profile_2',
          name: 'subStream',
          snapshotUri: cam.snapshotUris.Profile_2,
          streamUri: 'rtsp://127.0.0.1:554/Streaming/Channels/Profile_2',
          encoding: 'H264',
          width: 640,
          height: 360,
        },
      ],
    });
    // Every authenticated call passed the camera's WS-Security check (only UDP/HTTP streams are refused).
    const soap = cam.requests.filter((r) => r.kind === 'soap');
    expect(new Set(soap.map((r) => r.action))).toEqual(
      new Set([
        'GetSystemDateAndTime',
        'GetCapabilities',
        'GetDeviceInformation',
        'GetProfiles',
        'GetStreamUri',
        'GetSnapshotUri',
      ]),
    );
    expect(soap.filter((r) => r.status !== 200).every((r) => r.action === 'GetStreamUri')).toBe(true);
  });

  it("works with a camera whose clock is hours off (WS-Security Created follows the camera's clock)", async () => {
    const cam = await camera({ clockOffsetMs: 3 * 3600_000 });
    const info = await client.describe(target(cam), { timeoutMs: 5000, policy: LOCAL });
    expect(info.profiles.map((p) => p.snapshotUri)).toEqual([
      cam.snapshotUris.Profile_1,
      cam.snapshotUris.Profile_2,
    ]);
  });

  it.each([400, 401] as const)(
    'wrong password: the NotAuthorized fault (HTTP %i) is unauthorized, with no secret in the message',
    async (authFaultStatus) => {
      const cam = await camera({ authFaultStatus });
      const err = await failure(
        client.describe(target(cam, 'wrong-pass'), { timeoutMs: 5000, policy: LOCAL }),
      );
      expect(err.failure).toBe('unauthorized');
      expect(err.status).toBe(authFaultStatus);
      expect(err.message).toMatch(/check the username and password/);
      expect(err.message).not.toContain('wrong-pass');
    },
  );

  it('camera down (nothing listening): unreachable, well before the timeout', async () => {
    const cam = await camera();
    await cam.close();
    const started = Date.now();
    const err = await failure(client.describe(target(cam), { timeoutMs: 10_000, policy: LOCAL }));
    expect(err.failure).toBe('unreachable');
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('camera that accepts but never answers: timeout within timeoutMs', async () => {
    const cam = await camera();
    cam.setBehaviour('hang');
    const started = Date.now();
    const err = await failure(client.describe(target(cam), { timeoutMs: 500, policy: LOCAL }));
    expect(err.failure).toBe('timeout');
    expect(err.message).toMatch(/500 ms/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('an address that is not an ONVIF service: bad-response', async () => {
    const cam = await camera();
    const err = await failure(
      client.describe(
        { ...target(cam), xaddr: cam.xaddr.replace('device_service', 'nothing') },
        { timeoutMs: 5000, policy: LOCAL },
      ),
    );
    expect(err.failure).toBe('bad-response');
  });
});

describe('NodeOnvifClient.snapshot', () => {
  it("returns exactly the camera's JPEG, answering Digest with a base64 nonce and never Basic", async () => {
    const cam = await camera();
    const snap = await client.snapshot(
      { ...target(cam), snapshotUri: cam.snapshotUri },
      { timeoutMs: 5000, policy: LOCAL },
    );
    expect(cam.served).toHaveLength(1);
    expect(snap.bytes.equals(cam.lastJpeg!)).toBe(true);
    expect(snap.contentType).toBe('image/jpeg');
    const snapshots = cam.requests.filter((r) => r.kind === 'snapshot');
    expect(snapshots.map((r) => (r.auth.ok ? 'ok' : r.auth.reason))).toEqual(['missing', 'ok']);
  });

  it('wrong password: unauthorized', async () => {
    const cam = await camera();
    const err = await failure(
      client.snapshot(
        { ...target(cam, 'wrong-pass'), snapshotUri: cam.snapshotUri },
        { timeoutMs: 5000, policy: LOCAL },
      ),
    );
    expect(err.failure).toBe('unauthorized');
    expect(err.message).not.toContain('wrong-pass');
    expect(cam.served).toHaveLength(0);
  });

  it('camera down: unreachable; camera hung: timeout within timeoutMs', async () => {
    const down = await camera();
    await down.close();
    expect(
      (
        await failure(
          client.snapshot(
            { ...target(down), snapshotUri: down.snapshotUri },
            { timeoutMs: 5000, policy: LOCAL },
          ),
        )
      ).failure,
    ).toBe('unreachable');

    const hung = await camera();
    hung.setBehaviour('hang');
    const started = Date.now();
    expect(
      (
        await failure(
          client.snapshot(
            { ...target(hung), snapshotUri: hung.snapshotUri },
            { timeoutMs: 400, policy: LOCAL },
          ),
        )
      ).failure,
    ).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("10 cameras x 5 concurrent snapshots: all succeed, each with its own camera's bytes", async () => {
    const cams = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        camera({ name: `Camera ${i}`, username: `user${i}`, password: `pw+/=${i}`, seed: i }),
      ),
    );
    const results = await Promise.all(
      cams.flatMap((cam, i) =>
        Array.from({ length: 5 }, async () => {
          const snap = await client.snapshot(
            { xaddr: cam.xaddr, username: `user${i}`, password: `pw+/=${i}`, snapshotUri: cam.snapshotUri },
            { timeoutMs: 10_000, policy: LOCAL },
          );
          return { i, snap };
        }),
      ),
    );
    expect(results).toHaveLength(50);
    for (const { i, snap } of results) {
      const cam = cams[i]!;
      expect(cam.served.some((served) => served.equals(snap.bytes))).toBe(true);
      expect(jpegComment(snap.bytes)).toMatch(new RegExp(`^Camera ${i} #[1-5]$`));
    }
    for (const cam of cams) expect(cam.served).toHaveLength(5);
    // Five different frames per camera, each returned once.
    expect(new Set(results.map((r) => jpegComment(r.snap.bytes))).size).toBe(50);
  });
});

describe('NodeOnvifClient.discover', () => {
  it('finds every camera that answers the probe, with its device address, name and scopes', async () => {
    const north = await camera({ name: 'Gate North' });
    const south = await camera({ name: 'Gate South' });
    const group = await startDiscoveryGroup([north, south]);
    closers.push(() => group.close());
    const discovery = new NodeOnvifClient({ probeAddress: group.address, probePort: group.port });

    const found = await discovery.discover({ timeoutMs: 800 });
    const byUrn = Object.fromEntries(found.map((c) => [c.urn, c]));
    expect(Object.keys(byUrn).sort()).toEqual([north.urn, south.urn].sort());
    expect(byUrn[north.urn]).toMatchObject({ xaddr: north.xaddr, name: 'Gate North', hardware: 'FV-2CD' });
    expect(byUrn[south.urn]).toMatchObject({ xaddr: south.xaddr, name: 'Gate South' });
    expect(byUrn[north.urn]!.scopes).toContain('onvif://www.onvif.org/name/Gate_North');
  });

  it('concurrent discover calls share one running probe', async () => {
    const cam = await camera({ name: 'Only' });
    const discovery = new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: cam.discoveryPort });
    // Each probe run sends from its own UDP socket; how many datagrams it sends in the window varies
    // with load, so count the sockets (sources), not the datagrams.
    const sources = () => new Set(cam.requests.flatMap((r) => (r.kind === 'probe' ? [r.from] : []))).size;
    await discovery.discover({ timeoutMs: 600 });
    expect(sources()).toBe(1);

    const [a, b] = await Promise.all([
      discovery.discover({ timeoutMs: 600 }),
      discovery.discover({ timeoutMs: 600 }),
    ]);
    expect(a.map((c) => c.urn)).toEqual([cam.urn]);
    expect(b).toEqual(a);
    expect(sources()).toBe(2);
  });

  it('no answers: an empty list after the timeout', async () => {
    const cam = await camera();
    const port = cam.discoveryPort;
    await cam.close();
    const discovery = new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: port });
    expect(await discovery.discover({ timeoutMs: 300 })).toEqual([]);
  });
});
