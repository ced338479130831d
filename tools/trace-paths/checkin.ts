import { NodeOnvifClient } from '../../shared/cameras/onvif-client.js';
import { CAMERA_PROVIDER_KINDS } from '../../shared/cameras/providers/index.js';
import { ALLOW_LOCAL_SETTING } from '../../shared/net/outbound-policy.js';
import { startFakeOnvifCamera } from '../../test/fixtures/fake-onvif-camera.js';
import { startTestApp } from '../../test/helpers/test-app.js';
import type { TracedPath } from '../trace-path.js';
import { AS_IN_SERVICE, Client, created } from './world.js';

/**
 * A standalone edge with a yard, a carrier, a driver, and a gate with a simulated relay and one
 * ONVIF camera (a fake one on loopback speaking SOAP and Digest); the operation is one check-in of
 * a new trailer and truck with the driver, `actuate: true`, `snapshot: true`.
 */
export async function checkinPath(): Promise<TracedPath> {
  const camera = await startFakeOnvifCamera({ username: 'yard', password: 'cam-pass-1', name: 'Gate Cam' });
  const t = await startTestApp({
    config: AS_IN_SERVICE,
    cameras: {
      onvif: new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: camera.discoveryPort }),
      providers: CAMERA_PROVIDER_KINDS,
    },
  });
  const admin = new Client(t.url, t.adminToken);
  await created(admin.put('/api/settings', { settings: { [ALLOW_LOCAL_SETTING]: true } }), 200);
  const yardId = (await created(admin.post('/api/yard', { code: 'TRC', name: 'Trace', timeZone: 'UTC' }))).id;
  const carrierId = (await created(admin.post('/api/carrier', { name: 'Trace Freight', scac: 'TRCF' }))).id;
  const driverId = (
    await created(
      admin.post('/api/driver', { kind: 'carrier', firstName: 'Jo', lastName: 'Gate', carrierId }),
    )
  ).id;
  const gateId = (
    await created(
      admin.post(`/api/yard/${yardId}/gate`, {
        name: 'Main',
        direction: 'both',
        relay: { driver: 'simulated', channel: 1 },
      }),
    )
  ).id;
  await created(
    admin.post('/api/camera', {
      yardId,
      gateId,
      name: 'Lane',
      onvif: { xaddr: camera.xaddr, username: 'yard', password: 'cam-pass-1' },
    }),
  );
  let n = 0;
  const checkIn = async () => {
    n++;
    const movement = await admin.post('/api/movement', {
      yardId,
      gateId,
      direction: 'in',
      carrierId,
      driverId,
      trailer: { number: `TRC${n}` },
      truck: { plate: `TRC-${n}`, plateRegion: 'TX' },
      actuate: true,
      snapshot: true,
    });
    if (movement.status !== 201) throw new Error(`check-in: ${movement.status} ${movement.text}`);
    const { actuation, snapshots } = movement.body;
    if (actuation?.result !== 'ok' || snapshots?.[0]?.attachmentId === undefined)
      throw new Error(`check-in without its pulse or picture: ${movement.text}`);
  };
  return {
    orchestrator: 'shared/modules/movements/service.ts',
    warmUp: checkIn,
    async run(probe) {
      probe.start();
      try {
        await checkIn();
      } finally {
        probe.stop();
      }
      // The gate's rate limit and busy state are not what is measured: a pause between check-ins.
      await new Promise((r) => setTimeout(r, 50));
    },
    async close() {
      await t.close();
      await camera.close();
    },
  };
}
