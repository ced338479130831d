import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.js';
import { seed } from '../../helpers/builders.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp } from '../../helpers/test-app.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { attemptsOf, book, deliveriesOf, NOW, type WebhookWorld, webhookWorld } from './fixture.js';

const MIN = 60_000;

/** Order per resource, endpoint filters and gate movements (docs/webhooks.md "Delivery", "Events"). */
describe.each(TEST_DIALECTS)('webhook events and their order on %s', (dialect) => {
  let w: WebhookWorld;
  let y: Awaited<ReturnType<WebhookWorld['yard']>>;

  beforeAll(async () => {
    w = await webhookWorld(dialect);
  });
  beforeEach(async () => {
    w.clock.set(NOW);
    w.receiver.reset();
    for (const e of (await w.admin.get('/api/webhook?limit=500')).body.items)
      await w.admin.delete(`/api/webhook/${e.id}`);
    y = await w.yard();
  });
  afterAll(() => w?.close());

  it('keeps each appointment’s events in order while a flaky receiver fails every third request', async () => {
    const { id: endpointId } = await w.endpoint();
    w.receiver.answer = (n) => (n % 3 === 0 ? { status: 500 } : { status: 204 });
    const slot = (i: number) => ({ day: 3 + (i % 4), hour: 6 + 2 * Math.floor(i / 4) });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await book(w, y, slot(i).day, slot(i).hour)).id);
    await w.runDue();
    for (const [i, id] of ids.entries()) {
      const { day, hour } = slot(i);
      const startAt = `2026-03-0${day}T${String(hour + 1).padStart(2, '0')}:00:00-06:00`;
      const moved = await w.admin.patch(`/api/appointment/${id}`, { startAt });
      expect(moved.status, moved.text).toBe(200);
    }
    await w.runDue();
    for (const id of ids)
      expect((await w.admin.post(`/api/appointment/${id}/cancel`, { reason: 'closed' })).status).toBe(200);
    await w.drain(MIN, 120);

    const deliveries = await deliveriesOf(w.t.db, endpointId);
    expect(deliveries).toHaveLength(60);
    expect(deliveries.every((d: any) => d.status === 'delivered')).toBe(true);
    const got = w.receiver.delivered();
    for (const id of ids) {
      const mine = got.filter((e) => e.data.appointment.id === id);
      expect(
        mine.map((e) => e.type),
        id,
      ).toEqual(['appointment.created', 'appointment.changed', 'appointment.cancelled']);
      expect(mine.map((e) => e.data.appointment.version)).toEqual([1, 2, 3]);
      expect(mine[1]!.data.change).toMatchObject({
        kind: 'rescheduled',
        to: { startAt: expect.stringMatching(/-06:00$/) },
      });
    }
    // Each event was delivered once (2xx); the failures were retried with the same webhook-id.
    expect(new Set(got.map((e) => e.id)).size).toBe(60);
    expect(w.receiver.received.filter((r) => r.status === 500).length).toBeGreaterThan(10);
  });

  it('writes no event that no endpoint wants', async () => {
    const events = async () => Number((await query(w.t.db, 'SELECT count(*) AS n FROM webhook_event'))[0].n);
    const before = await events();
    await w.endpoint({ events: ['appointment.no_show'] });
    const a = await book(w, y, 5, 8);
    expect((await w.admin.post(`/api/appointment/${a.id}/cancel`, { reason: 'no load' })).status).toBe(200);
    expect(await events()).toBe(before);
  });

  it('sends each endpoint only the event types, yards and carriers it asked for', async () => {
    const otherCarrier = await seed(w.admin).carrier();
    const otherYard = await seed(w.admin).yard();
    const theirCarrier = await w.endpoint({ carrierIds: [otherCarrier.id] });
    const cancellations = await w.endpoint({ events: ['appointment.cancelled'] });
    const theirYard = await w.endpoint({ yardIds: [otherYard.id] });
    const ours = await w.endpoint({ carrierIds: [y.carrierId], yardIds: [y.yardId] });
    const a = await book(w, y, 3, 8);
    expect((await w.admin.post(`/api/appointment/${a.id}/cancel`, { reason: 'no load' })).status).toBe(200);
    await w.drain(MIN, 5);
    const types = async (e: { id: string }) => (await deliveriesOf(w.t.db, e.id)).map((d: any) => d.type);
    expect(await types(theirCarrier)).toEqual([]);
    expect(await types(theirYard)).toEqual([]);
    expect(await types(cancellations)).toEqual(['appointment.cancelled']);
    expect(await types(ours)).toEqual(['appointment.created', 'appointment.cancelled']);
    expect(w.receiver.delivered()).toHaveLength(3);
  });
});

