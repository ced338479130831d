import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { cloudMasterData, type MasterData } from '../sync/link-fixture.js';

/**
 * Arrivals are made at the site's edge (docs/domain.md "At the gate"): a check-in at a linked edge
 * reaches the cloud by sync, and the cloud's outbox, told of the rows as the sync applier writes
 * them, sends their webhooks once. The linked edge keeps no outbox of its own. Real time, real MQTT,
 * started apps (the dispatcher wakes on the applied rows).
 */
describe.each(TEST_DIALECTS)('webhooks of rows synced up from a site (cloud on %s)', (dialect) => {
  let receiver: WebhookReceiver;
  let h: SyncHarness;
  let m: MasterData;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    h = await startSyncHarness({
      dialect,
      config: { 'webhooks.allowLocalEndpoints': true, 'webhooks.caFile': receiver.caFile },
    });
    m = await cloudMasterData(h.cloud.client, 'site-a');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
  });

  it('sends the arrival and the check-in made at the edge, once each', { timeout: 60_000 }, async () => {
    const cloud = h.cloud.client;
    const edge = h.edges[0]!;
    const endpoint = await cloud.post('/api/webhook', {
      url: receiver.url,
      events: ['appointment.created', 'appointment.arrived', 'movement.created'],
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const loadType = await cloud.post('/api/appointment/load-type', {
      yardId: m.yardId,
      name: 'Live unload',
      durationMinutes: 60,
    });
    expect(loadType.status, loadType.text).toBe(201);
    const config = await cloud.put(`/api/appointment/config/${m.yardId}`, { enabled: true, openHours: {} });
    expect(config.status, config.text).toBe(200);
    const booked = await cloud.post('/api/appointment', {
      yardId: m.yardId,
      loadTypeId: loadType.body.id,
      carrierId: m.carrierId,
      startAt: new Date(Math.ceil((Date.now() + 3 * 3_600_000) / 900_000) * 900_000).toISOString(),
      override: { reason: 'booked at any hour for the test' },
    });
    expect(booked.status, booked.text).toBe(201);

    await waitFor(async () => (await edge.client.get(`/api/appointment/${booked.body.id}`)).status === 200, {
      timeoutMs: 20_000,
      what: 'the appointment at the edge',
    });
    const movement = await edge.client.post('/api/movement', {
      yardId: m.yardId,
      direction: 'in',
      appointmentId: booked.body.id,
      trailer: { number: 'SYNC-1', carrierId: m.carrierId },
      locationId: m.spotId,
    });
    expect(movement.status, movement.text).toBe(201);

    await waitFor(() => receiver.delivered().length >= 3, {
      timeoutMs: 30_000,
      what: () => `3 webhooks, got ${JSON.stringify(receiver.delivered().map((e) => e.type))}`,
    });
    // A moment more: nothing else comes.
    await new Promise((r) => setTimeout(r, 500));
    const got = receiver.delivered();
    expect(got.map((e) => e.type).sort()).toEqual([
      'appointment.arrived',
      'appointment.created',
      'movement.created',
    ]);
    expect(new Set(got.map((e) => e.id)).size).toBe(3);
    const arrived = got.find((e) => e.type === 'appointment.arrived')!;
    expect(arrived.data.appointment).toMatchObject({ id: booked.body.id, status: 'arrived' });
    expect(arrived.data.change).toMatchObject({ kind: 'arrived', fromStatus: 'scheduled' });
    const checkIn = got.find((e) => e.type === 'movement.created')!;
    expect(checkIn.data.movement).toMatchObject({
      id: movement.body.id,
      kind: 'arrived',
      appointmentId: booked.body.id,
      trailerNumber: 'SYNC-1',
    });
    // The linked edge wrote no outbox: the cloud's is the only one.
    expect(await query(edge.app.db, 'SELECT count(*) AS n FROM webhook_event')).toEqual([{ n: 0 }]);
  });
});
