import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../../edge/demo-data.js';
import { LOCAL_SECRETS, SYNCED_ENTITIES, toSnake } from '../../../shared/sync/entities.js';
import { Client, rows } from '../../helpers/http.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Walks every synced entity after real API traffic (the demo data plus one of each remaining
 * record) and proves change capture is complete: every stored row has a change_log entry whose
 * latest data is exactly the row, and no entity is left without traffic.
 */
let t: TestApp;
let admin: Client;

beforeAll(async () => {
  t = await startTestApp();
  admin = new Client(t.url, t.adminToken);
  await seedDemoData(t.url, ADMIN.username, ADMIN.password, () => {});
  const yard = (await admin.get('/api/yard')).body.items[0];
  const gate = (await admin.get(`/api/yard/${yard.id}/gate`)).body.items[0];
  const truck = (await admin.get('/api/truck')).body.items[0];
  const form = new FormData();
  form.append(
    'file',
    new Blob([Buffer.from('%PDF-1.4\n%\xe2\xe3\n1 0 obj\n<<>>\nendobj\n')], { type: 'application/pdf' }),
    'cmr.pdf',
  );
  const attachment = await admin.post('/api/attachment', form);
  expect(attachment.status).toBe(201);
  const inspection = await admin.post(`/api/truck/${truck.id}/inspections`, {
    yardId: yard.id,
    result: 'pass',
    items: [{ code: 'brakes', ok: true }],
    attachmentIds: [attachment.body.id],
  });
  expect(inspection.status).toBe(201);
  expect((await admin.post(`/api/hardware/gate/${gate.id}/actuate`, { reason: 'coverage' })).status).toBe(
    200,
  );
  expect((await admin.put('/api/settings', { settings: { 'ui.siteName': 'Dallas' } })).status).toBe(200);
  // Cameras and integrations: a provider integration, one camera of each source, bound to the gate.
  const integration = await admin.post('/api/integration', {
    kind: 'http-snapshot',
    name: 'Dock cams',
    config: {
      auth: { type: 'basic', username: 'viewer', password: 'dock-secret' },
      cameras: [{ id: 'dock-1', name: 'Dock 1', snapshotUrl: 'http://192.0.2.20/snap.jpg' }],
    },
  });
  expect(integration.status).toBe(201);
  const onvifCamera = await admin.post('/api/camera', {
    yardId: yard.id,
    name: 'Gate cam',
    gateId: gate.id,
    onvif: { xaddr: 'http://192.0.2.10/onvif/device_service', username: 'u', password: 'p' },
    verify: false,
  });
  expect(onvifCamera.status).toBe(201);
  const providerCamera = await admin.post('/api/camera', {
    yardId: yard.id,
    name: 'Dock 1',
    provider: { integrationId: integration.body.id, providerCameraId: 'dock-1' },
    verify: false,
  });
  expect(providerCamera.status).toBe(201);
  expect((await admin.post('/api/auth/api-key', { name: 'coverage', role: 'viewer' })).status).toBe(201);
  // Yard tasking: a driver's session, pings, push token, and a task taken through its states.
  const driver = await admin
    .as(undefined)
    .post('/api/auth/driver-login', { driverCode: 'J101', pin: '1111' });
  expect(driver.status).toBe(200);
  const jockey = admin.as(driver.body.token);
  expect(
    (await jockey.post('/api/yard-task/driver/session/start', { yardId: yard.id, deviceId: 'phone-1' }))
      .status,
  ).toBe(201);
  const at = new Date().toISOString();
  expect(
    (
      await jockey.post('/api/yard-task/driver/session/locations', {
        points: [{ at, lat: 32.78, lon: -96.8 }],
      })
    ).status,
  ).toBe(200);
  const subscription = JSON.stringify({
    endpoint: 'https://push.example.invalid/abc',
    keys: {
      p256dh: Buffer.alloc(65, 4).toString('base64url'),
      auth: Buffer.alloc(16, 1).toString('base64url'),
    },
  });
  const token = await jockey.post('/api/yard-task/driver/notification-token', {
    deviceId: 'phone-1',
    platform: 'web',
    token: subscription,
  });
  expect(token.status).toBeLessThan(300);
  const trailer = (await admin.get(`/api/trailer?yardId=${yard.id}`)).body.items[0];
  const spot = (await admin.get(`/api/yard/${yard.id}/location`)).body.items.at(-1);
  const task = await admin.post('/api/yard-task', {
    yardId: yard.id,
    type: 'move',
    trailerId: trailer.id,
    toLocationId: spot.id,
  });
  expect(task.status).toBe(201);
  // Auto-dispatch gave the driver the most urgent queued task (the demo queues some).
  const mine = (await jockey.get('/api/yard-task/driver/tasks')).body.items;
  expect(mine).toHaveLength(1);
  const started = await jockey.post('/api/yard-task/driver/start', { taskIds: [mine[0].id] });
  expect(started.body.results[0].ok).toBe(true);
  const completed = await jockey.post('/api/yard-task/driver/complete', { taskIds: [mine[0].id] });
  expect(completed.body.results[0].ok).toBe(true);
  // Dock appointments: a scheduling config, a load type, a booking (with its history row), a cancellation.
  const allDay = [{ from: '00:00', to: '24:00' }];
  const openHours = Object.fromEntries(['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, allDay]));
  const config = await admin.put(
    `/api/appointment/config/${yard.id}`,
    { enabled: true, openHours, leadTimeMinMinutes: 0 },
    { 'if-match': '"v0"' },
  );
  expect(config.status, config.text).toBe(200);
  const loadType = await admin.post('/api/appointment/load-type', {
    yardId: yard.id,
    name: 'Coverage unload',
    durationMinutes: 30,
  });
  expect(loadType.status, loadType.text).toBe(201);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const free = await admin.get(
    `/api/appointment/availability?yardId=${yard.id}&loadTypeId=${loadType.body.id}&date=${tomorrow}`,
  );
  expect(free.body.slots.length, free.text).toBeGreaterThan(0);
  const someCarrier = (await admin.get('/api/carrier')).body.items[0];
  const booked = await admin.post('/api/appointment', {
    yardId: yard.id,
    loadTypeId: loadType.body.id,
    carrierId: someCarrier.id,
    startAt: free.body.slots[0].startAt,
  });
  expect(booked.status, booked.text).toBe(201);
  expect((await admin.post(`/api/appointment/${booked.body.id}/cancel`, { reason: 'coverage' })).status).toBe(
    200,
  );
  // Updates and deletes too, not only inserts.
  const carrier = (await admin.post('/api/carrier', { name: 'Short Lived' })).body;
  await admin.patch(`/api/carrier/${carrier.id}`, { name: 'Short Lived Inc' });
  expect((await admin.delete(`/api/carrier/${carrier.id}`)).status).toBe(204);
});
afterAll(() => t.close());

describe('change capture covers every synced entity', () => {
  for (const entity of SYNCED_ENTITIES) {
    it(`${entity.entity}: every row has its change_log entry, equal to the row`, () => {
      const table = toSnake(entity.table);
      const stored = rows(t.db, `SELECT * FROM ${table}`);
      expect(stored.length, `no ${entity.entity} was written by the traffic`).toBeGreaterThan(0);
      for (const row of stored) {
        const id = row[toSnake(entity.key)];
        const latest = rows(
          t.db,
          'SELECT op, data, hlc FROM change_log WHERE entity = ? AND entity_id = ? ORDER BY seq DESC LIMIT 1',
          entity.entity,
          id,
        )[0];
        expect(latest, `${entity.entity} ${id} has no change_log row`).toBeDefined();
        expect(latest.op).toBe('upsert');
        expect(latest.hlc).toBe(row.hlc);
        const data = JSON.parse(latest.data) as Record<string, unknown>;
        for (const [column, value] of Object.entries(row)) {
          if (column === 'api_json') continue; // derived by SQLite, never synced
          const key = column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
          // Secrets that stay on their side travel as null (an ONVIF password never leaves the edge).
          const travels = !(LOCAL_SECRETS[entity.entity] ?? []).includes(key);
          expect(data[key], `${entity.entity}.${key}`).toEqual(travels ? value : null);
        }
      }
    });
  }

  it('a deleted record leaves a delete tombstone as its latest change', () => {
    const deleted = rows(t.db, "SELECT entity_id FROM change_log WHERE entity = 'carrier' AND op = 'delete'");
    expect(deleted).toHaveLength(1);
    expect(rows(t.db, 'SELECT id FROM carrier WHERE id = ?', deleted[0].entity_id)).toHaveLength(0);
  });
});