/** Gate movements are made at the edge: a standalone edge sends their webhooks itself. */
describe('webhooks of gate movements at a standalone edge', () => {
  let w: WebhookWorld;
  let y: Awaited<ReturnType<WebhookWorld['yard']>>;

  beforeAll(async () => {
    w = await webhookWorld('sqlite', { role: 'edge' });
    y = await w.yard();
  });
  afterAll(() => w?.close());

  it('sends a gate check-in as movement.created, once, however often its row is observed', async () => {
    const { id: endpointId } = await w.endpoint({ events: ['movement.created'] });
    const trailer = await seed(w.admin).trailer({ number: 'TRL-77', carrierId: y.carrierId });
    const movementId = newId();
    const now = w.clock.now();
    const row = {
      id: movementId,
      yardId: y.yardId,
      direction: 'in' as const,
      at: now,
      createdAt: now,
      carrierId: y.carrierId,
      trailerId: trailer.id,
      attachmentIds: '[]',
      warnings: '[]',
    };
    await w.t.core.changes.insert(w.t.core.kysely, 'movement', row);
    // The same row told again (a sync batch applied twice): nothing more is queued.
    await w.t.core.kysely.transaction().execute(async (trx) => {
      await w.t.core.changes.observers.notifyIn(trx, 'movement', undefined, { ...row, hlc: 'x' });
    });
    await w.runDue();
    expect(await deliveriesOf(w.t.db, endpointId)).toHaveLength(1);
    expect(w.receiver.delivered()).toEqual([
      {
        id: `msg_${movementId}`,
        type: 'movement.created',
        timestamp: NOW.replace('Z', '.000Z'),
        data: {
          movement: {
            id: movementId,
            yardId: y.yardId,
            direction: 'in',
            kind: 'arrived',
            at: '2026-03-02T06:00:00-06:00',
            carrierId: y.carrierId,
            trailerNumber: 'TRL-77',
            truckPlate: null,
            appointmentId: null,
            correctsId: null,
          },
        },
      },
    ]);
  });
});

/** With the default policy, an endpoint that now resolves to a private address is refused at connect time. */
describe('webhook delivery to an address that became private', () => {
  it('is refused when it connects, logged as address-refused, and nothing reaches the address', async () => {
    const receiver = await new WebhookReceiver().start();
    const t = await startTestApp({ env: { YARD_WEBHOOKS_CA_FILE: receiver.caFile } });
    try {
      const now = Date.now();
      // As if registered while the name pointed to a public address (the API refuses it today).
      await t.core.kysely
        .insertInto('webhookEndpoint')
        .values({
          id: newId(),
          url: receiver.url.replace('127.0.0.1', 'localhost'),
          eventTypes: JSON.stringify(['movement.created']),
          secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
          createdAt: now,
          updatedAt: now,
        })
        .execute();
      const yardId = (
        await seed(new (await import('../../helpers/http.js')).Client(t.url, t.adminToken)).yard()
      ).id;
      await t.core.changes.insert(t.core.kysely, 'movement', {
        id: newId(),
        yardId,
        direction: 'out',
        at: now,
        createdAt: now,
        attachmentIds: '[]',
        warnings: '[]',
      });
      expect(await t.services.webhooks.dispatcher!.runDue()).toBe(1);
      const [delivery] = await query(
        t.db,
        'SELECT id, status, last_error AS "lastError" FROM webhook_delivery',
      );
      expect(delivery.status).toBe('pending');
      expect(delivery.lastError).toMatch(/^address-refused: .*loopback/);
      expect((await attemptsOf(t.db, delivery.id))[0]).toMatchObject({
        httpStatus: null,
        error: delivery.lastError,
      });
      expect(receiver.received).toEqual([]);
    } finally {
      await t.close();
      await receiver.stop();
    }
  });
});
