import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoRelays } from '../../../cloud/no-relays.js';
import { SimulatedGates } from '../../../edge/hardware/simulated-gates.js';
import { createApp } from '../../../shared/app.js';
import { CAMERA_PROVIDER_KINDS } from '../../../shared/cameras/providers/index.js';
import { loadConfig } from '../../../shared/config.js';
import { SYNCED_ENTITIES, toSnake } from '../../../shared/sync/entities.js';
import { seed as seedApi } from '../../helpers/builders.js';
import { Client, rows } from '../../helpers/http.js';
import { ADMIN, loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The order of answers for writes to records with a fixed owner (docs/domain.md "Records and who owns them"): the
 * side that does not own the record answers 409 cloud-owned / edge-owned before any existence,
 * duplicate, in-use or self check, so a client learns first that the write belongs elsewhere. Each
 * case below would answer something else (404, duplicate, in-use, cannot-disable-self, 204) on the
 * owning side. As in ownership.test.ts, a standalone edge makes the records first; the linked edge
 * or the cloud is then served on that database.
 */

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
type Call = [method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown];

interface Served {
  admin: Client;
  close(): Promise<void>;
}

async function serveAs(seed: TestApp, env: Record<string, string>): Promise<Served> {
  const config = loadConfig(
    { YARD_DATA_DIR: seed.dir, YARD_ADMIN_USER: ADMIN.username, YARD_ADMIN_PASSWORD: ADMIN.password, ...env },
    { validateResponses: true },
  );
  const yard = createApp({
    db: seed.db,
    config,
    gates: config.role === 'cloud' ? new NoRelays() : new SimulatedGates(undefined, 0),
    cameras: {
      onvif: {
        describe: () => Promise.reject(new Error('no camera here')),
        snapshot: () => Promise.reject(new Error('no camera here')),
        discover: async () => [],
      },
      providers: CAMERA_PROVIDER_KINDS,
    },
  });
  const server = await new Promise<Server>((ok) => {
    const s = yard.app.listen(0, '127.0.0.1', () => ok(s));
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    admin: new Client(url, await loginAdmin(url)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await yard.stop();
    },
  };
}

async function created(res: Promise<{ status: number; text: string; body: any }>): Promise<any> {
  const r = await res;
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
}

/** Records whose other checks would fire first: used, duplicated, revoked, the admin itself. */
async function seedRecords(seed: TestApp) {
  const a = new Client(seed.url, seed.adminToken);
  const api = seedApi(a);
  const yard = await api.yard({ code: 'NTH', name: 'North', timeZone: 'UTC' });
  const location = await api.location(yard.id, { kind: 'spot', name: 'S1' });
  const gate = await api.gate(yard.id, { name: 'In', direction: 'both' });
  const carrier = await api.carrier({ name: 'Acme', scac: 'ACME' });
  const other = await api.carrier({ name: 'Other' });
  await created(
    a.post('/api/movement', {
      yardId: yard.id,
      gateId: gate.id,
      locationId: location.id,
      direction: 'in',
      trailer: { number: 'TR-1' },
      carrierId: carrier.id,
    }),
  );
  const user = await created(
    a.post('/api/user', { username: 'vic', role: 'viewer', password: 'long-enough-pw' }),
  );
  const revokedKey = await created(a.post('/api/auth/api-key', { name: 'old', role: 'viewer' }));
  expect((await a.delete(`/api/auth/api-key/${revokedKey.id}`)).status).toBe(204);
  const integration = await created(
    a.post('/api/integration', {
      kind: 'api-key-token',
      name: 'Dock cams',
      config: { baseUrl: 'http://192.0.2.1:9', apiKey: 'k'.repeat(24) },
    }),
  );
  await created(
    a.post('/api/camera', {
      yardId: yard.id,
      name: 'Dock 1',
      provider: { integrationId: integration.id, providerCameraId: 'cam-1' },
      verify: false,
    }),
  );
  const adminId = rows(seed.db, 'SELECT id FROM app_user WHERE username = ?', ADMIN.username)[0].id;
  return { yard, location, gate, carrier, other, user, revokedKey, integration, adminId };
}

/** Rows per synced table, the change log and tombstones: what "nothing changed" compares. */
function counts(t: TestApp): Record<string, number> {
  const tables = [...SYNCED_ENTITIES.map((e) => toSnake(e.table)), 'change_log', 'sync_tombstone'];
  return Object.fromEntries(
    tables.map((name) => [name, rows(t.db, `SELECT count(*) AS n FROM ${name}`)[0].n]),
  );
}

/** Each call answered by the owning side, then by the other side: the first answer, then the 409. */
async function expectOrder(
  seed: TestApp,
  served: Served,
  calls: Array<[Call, owner: { status: number; code?: string }]>,
  refusal: 'cloud-owned' | 'edge-owned',
): Promise<void> {
  const owner = new Client(seed.url, seed.adminToken);
  for (const [[method, path, body], first] of calls) {
    const label = `${method} ${path}`;
    // The owning side's answer to the very same call: what the other side must not answer.
    const before = counts(seed);
    const atOwner = await owner.request(method, path, body);
    expect(atOwner.status, `${label} at the owner: ${atOwner.text}`).toBe(first.status);
    if (first.code) expect(atOwner.body.code, `${label} at the owner`).toBe(first.code);
    expect(counts(seed), `${label} at the owner`).toEqual(before);

    const res = await served.admin.request(method, path, body);
    expect(res.status, `${label}: ${res.text}`).toBe(409);
    expect(res.body.code, label).toBe(refusal);
    expect(counts(seed), label).toEqual(before);
  }
}

describe('a linked edge answers cloud-owned first', () => {
  let seed: TestApp;
  let edge: Served;
  let s: Awaited<ReturnType<typeof seedRecords>>;

  beforeAll(async () => {
    seed = await startTestApp();
    s = await seedRecords(seed);
    edge = await serveAs(seed, { YARD_MQTT_URL: 'mqtt://127.0.0.1:9' });
  });
  afterAll(async () => {
    await edge?.close();
    await seed?.close();
  });

  it('before in-use, duplicate, not-found, self and already-revoked answers', async () => {
    const integrationBody = {
      kind: 'api-key-token',
      name: 'Dock cams',
      config: { baseUrl: 'http://192.0.2.1:9', apiKey: 'k'.repeat(24) },
    };
    await expectOrder(
      seed,
      edge,
      [
        [['DELETE', `/api/yard/${s.yard.id}`], { status: 409, code: 'in-use' }],
        [
          ['POST', '/api/yard', { code: 'NTH', name: 'Again', timeZone: 'UTC' }],
          { status: 409, code: 'duplicate' },
        ],
        [['PATCH', `/api/yard/${UNKNOWN}`, { name: 'Ghost' }], { status: 404 }],
        [['DELETE', `/api/yard/${UNKNOWN}`], { status: 404 }],
        [['DELETE', `/api/yard/${s.yard.id}/location/${s.location.id}`], { status: 409, code: 'in-use' }],
        [
          ['POST', `/api/yard/${s.yard.id}/location`, { kind: 'spot', name: 'S1' }],
          { status: 409, code: 'duplicate' },
        ],
        [['POST', `/api/yard/${UNKNOWN}/location`, { kind: 'spot', name: 'S9' }], { status: 404 }],
        [['PATCH', `/api/yard/${s.yard.id}/location/${UNKNOWN}`, { name: 'S9' }], { status: 404 }],
        [['DELETE', `/api/carrier/${s.carrier.id}`], { status: 409, code: 'in-use' }],
        [['POST', '/api/carrier', { name: 'Copy', scac: 'ACME' }], { status: 409, code: 'duplicate' }],
        [['PATCH', `/api/carrier/${s.other.id}`, { scac: 'ACME' }], { status: 409, code: 'duplicate' }],
        [['PATCH', `/api/carrier/${UNKNOWN}`, { name: 'Ghost' }], { status: 404 }],
        [
          ['POST', '/api/user', { username: 'vic', role: 'viewer', password: 'long-enough-pw' }],
          { status: 409, code: 'duplicate' },
        ],
        [['DELETE', `/api/user/${s.adminId}`], { status: 409, code: 'cannot-disable-self' }],
        [['PATCH', `/api/user/${UNKNOWN}`, { displayName: 'Ghost' }], { status: 404 }],
        [['DELETE', `/api/auth/api-key/${UNKNOWN}`], { status: 404 }],
        [['POST', '/api/integration', integrationBody], { status: 409, code: 'duplicate' }],
        [['DELETE', `/api/integration/${s.integration.id}`], { status: 409, code: 'in-use' }],
        [['PATCH', `/api/integration/${UNKNOWN}`, { enabled: false }], { status: 404 }],
      ],
      'cloud-owned',
    );
  });

  it('an already revoked API key: 204 and nothing written at the owner, 409 at the linked edge', async () => {
    const path = `/api/auth/api-key/${s.revokedKey.id}`;
    const before = counts(seed);
    expect((await new Client(seed.url, seed.adminToken).delete(path)).status).toBe(204);
    expect(counts(seed)).toEqual(before);
    const res = await edge.admin.delete(path);
    expect(res.status, res.text).toBe(409);
    expect(res.body).toMatchObject({ code: 'cloud-owned', owner: 'cloud', entity: 'api_key' });
  });
});

describe('the cloud answers edge-owned first', () => {
  let seed: TestApp;
  let cloud: Served;
  let s: Awaited<ReturnType<typeof seedRecords>>;

  beforeAll(async () => {
    seed = await startTestApp();
    s = await seedRecords(seed);
    cloud = await serveAs(seed, { YARD_ROLE: 'cloud' });
  });
  afterAll(async () => {
    await cloud?.close();
    await seed?.close();
  });

  it('before in-use, duplicate and not-found answers, naming the site of a known yard', async () => {
    const gates = `/api/yard/${s.yard.id}/gate`;
    await expectOrder(
      seed,
      cloud,
      [
        [['DELETE', `${gates}/${s.gate.id}`], { status: 409, code: 'in-use' }],
        [['POST', gates, { name: 'In', direction: 'in' }], { status: 409, code: 'duplicate' }],
        [['PATCH', `${gates}/${UNKNOWN}`, { name: 'Ghost' }], { status: 404 }],
        [['DELETE', `${gates}/${UNKNOWN}`], { status: 404 }],
        [['POST', `/api/yard/${UNKNOWN}/gate`, { name: 'Out', direction: 'out' }], { status: 404 }],
      ],
      'edge-owned',
    );
    const known = await cloud.admin.patch(`${gates}/${UNKNOWN}`, { name: 'Ghost' });
    expect(known.body).toMatchObject({ owner: 'edge', entity: 'gate', siteId: 'site-1' });
    expect(known.body.detail).toContain("site site-1's edge");
    // An unknown yard names no site; the answer is still the owner's.
    const unknown = await cloud.admin.post(`/api/yard/${UNKNOWN}/gate`, { name: 'Out', direction: 'out' });
    expect(unknown.body).toMatchObject({ code: 'edge-owned', owner: 'edge', entity: 'gate' });
    expect(unknown.body.siteId).toBeUndefined();
    expect(unknown.body.detail).toContain("the site's edge");
  });
});
