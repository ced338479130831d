import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedBroker, startEmbeddedBroker } from '../../../cloud/broker.js';
import { RemoteCommandsClient } from '../../../cloud/sync/remote-commands.js';
import { NodeOnvifClient } from '../../../shared/cameras/onvif-client.js';
import { CAMERA_PROVIDER_KINDS } from '../../../shared/cameras/providers/index.js';
import type { GateDriverStatus, GateHardware } from '../../../shared/hardware.js';
import { HardwareFaultError } from '../../../shared/http/errors.js';
import { ALLOW_LOCAL_SETTING } from '../../../shared/net/outbound-policy.js';
import { cloudSubscriptions, topicsFor } from '../../../shared/sync/protocol.js';
import { type FakeOnvifCamera, startFakeOnvifCamera } from '../../fixtures/fake-onvif-camera.js';
import { rows } from '../../helpers/http.js';
import {
  brokerHasClient,
  type Cloud,
  COMMAND_TIMEOUT_MS,
  copyRow,
  createGate,
  type Edge,
  mqttTransport,
  startCloud,
  startEdge,
  TransportLink,
  waitFor,
} from './commands-fixture.js';

/**
 * Gate actuation and ONVIF snapshots asked at the cloud, run by the site's edge over a real MQTT
 * broker (in-process Aedes): the answer is the edge's, its errors keep their status and code, an
 * edge that cannot answer in time is 504 site-offline, and such a command never runs later.
 */

/** Relays the test drives: hold a pulse open (gate busy) or fail it (hardware fault). */
class ControlledGates implements GateHardware {
  readonly pulses: string[] = [];
  mode: 'ok' | 'hold' | 'fault' = 'ok';
  private readonly held: Array<() => void> = [];
  async configure(): Promise<void> {}
  async pulse(gateId: string): Promise<{ durationMs: number }> {
    this.pulses.push(gateId);
    if (this.mode === 'fault')
      throw new HardwareFaultError('The relay board on /dev/ttyUSB0 did not answer.');
    if (this.mode === 'hold') await new Promise<void>((r) => this.held.push(r));
    return { durationMs: 5 };
  }
  get holding(): number {
    return this.held.length;
  }
  release(): void {
    for (const r of this.held.splice(0)) r();
  }
  status(): GateDriverStatus[] {
    return [];
  }
  async stop(): Promise<void> {}
}

let broker: EmbeddedBroker;
let cloud: Cloud;
let edge: Edge;
let camera: FakeOnvifCamera;
const gates = new ControlledGates();
let gateId: string;
let cameraId: string;

const actuationsAt = (db: Edge['app']['db'], id: string) =>
  rows(
    db,
    'SELECT requested_by, requested_via, reason, result, error FROM gate_actuation WHERE gate_id = ? ORDER BY at, id',
    id,
  );

beforeAll(async () => {
  broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
  camera = await startFakeOnvifCamera({
    username: 'yard',
    password: 'cam-pass-1',
    name: 'Lane Cam',
    seed: 7,
  });
  cloud = await startCloud(broker.url);
  edge = await startEdge(broker.url, cloud, 'site-north', {
    gates,
    cameras: {
      onvif: new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: camera.discoveryPort }),
      providers: CAMERA_PROVIDER_KINDS,
    },
  });
  gateId = await createGate(edge, cloud, 'North in');
  // The fake camera listens on loopback: the edge's site allows that explicitly (off by default).
  expect((await edge.admin.put('/api/settings', { settings: { [ALLOW_LOCAL_SETTING]: true } })).status).toBe(
    200,
  );
  const cam = await edge.admin.post('/api/camera', {
    yardId: edge.yardId,
    name: 'Lane 1',
    onvif: { xaddr: camera.xaddr, username: 'yard', password: 'cam-pass-1' },
  });
  expect(cam.status).toBe(201);
  cameraId = cam.body.id;
  copyRow(edge.app, cloud.app, 'camera', cameraId);
});

afterAll(async () => {
  gates.release();
  await edge?.app.close();
  await cloud?.app.close();
  await broker?.stop();
  await camera?.close();
});

