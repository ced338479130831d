import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedGates } from '../../../edge/hardware/simulated-gates.js';
import { createApp, type YardApp } from '../../../shared/app.js';
import { CAMERA_PROVIDER_KINDS } from '../../../shared/cameras/providers/index.js';
import type { OnvifClient } from '../../../shared/cameras/types.js';
import { loadConfig } from '../../../shared/config.js';
import { SYNCED_ENTITIES, toSnake } from '../../../shared/sync/entities.js';
import { seed as seedApi } from '../../helpers/builders.js';
import { Client, rows } from '../../helpers/http.js';
import { ADMIN, loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Who may write what once an edge is linked (docs/domain.md "Records and who owns them", docs/architecture.md "One codebase, two roles"). Each
 * side's records are made by a standalone edge on the database first (it owns everything: the
 * state a sync would have brought), then a linked edge or a cloud app is served on that database.
 */

/** A camera client that records every call and reaches nothing: a refused write must call no camera. */
function recordingOnvif(calls: string[]): OnvifClient {
  return {
    describe: async (target) => {
      calls.push(`describe ${target.xaddr}`);
      throw new Error('no camera here');
    },
    snapshot: async (target) => {
      calls.push(`snapshot ${target.xaddr}`);
      throw new Error('no camera here');
    },
    discover: async () => [],
  };
}

interface Served {
  yard: YardApp;
  gates: SimulatedGates;
  admin: Client;
  close(): Promise<void>;
}

