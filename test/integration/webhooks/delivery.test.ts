import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { ADMIN } from '../../helpers/test-app.js';
import { verify } from '../../helpers/webhook-receiver.js';
import { attemptsOf, book, deliveriesOf, NOW, type WebhookWorld, webhookWorld } from './fixture.js';

const S = 1000;
const MIN = 60 * S;

/** Delivery of signed webhooks (docs/webhooks.md): signatures, retries, an outage, replay. */
describe.each(TEST_DIALECTS)('webhook delivery on %s', (dialect) => {
  let w: WebhookWorld;
  let y: Awaited<ReturnType<WebhookWorld['yard']>>;

  beforeAll(async () => {
    w = await webhookWorld(dialect);
  });
  beforeEach(async () => {
    w.clock.set(NOW);
    w.receiver.reset();
    await w.receiver.resume();
    // Endpoints of earlier tests stop receiving: each test counts its own deliveries.
    for (const e of (await w.admin.get('/api/webhook?limit=500')).body.items)
      await w.admin.delete(`/api/webhook/${e.id}`);
    y = await w.yard();
  });
  afterAll(() => w?.close());

  it('writes the event in the booking’s transaction and sends it signed, verifying with standardwebhooks', async () => {
    const { id: endpointId, secret } = await w.endpoint();
    const a = await book(w, y, 3, 8, { refs: ['PO-1'], trailerNumber: 'TR-9' });
    // Before any delivery pass: the outbox holds the event and its delivery.
    const queued = await deliveriesOf(w.t.db, endpointId);
    expect(queued).toEqual([
      expect.objectContaining({
        status: 'pending',
        type: 'appointment.created',
        resourceKey: `appointment:${a.id}`,
      }),
    ]);
    expect(w.receiver.received).toHaveLength(0);

    expect(await w.runDue()).toBe(1);
    expect(w.receiver.received).toHaveLength(1);
    const got = w.receiver.received[0]!;
    expect(got.headers['webhook-id']).toBe(queued[0].webhookId);
    expect(got.headers['webhook-id']).toMatch(/^msg_/);
    expect(got.headers['webhook-timestamp']).toBe(String(Date.parse(NOW) / 1000));
    expect(got.headers['content-type']).toBe('application/json');
    const payload = verify(secret, got, w.clock.now()) as any;
    expect(payload).toMatchObject({
      type: 'appointment.created',
      timestamp: NOW.replace('Z', '.000Z'),
      data: {
        appointment: {
          id: a.id,
          code: a.code,
          yard: { id: y.yardId, timeZone: 'America/Chicago' },
          doorName: 'Door 2',
          loadTypeName: 'Live unload',
          startAt: '2026-03-03T08:00:00-06:00',
          carrier: { id: y.carrierId },
          refs: ['PO-1'],
          trailerNumber: 'TR-9',
          status: 'scheduled',
        },
        change: { kind: 'booked', fromStatus: null, toStatus: 'scheduled' },
      },
    });
    // A body or id changed on the way, or another secret, fails verification.
    expect(() =>
      verify(secret, { ...got, body: got.body.replace(a.code, 'XXXXXXXX') }, w.clock.now()),
    ).toThrow();
    expect(() =>
      verify(secret, { ...got, headers: { ...got.headers, 'webhook-id': 'msg_other' } }, w.clock.now()),
    ).toThrow();
    const other = (await w.admin.patch(`/api/webhook/${endpointId}`, { rotateSecret: true })).body.secret;
    expect(() => verify(other, got, w.clock.now())).toThrow();

    const [delivery] = await deliveriesOf(w.t.db, endpointId);
    expect(delivery.status).toBe('delivered');
    expect(await attemptsOf(w.t.db, delivery.id)).toEqual([
      expect.objectContaining({ n: 1, at: Date.parse(NOW), httpStatus: 204, error: null, replay: 0 }),
    ]);
  });

  it('retries a receiver that fails its first three attempts, logging each answer, and delivers on the fourth', async () => {
    const { id: endpointId, secret } = await w.endpoint();
    w.receiver.answer = (n) => (n <= 3 ? { status: 503, body: `busy ${n}` } : { status: 200, body: 'ok' });
    const a = await book(w, y, 3, 9);
    await w.runDue();
    const [d] = await deliveriesOf(w.t.db, endpointId);
    // Not yet due: nothing is sent early.
    expect(await w.runDue()).toBe(0);
    // The waits: 5 s, 30 s and 2 min, each within 20 %.
    for (const wait of [5 * S, 30 * S, 2 * MIN]) {
      w.clock.advance(wait * 0.8 - 1);
      expect(await w.runDue()).toBe(0);
      w.clock.advance(wait * 0.4 + 1);
      expect(await w.runDue()).toBe(1);
    }
    const attempts = await attemptsOf(w.t.db, d.id);
    expect(attempts.map((x: any) => [x.n, x.httpStatus, x.responseBody])).toEqual([
      [1, 503, 'busy 1'],
      [2, 503, 'busy 2'],
      [3, 503, 'busy 3'],
      [4, 200, 'ok'],
    ]);
    expect((await deliveriesOf(w.t.db, endpointId))[0]).toMatchObject({ status: 'delivered', attempts: 4 });
    // The same webhook-id each time, each signed afresh at its attempt.
    expect(new Set(w.receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([d.webhookId]));
    const last = w.receiver.received[3]!;
    expect((verify(secret, last, w.clock.now()) as any).data.appointment.id).toBe(a.id);
    // The log through the API, with each answer.
    const log = await w.admin.get(`/api/webhook/${endpointId}/delivery`);
    expect(log.status).toBe(200);
    expect(log.body.items[0].attempts.map((x: any) => x.httpStatus)).toEqual([503, 503, 503, 200]);
    expect(log.body.items[0]).toMatchObject({
      status: 'delivered',
      webhookId: d.webhookId,
      type: 'appointment.created',
    });
  });

  it('delivers everything, in order, after the receiver was down for an hour', async () => {
    const { id: endpointId } = await w.endpoint();
    await w.receiver.pause();
    const a = await book(w, y, 3, 10);
    const b = await book(w, y, 4, 10);
    expect((await w.admin.post(`/api/appointment/${a.id}/cancel`, { reason: 'load not ready' })).status).toBe(
      200,
    );
    for (let minute = 0; minute < 60; minute++) {
      await w.runDue();
      w.clock.advance(MIN);
    }
    const during = await deliveriesOf(w.t.db, endpointId);
    expect(during.map((d: any) => d.status)).toEqual(['pending', 'pending', 'pending']);
    const refused = await attemptsOf(w.t.db, during[0].id);
    expect(refused.length).toBeGreaterThanOrEqual(5);
    expect(refused[0].error).toMatch(/ECONNREFUSED/);
    // a's cancellation waited behind its creation: never attempted while that was failing.
    expect(await attemptsOf(w.t.db, during[2].id)).toEqual([]);
    await w.receiver.resume();
    await w.drain(MIN, 180);
    const after = await deliveriesOf(w.t.db, endpointId);
    expect(after.map((d: any) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
    // Once the receiver answered, the deliveries waiting out their backoff went at once, not an hour later.
    const deliveredAt = await Promise.all(
      after.map(async (d: any) => (await attemptsOf(w.t.db, d.id)).at(-1).at),
    );
    expect(new Set(deliveredAt).size).toBe(1);
    const got = w.receiver.delivered();
    expect(got.map((e) => [e.type, e.data.appointment.id])).toEqual(
      expect.arrayContaining([
        ['appointment.created', a.id],
        ['appointment.created', b.id],
        ['appointment.cancelled', a.id],
      ]),
    );
    const ofA = got.filter((e) => e.data.appointment.id === a.id).map((e) => e.type);
    expect(ofA).toEqual(['appointment.created', 'appointment.cancelled']);
    expect(got).toHaveLength(3);
  });

  it('replays a delivery with the same webhook-id, logged as a replay', async () => {
    const { id: endpointId } = await w.endpoint();
    await book(w, y, 3, 11);
    await w.runDue();
    const [d] = await deliveriesOf(w.t.db, endpointId);
    const res = await w.admin.post(`/api/webhook/${endpointId}/delivery/${d.id}/replay`);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ id: d.id, status: 'pending', webhookId: d.webhookId });
    await w.runDue();
    expect(w.receiver.received.map((r) => r.headers['webhook-id'])).toEqual([d.webhookId, d.webhookId]);
    expect((await attemptsOf(w.t.db, d.id)).map((x: any) => x.replay)).toEqual([0, 1]);
    expect((await w.admin.post(`/api/webhook/${endpointId}/delivery/${endpointId}/replay`)).status).toBe(404);
  });

  it('gives up after 24 hours, and a 410 Gone disables the endpoint', async () => {
    const { id: endpointId } = await w.endpoint();
    w.receiver.answer = () => ({ status: 500 });
    await book(w, y, 3, 12);
    for (let i = 0; i < 30; i++) {
      await w.runDue();
      w.clock.advance(60 * MIN);
    }
    const [d] = await deliveriesOf(w.t.db, endpointId);
    expect(d.status).toBe('failed');
    const attempts = await attemptsOf(w.t.db, d.id);
    expect(attempts.at(-1).at).toBe(Date.parse(NOW) + 24 * 60 * MIN);
    // A day later the admin signs in again (sessions expire on the same clock).
    const admin = w.admin.as((await w.admin.as(undefined).post('/api/auth/login', ADMIN)).body.token);
    expect((await admin.get(`/api/webhook/${endpointId}`)).body.health).toMatchObject({
      failed: 1,
      pending: 0,
    });

    w.receiver.answer = () => ({ status: 410 });
    await book(w, y, 4, 12, {}, admin);
    await w.runDue();
    const endpoint = (await admin.get(`/api/webhook/${endpointId}`)).body;
    expect(endpoint.enabled).toBe(false);
    const rows = await query(
      w.t.db,
      "SELECT count(*) AS n FROM webhook_delivery WHERE endpoint_id = ? AND status = 'failed'",
      endpointId,
    );
    expect(Number(rows[0].n)).toBe(2);
  });
});