describe('gate actuation from the cloud', () => {
  it("pulses the edge's relay once; the cloud answers the edge's audited record and writes nothing", async () => {
    const before = gates.pulses.length;
    const res = await cloud.admin.post(`/api/hardware/gate/${gateId}/actuate`, {
      reason: 'driver at the intercom',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      gateId,
      yardId: edge.yardId,
      result: 'ok',
      requestedBy: 'admin',
      requestedVia: 'cloud',
      reason: 'driver at the intercom',
    });
    expect(gates.pulses.slice(before)).toEqual([gateId]);
    const audit = actuationsAt(edge.app.db, gateId);
    expect(audit.at(-1)).toEqual({
      requested_by: 'admin',
      requested_via: 'cloud',
      reason: 'driver at the intercom',
      result: 'ok',
      error: null,
    });
    expect(rows(edge.app.db, 'SELECT id FROM gate_actuation WHERE id = ?', res.body.id)).toHaveLength(1);
    // The record reaches the cloud by sync, not by this request; the cloud's own relays never move.
    expect(actuationsAt(cloud.app.db, gateId)).toEqual([]);
    expect(cloud.app.gates.history).toEqual([]);
    expect(cloud.commands.inFlight).toBe(0);
  });

  it('a gate busy at the edge is 409 gate-busy at the cloud, as the edge said it', async () => {
    gates.mode = 'hold';
    const local = edge.admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
    await waitFor(() => gates.holding === 1, { what: 'the local pulse to hold the gate' });
    try {
      const res = await cloud.admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
      expect(res.status).toBe(409);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ status: 409, code: 'gate-busy' });
      expect(res.body.detail).toContain('North in');
    } finally {
      gates.mode = 'ok';
      gates.release();
    }
    expect((await local).status).toBe(200);
    // Audit rows are ordered by request time: the local pulse began first, the cloud's was refused.
    expect(actuationsAt(edge.app.db, gateId).slice(-2)).toMatchObject([
      { requested_via: 'local', result: 'ok' },
      { requested_via: 'cloud', result: 'refused' },
    ]);
  });

  it('a relay fault at the edge is 503 hardware-fault at the cloud, with the driver message', async () => {
    gates.mode = 'fault';
    try {
      const res = await cloud.admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        code: 'hardware-fault',
        detail: 'The relay board on /dev/ttyUSB0 did not answer.',
      });
    } finally {
      gates.mode = 'ok';
    }
    expect(actuationsAt(edge.app.db, gateId).at(-1)).toMatchObject({
      requested_via: 'cloud',
      result: 'fault',
    });
  });

  it("hardware status at the cloud lists the sites' gates but no local drivers or ports", async () => {
    const res = await cloud.admin.get('/api/hardware/status');
    expect(res.status).toBe(200);
    expect(res.body.drivers).toEqual([]);
    expect(res.body.serialPorts).toEqual([]);
    expect(res.body.gates.map((g: { gateId: string }) => g.gateId)).toEqual([gateId]);
  });
});

describe('a site that cannot answer', () => {
  it('a site known offline is 504 site-offline at once, and nothing is sent', async () => {
    cloud.app.db.sqlite
      .prepare(
        "INSERT INTO site (id, name, mqtt_password_hash, created_at, link_state) VALUES (?, ?, 'x', 0, 'offline')",
      )
      .run(edge.siteId, 'North');
    const received = edge.handler.stats.received;
    const pulses = gates.pulses.length;
    try {
      const started = Date.now();
      const res = await cloud.admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({ code: 'site-offline' });
      expect(res.body.detail).toContain('site-north is offline');
      expect(Date.now() - started).toBeLessThan(COMMAND_TIMEOUT_MS);
    } finally {
      cloud.app.db.sqlite.prepare('DELETE FROM site WHERE id = ?').run(edge.siteId);
    }
    // Proof that nothing was sent: a later command is the next one the edge sees.
    expect((await cloud.admin.post(`/api/hardware/gate/${gateId}/actuate`, {})).status).toBe(200);
    expect(edge.handler.stats.received).toBe(received + 1);
    expect(gates.pulses.length).toBe(pulses + 1);
  });

  it('a cloud that is not connected to the broker answers 504 at once', async () => {
    await cloud.link.stop();
    try {
      const res = await cloud.admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
      expect(res.status).toBe(504);
      expect(res.body.code).toBe('site-offline');
      expect(res.body.detail).toContain('not connected to the message broker');
    } finally {
      await cloud.link.start();
    }
  });

  it('an edge away from the broker is 504 after the timeout, and does not run the command when it is back', async () => {
    const audit = actuationsAt(edge.app.db, gateId).length;
    const pulses = gates.pulses.length;
    const received = edge.handler.stats.received;
    await edge.link.stop();
    await waitFor(() => !brokerHasClient(broker, `edge-${edge.siteId}`), {
      what: 'the broker to drop the edge',
    });

    const res = await cloud.admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'while away' });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ code: 'site-offline' });
    expect(res.body.detail).toContain(`did not answer within ${COMMAND_TIMEOUT_MS / 1000} s`);
    expect(res.body.detail).toContain('will not run later');

    // The edge comes back with its persistent session. Had the broker kept the command, it would be
    // delivered before anything sent after the reconnect: the next command is the first it sees.
    await edge.link.start();
    const next = await cloud.admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'after return' });
    expect(next.status).toBe(200);
    expect(edge.handler.stats.received).toBe(received + 1);
    expect(gates.pulses.length).toBe(pulses + 1);
    const reasons = actuationsAt(edge.app.db, gateId)
      .slice(audit)
      .map((a) => a.reason);
    expect(reasons).toEqual(['after return']);
  });
});