/** The app in another sync mode on the seed's database, over real HTTP, the seed's admin logged in. */
async function serveAs(seed: TestApp, env: Record<string, string>, onvif: OnvifClient): Promise<Served> {
  const config = loadConfig(
    { YARD_DATA_DIR: seed.dir, YARD_ADMIN_USER: ADMIN.username, YARD_ADMIN_PASSWORD: ADMIN.password, ...env },
    { validateResponses: true },
  );
  // At the cloud, recording gates that, like NoRelays, say the relays are at the sites.
  const gates = Object.assign(new SimulatedGates(undefined, 0), { relaysAtSites: config.role === 'cloud' });
  const yard = createApp({
    db: seed.db,
    config,
    gates,
    cameras: { onvif, providers: CAMERA_PROVIDER_KINDS },
  });
  const server = await new Promise<Server>((ok) => {
    const s = yard.app.listen(0, '127.0.0.1', () => ok(s));
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    yard,
    gates,
    admin: new Client(url, await loginAdmin(url)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await yard.stop();
    },
  };
}

/** Rows per synced table, plus the change log and tombstones: what "nothing changed" compares. */
function counts(t: TestApp): Record<string, number> {
  const tables = [
    ...SYNCED_ENTITIES.map((e) => toSnake(e.table)),
    'change_log',
    'sync_tombstone',
    'auth_token',
  ];
  return Object.fromEntries(
    tables.map((name) => [name, rows(t.db, `SELECT count(*) AS n FROM ${name}`)[0].n]),
  );
}

async function created(res: Promise<{ status: number; text: string; body: any }>): Promise<any> {
  const r = await res;
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
}

/** The seed's records: master data and the yard's own, as both sides would hold them after a sync. */
async function seedRecords(seed: TestApp) {
  const a = new Client(seed.url, seed.adminToken);
  const api = seedApi(a);
  const yard = await api.yard({ code: 'NTH', name: 'North', timeZone: 'UTC' });
  const emptyYard = await api.yard({ code: 'EMP', name: 'Empty', timeZone: 'UTC' });
  const location = await api.location(yard.id, { kind: 'spot', name: 'S1' });
  const carrier = await api.carrier({ name: 'Acme', scac: 'ACME' });
  const user = await created(
    a.post('/api/user', { username: 'vic', role: 'viewer', password: 'long-enough-pw' }),
  );
  const apiKey = await created(a.post('/api/auth/api-key', { name: 'dock', role: 'viewer' }));
  const integration = await created(
    a.post('/api/integration', {
      kind: 'api-key-token',
      name: 'Dock cams',
      config: { baseUrl: 'http://192.0.2.1:9', apiKey: 'k'.repeat(24) },
    }),
  );
  const spareIntegration = await created(
    a.post('/api/integration', {
      kind: 'api-key-token',
      name: 'Spare',
      config: { baseUrl: 'http://192.0.2.1:9', apiKey: 'k'.repeat(24) },
    }),
  );
  const providerCamera = await created(
    a.post('/api/camera', {
      yardId: yard.id,
      name: 'Dock 1',
      provider: { integrationId: integration.id, providerCameraId: 'cam-1' },
      verify: false,
    }),
  );
  const onvif = { xaddr: 'http://192.0.2.1:9/onvif/device_service', username: 'yard', password: 'secret-pw' };
  const onvifCamera = await created(
    a.post('/api/camera', { yardId: yard.id, name: 'Lane', onvif, verify: false }),
  );
  const gate = await created(
    a.post(`/api/yard/${yard.id}/gate`, {
      name: 'In',
      direction: 'both',
      relay: { driver: 'simulated', channel: 1 },
      cameraIds: [onvifCamera.id],
    }),
  );
  const truck = await created(a.post('/api/truck', { plate: 'TX1', plateRegion: 'TX' }));
  await created(a.post('/api/movement', { yardId: yard.id, direction: 'in', trailer: { number: 'TR-1' } }));
  const driver = await created(
    a.post('/api/driver', {
      kind: 'yard',
      firstName: 'Jo',
      lastName: 'Jockey',
      driverCode: 'DRV1',
      pin: '2468',
    }),
  );
  await created(
    a.put('/api/settings', { settings: { 'ui.siteName': 'North', 'attachments.maxBytes': 5_000_000 } }),
  );
  return {
    yard,
    emptyYard,
    location,
    carrier,
    user,
    apiKey,
    integration,
    spareIntegration,
    providerCamera,
    onvifCamera,
    onvif,
    gate,
    truck,
    driver,
  };
}

async function driverClient(admin: Client, driverCode: string): Promise<Client> {
  const login = await admin.as(undefined).post('/api/auth/driver-login', { driverCode, pin: '2468' });
  expect(login.status, login.text).toBe(200);
  return admin.as(login.body.token);
}

type Seeded = Awaited<ReturnType<typeof seedRecords>>;
type Call = [method: 'post' | 'patch' | 'put' | 'delete', path: string, body?: unknown];

describe('a linked edge', () => {
  let seed: TestApp;
  let edge: Served;
  let s: Seeded;
  const cameraCalls: string[] = [];

  beforeAll(async () => {
    seed = await startTestApp();
    s = await seedRecords(seed);
    edge = await serveAs(seed, { YARD_MQTT_URL: 'mqtt://127.0.0.1:9' }, recordingOnvif(cameraCalls));
  });
  afterAll(async () => {
    await edge?.close();
    await seed?.close();
  });

  it('creates no admin of its own: users come from the cloud', async () => {
    const fresh = await startTestApp({ env: { YARD_MQTT_URL: 'mqtt://127.0.0.1:9' }, login: false });
    try {
      expect(await fresh.services.auth.ensureAdmin()).toEqual({ created: false, awaitingSync: true });
      expect(rows(fresh.db, 'SELECT count(*) AS n FROM app_user')[0].n).toBe(0);
      expect(rows(fresh.db, 'SELECT count(*) AS n FROM change_log')[0].n).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('answers 409 cloud-owned for every cloud-owned write and changes nothing', async () => {
    const calls: Call[] = [
      ['post', '/api/yard', { code: 'NEW', name: 'New', timeZone: 'UTC' }],
      ['patch', `/api/yard/${s.yard.id}`, { name: 'Renamed' }],
      ['delete', `/api/yard/${s.emptyYard.id}`],
      ['post', `/api/yard/${s.yard.id}/location`, { kind: 'door', name: 'D1' }],
      ['patch', `/api/yard/${s.yard.id}/location/${s.location.id}`, { name: 'S1b' }],
      ['delete', `/api/yard/${s.yard.id}/location/${s.location.id}`],
      ['post', '/api/carrier', { name: 'Other' }],
      ['patch', `/api/carrier/${s.carrier.id}`, { name: 'Acme 2' }],
      ['delete', `/api/carrier/${s.carrier.id}`],
      ['post', '/api/user', { username: 'new', role: 'viewer', password: 'long-enough-pw' }],
      ['patch', `/api/user/${s.user.id}`, { displayName: 'Vic' }],
      ['delete', `/api/user/${s.user.id}`],
      ['post', '/api/auth/api-key', { name: 'other', role: 'viewer' }],
      ['delete', `/api/auth/api-key/${s.apiKey.id}`],
      [
        'post',
        '/api/integration',
        {
          kind: 'api-key-token',
          name: 'New',
          config: { baseUrl: 'http://192.0.2.1:9', apiKey: 'k'.repeat(24) },
        },
      ],
      ['patch', `/api/integration/${s.integration.id}`, { enabled: false }],
      ['delete', `/api/integration/${s.spareIntegration.id}`],
      ['put', '/api/settings', { settings: { 'attachments.maxBytes': 1_000_000 } }],
      ['put', '/api/settings', { settings: { 'ui.siteName': 'Mixed', 'attachments.maxBytes': null } }],
      // verify: true would call the provider first: the 409 must come before that.
      [
        'post',
        '/api/camera',
        {
          yardId: s.yard.id,
          name: 'Dock 2',
          provider: { integrationId: s.integration.id, providerCameraId: 'c2' },
        },
      ],
      ['patch', `/api/camera/${s.providerCamera.id}`, { name: 'Dock 1b' }],
      ['delete', `/api/camera/${s.providerCamera.id}`],
      // Binding a provider camera to a gate changes the (cloud-owned) camera row.
      [
        'patch',
        `/api/yard/${s.yard.id}/gate/${s.gate.id}`,
        { cameraIds: [s.onvifCamera.id, s.providerCamera.id] },
      ],
    ];
    for (const [method, path, body] of calls) {
      const before = counts(seed);
      const versions = rows(seed.db, 'SELECT hlc FROM change_log ORDER BY seq DESC LIMIT 1');
      const res = await edge.admin.request(method.toUpperCase(), path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(409);
      expect(res.body.code, `${method} ${path}`).toBe('cloud-owned');
      expect(res.body.detail, `${method} ${path}`).toContain('cloud dashboard');
      expect(counts(seed), `${method} ${path}`).toEqual(before);
      expect(rows(seed.db, 'SELECT hlc FROM change_log ORDER BY seq DESC LIMIT 1')).toEqual(versions);
    }
    const settings = await edge.admin.put('/api/settings', {
      settings: { 'ui.siteName': 'X', 'attachments.maxBytes': 1_000_000 },
    });
    expect(settings.body).toMatchObject({ code: 'cloud-owned', settings: ['attachments.maxBytes'] });
    expect((await edge.admin.get(`/api/yard/${s.yard.id}`)).body.name).toBe('North');
    expect((await edge.admin.get('/api/settings/ui.siteName')).body.value).toBe('North');
  });

  it('writes edge-owned and shared records, and a shared delete leaves a tombstone', async () => {
    const a = edge.admin;
    const logBefore = counts(seed).change_log!;
    await created(a.patch(`/api/yard/${s.yard.id}/gate/${s.gate.id}`, { name: 'In 1' }));
    const gate = await created(a.post(`/api/yard/${s.yard.id}/gate`, { name: 'Out', direction: 'out' }));
    await created(
      a.post('/api/camera', { yardId: s.yard.id, name: 'Lane 2', onvif: s.onvif, verify: false }),
    );
    await created(a.patch(`/api/camera/${s.onvifCamera.id}`, { gateId: gate.id }));
    await created(
      a.put('/api/settings', { settings: { 'ui.siteName': 'North Yard', 'tasks.autoAssign': false } }),
    );
    await created(
      a.post('/api/movement', {
        yardId: s.yard.id,
        gateId: gate.id,
        direction: 'out',
        trailer: { number: 'TR-1' },
        actuate: true,
      }),
    );
    await created(
      a.post(`/api/truck/${s.truck.id}/inspections`, {
        yardId: s.yard.id,
        result: 'pass',
        items: [{ code: 'brakes', ok: true }],
      }),
    );
    await created(a.post('/api/trailer', { number: 'TR-2' }));
    await created(a.patch(`/api/truck/${s.truck.id}`, { unitNumber: '12' }));
    await created(
      a.post('/api/driver', { kind: 'carrier', firstName: 'Walk', lastName: 'In', carrierId: s.carrier.id }),
    );
    const drv = await driverClient(a, 'DRV1');
    await created(drv.post('/api/yard-task/driver/session/start', { yardId: s.yard.id }));
    await created(drv.post('/api/yard-task/driver/last-check', {}));
    await created(
      drv.post('/api/yard-task/driver/notification-token', {
        deviceId: 'p1',
        platform: 'android',
        token: 'tok',
      }),
    );
    const task = await created(a.post('/api/yard-task', { yardId: s.yard.id, type: 'other' }));
    expect(counts(seed).change_log).toBeGreaterThan(logBefore);

    expect(rows(seed.db, 'SELECT count(*) AS n FROM sync_tombstone')[0].n).toBe(0);
    expect((await a.delete(`/api/yard-task/${task.id}`)).status).toBe(204);
    const [deleteLog] = rows(
      seed.db,
      "SELECT hlc FROM change_log WHERE entity = 'yard_task' AND entity_id = ? AND op = 'delete'",
      task.id,
    );
    expect(rows(seed.db, 'SELECT entity, entity_id, hlc FROM sync_tombstone')).toEqual([
      { entity: 'yard_task', entity_id: task.id, hlc: deleteLog.hlc },
    ]);
    expect(cameraCalls).toEqual([]);
  });
});

describe('the cloud', () => {
  let seed: TestApp;
  let cloud: Served;
  let s: Seeded;
  let driver: Client;
  const cameraCalls: string[] = [];

  beforeAll(async () => {
    seed = await startTestApp();
    s = await seedRecords(seed);
    // A session started at the edge (synced up): the driver is available there.
    driver = await driverClient(new Client(seed.url, seed.adminToken), 'DRV1');
    await created(driver.post('/api/yard-task/driver/session/start', { yardId: s.yard.id }));
    cloud = await serveAs(seed, { YARD_ROLE: 'cloud' }, recordingOnvif(cameraCalls));
    driver = await driverClient(cloud.admin, 'DRV1');
  });
  afterAll(async () => {
    await cloud?.close();
    await seed?.close();
  });

  it('answers 409 edge-owned for every edge-owned write and changes nothing (no camera called, no relay pulsed)', async () => {
    const staff: Call[] = [
      ['post', `/api/yard/${s.yard.id}/gate`, { name: 'Out', direction: 'out' }],
      ['patch', `/api/yard/${s.yard.id}/gate/${s.gate.id}`, { name: 'In 2' }],
      ['delete', `/api/yard/${s.yard.id}/gate/${s.gate.id}`],
      [
        'post',
        '/api/movement',
        {
          yardId: s.yard.id,
          gateId: s.gate.id,
          direction: 'in',
          trailer: { number: 'TR-9' },
          actuate: true,
          snapshot: true,
        },
      ],
      [
        'post',
        `/api/truck/${s.truck.id}/inspections`,
        { yardId: s.yard.id, result: 'pass', items: [{ code: 'b', ok: true }] },
      ],
      ['put', '/api/settings', { settings: { 'tasks.autoAssign': false } }],
      ['put', '/api/settings', { settings: { 'attachments.maxBytes': 2_000_000, 'ui.siteName': null } }],
      // verify: true would call the camera first: the 409 must come before that.
      ['post', '/api/camera', { yardId: s.yard.id, name: 'Lane 2', onvif: s.onvif }],
      ['patch', `/api/camera/${s.onvifCamera.id}`, { onvif: { username: 'other' } }],
      ['delete', `/api/camera/${s.onvifCamera.id}`],
      // Binding a provider camera to a gate edits the gate's camera list, which is the edge's.
      ['patch', `/api/camera/${s.providerCamera.id}`, { gateId: s.gate.id }],
    ];
    const drivers: Call[] = [
      ['post', '/api/yard-task/driver/session/start', { yardId: s.yard.id }],
      ['post', '/api/yard-task/driver/session/end', {}],
      [
        'post',
        '/api/yard-task/driver/session/locations',
        { points: [{ at: new Date().toISOString(), lat: 1, lon: 1 }] },
      ],
      ['post', '/api/yard-task/driver/last-check', {}],
      [
        'post',
        '/api/yard-task/driver/notification-token',
        { deviceId: 'p1', platform: 'android', token: 'tok' },
      ],
    ];
    for (const [client, list] of [
      [cloud.admin, staff],
      [driver, drivers],
    ] as const) {
      for (const [method, path, body] of list) {
        const before = counts(seed);
        const res = await client.request(method.toUpperCase(), path, body);
        expect(res.status, `${method} ${path}: ${res.text}`).toBe(409);
        expect(res.body.code, `${method} ${path}`).toBe('edge-owned');
        expect(res.body.detail, `${method} ${path}`).toMatch(/edge/);
        expect(counts(seed), `${method} ${path}`).toEqual(before);
      }
    }
    const gate = await cloud.admin.patch(`/api/yard/${s.yard.id}/gate/${s.gate.id}`, { name: 'X' });
    expect(gate.body.detail).toContain(`site site-1's edge; change it there`);
    expect(gate.body).toMatchObject({ owner: 'edge', entity: 'gate', siteId: 'site-1' });
    expect(cameraCalls).toEqual([]);
    expect(cloud.gates.history).toEqual([]);
  });

  it('writes cloud-owned and shared records; a task queued at the cloud is left for the edge to assign', async () => {
    const a = cloud.admin;
    const yard = await created(
      a.post('/api/yard', { code: 'STH', name: 'South', timeZone: 'UTC', siteId: 'site-2' }),
    );
    await created(a.patch(`/api/yard/${s.yard.id}`, { name: 'North 2' }));
    await created(a.post(`/api/yard/${yard.id}/location`, { kind: 'door', name: 'D1' }));
    await created(a.patch(`/api/yard/${s.yard.id}/location/${s.location.id}`, { name: 'S1b' }));
    await created(a.post('/api/carrier', { name: 'Other' }));
    await created(a.post('/api/user', { username: 'new', role: 'viewer', password: 'long-enough-pw' }));
    await created(a.post('/api/auth/api-key', { name: 'other', role: 'viewer' }));
    await created(a.patch(`/api/integration/${s.integration.id}`, { enabled: true }));
    await created(a.put('/api/settings', { settings: { 'attachments.maxBytes': 3_000_000 } }));
    await created(a.patch(`/api/camera/${s.providerCamera.id}`, { name: 'Dock 1b' }));
    await created(a.post('/api/trailer', { number: 'TR-3' }));
    await created(
      a.post('/api/driver', { kind: 'carrier', firstName: 'Walk', lastName: 'In', carrierId: s.carrier.id }),
    );

    const task = await created(a.post('/api/yard-task', { yardId: s.yard.id, type: 'other' }));
    expect(task.status).toBe('QUEUED');
    expect((await a.get(`/api/yard-task/${task.id}`)).body.status).toBe('QUEUED');
    // The driver is available at the edge: the edge's dispatch assigns the task the cloud queued.
    await seed.services.tasks.dispatch(s.yard.id);
    expect((await a.get(`/api/yard-task/${task.id}`)).body).toMatchObject({
      status: 'ASSIGNED',
      driverId: s.driver.id,
    });
    // Shared records may be deleted at the cloud too; the tombstone carries the delete.
    const other = await created(a.post('/api/yard-task', { yardId: s.yard.id, type: 'other' }));
    expect((await a.delete(`/api/yard-task/${other.id}`)).status).toBe(204);
    expect(rows(seed.db, 'SELECT entity_id FROM sync_tombstone')).toEqual([{ entity_id: other.id }]);
  });
});