describe('ONVIF snapshots from the cloud', () => {
  async function image(path: string) {
    const res = await fetch(`${cloud.app.url}${path}`, {
      headers: { authorization: `Bearer ${cloud.app.adminToken}` },
    });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  }

  it("answers the camera's exact bytes, taken by the edge", async () => {
    const served = camera.served.length;
    const res = await image(`/api/camera/${cameraId}/snapshot`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('x-camera-elapsed-ms')).toMatch(/^\d+$/);
    expect(res.headers.get('x-attachment-id')).toBeNull();
    expect(camera.served.length).toBe(served + 1);
    expect(res.body.equals(camera.lastJpeg!)).toBe(true);
  });

  it('store=true keeps the picture as an attachment at the edge, made by the cloud user', async () => {
    const res = await image(`/api/camera/${cameraId}/snapshot?store=true`);
    expect(res.status).toBe(200);
    const attachmentId = res.headers.get('x-attachment-id');
    expect(attachmentId).toBeTruthy();
    expect(res.headers.get('location')).toBe(`/api/attachment/${attachmentId}`);
    const cloudAdmin = rows(cloud.app.db, "SELECT id FROM app_user WHERE username = 'admin'")[0].id;
    expect(
      rows(
        edge.app.db,
        'SELECT ref_type, ref_id, size, created_by FROM attachment WHERE id = ?',
        attachmentId,
      ),
    ).toEqual([{ ref_type: 'camera', ref_id: cameraId, size: res.body.length, created_by: cloudAdmin }]);
    // The row reaches the cloud by sync; the cloud made none itself.
    expect(rows(cloud.app.db, 'SELECT id FROM attachment')).toEqual([]);
    const download = await fetch(`${edge.app.url}/api/attachment/${attachmentId}`, {
      headers: { authorization: `Bearer ${edge.admin.token}` },
    });
    expect(Buffer.from(await download.arrayBuffer()).equals(res.body)).toBe(true);
  });

  it('the edge decides: a camera disabled there is 409 camera-disabled at the cloud', async () => {
    expect((await edge.admin.patch(`/api/camera/${cameraId}`, { enabled: false })).status).toBe(200);
    try {
      const res = await cloud.admin.get(`/api/camera/${cameraId}/snapshot`);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('camera-disabled');
    } finally {
      expect((await edge.admin.patch(`/api/camera/${cameraId}`, { enabled: true })).status).toBe(200);
    }
  });
});

describe('several cloud nodes on one broker', () => {
  it("each node's command is answered on that node's own topic, and only that node resolves it", async () => {
    const site = edge.siteId;
    const log = cloud.app.core.log;
    const nodes = ['node-a', 'node-b'].map((id) => {
      const link = new TransportLink(
        mqttTransport(broker.url, `cloud-${id}`, cloudSubscriptions(id, false), log),
      );
      return { id, link, commands: new RemoteCommandsClient(cloud.app.core, link.transport, id) };
    });
    const answered: string[] = [];
    const spy = new TransportLink(
      mqttTransport(
        broker.url,
        'spy',
        [`${topicsFor(site).upCmdResult}/#`, topicsFor(site).upCmdResult],
        log,
      ),
    );
    spy.transport.onMessage((topic) => answered.push(topic));
    for (const c of [spy, ...nodes.map((n) => n.link)]) await c.start();
    for (const n of nodes) await n.commands.start();
    try {
      const actuate = (id: string) => ({
        gateId,
        reason: `from ${id}`,
        requestedBy: { id: 'u1', name: 'office', kind: 'user' },
      });
      // One after the other: one gate pulses once at a time (a second call meanwhile is gate-busy).
      const results: Array<{ reason: string }> = [];
      for (const n of nodes)
        results.push((await n.commands.send(site, 'actuate', actuate(n.id))) as { reason: string });
      expect(results.map((r) => r.reason)).toEqual(['from node-a', 'from node-b']);
      await waitFor(() => answered.length >= 2, { what: 'both answers on the wire' });
      expect(answered.sort()).toEqual([
        `${topicsFor(site).upCmdResult}/node-a`,
        `${topicsFor(site).upCmdResult}/node-b`,
      ]);
      expect(nodes.map((n) => n.commands.inFlight)).toEqual([0, 0]);
    } finally {
      for (const n of nodes) await n.commands.stop();
      for (const c of [spy, ...nodes.map((n) => n.link)]) await c.stop();
    }
  });
});
