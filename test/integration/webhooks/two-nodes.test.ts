import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseLost } from '../../../shared/db/job-lease.js';
import { LEASE_TTL_MS } from '../../../shared/modules/webhooks/dispatcher.js';
import { Client, query } from '../../helpers/http.js';
import { postgresAvailable } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { waitFor } from '../../helpers/wait-for.js';
import { book, deliveriesOf, type WebhookWorld, webhookWorld } from './fixture.js';

/**
 * Two cloud nodes on one PostgreSQL database (docs/webhooks.md "Several cloud nodes"): both write
 * the outbox, one at a time delivers, and the other takes over when the first stops renewing.
 */
describe.skipIf(!postgresAvailable())('webhook delivery from two cloud nodes', () => {
  let w: WebhookWorld;
  let other: TestApp;
  let otherAdmin: Client;
  let y: Awaited<ReturnType<WebhookWorld['yard']>>;

  beforeAll(async () => {
    w = await webhookWorld('postgres');
    other = (await startTestApp({
      dialect: 'postgres',
      postgresUrl: w.t.postgresUrl!,
      clock: w.clock,
      login: false,
      env: {
        YARD_ROLE: 'cloud',
        YARD_WEBHOOKS_ALLOW_LOCAL_ENDPOINTS: 'true',
        YARD_WEBHOOKS_CA_FILE: w.receiver.caFile,
      },
    })) as unknown as TestApp;
    otherAdmin = new Client(other.url, w.admin.token);
    y = await w.yard();
  });
  afterAll(async () => {
    await other?.close();
    await w?.close();
  });

  const nodes = () => [w.dispatcher, other.services.webhooks.dispatcher!];
  const attemptsByNode = async () =>
    query(w.t.db, 'SELECT node, count(*)::int AS n FROM webhook_attempt GROUP BY node ORDER BY node');

  it('delivers each event once, whichever node booked it, with both nodes passing at once', async () => {
    const { id: endpointId } = await w.endpoint();
    for (let i = 0; i < 6; i++) await book(w, y, 3 + (i % 3), 7 + i, {}, i % 2 === 0 ? w.admin : otherAdmin);
    for (let round = 0; round < 3; round++) await Promise.all(nodes().map((d) => d.runDue()));
    const deliveries = await deliveriesOf(w.t.db, endpointId);
    expect(deliveries.map((d: any) => d.status)).toEqual(Array(6).fill('delivered'));
    expect(w.receiver.received).toHaveLength(6);
    expect(new Set(w.receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(6);
    // One node did it all (the one holding the lease): the other's passes found it held.
    const [lease] = await query(w.t.db, 'SELECT owner FROM job_lease');
    expect(nodes().map((d) => d.node)).toContain(lease.owner);
    expect(await attemptsByNode()).toEqual([{ node: lease.owner, n: 6 }]);
  });

  it('passes to the other node when the holder stops renewing; a stalled holder writes nothing', async () => {
    for (const e of (await w.admin.get('/api/webhook')).body.items)
      await w.admin.delete(`/api/webhook/${e.id}`);
    const { id: endpointId } = await w.endpoint({ events: ['appointment.cancelled'] });
    const a = await book(w, y, 6, 9);
    w.receiver.reset();
    // The holder's request hangs at the receiver (a paused process, a slow network) ...
    w.receiver.answer = (n) => (n === 1 ? 'hold' : { status: 204 });
    expect((await otherAdmin.post(`/api/appointment/${a.id}/cancel`, { reason: 'no load' })).status).toBe(
      200,
    );
    const [lease] = await query(w.t.db, 'SELECT owner FROM job_lease');
    const [holder, standBy] = lease.owner === w.dispatcher.node ? nodes() : nodes().reverse();
    const stalled = holder!.runDue();
    await waitFor(() => w.receiver.heldCount === 1);
    // ... past the lease's time: the other node takes over and sends it again, same webhook-id.
    w.clock.advance(LEASE_TTL_MS);
    const taken = standBy!;
    expect(await taken.runDue()).toBe(1);
    w.receiver.release();
    await expect(stalled).rejects.toBeInstanceOf(LeaseLost);
    const [delivery] = await deliveriesOf(w.t.db, endpointId);
    expect(delivery.status).toBe('delivered');
    const attempts = await query(
      w.t.db,
      'SELECT node FROM webhook_attempt WHERE delivery_id = ?',
      delivery.id,
    );
    expect(attempts).toEqual([{ node: taken.node }]);
    const ids = w.receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([delivery.webhookId, delivery.webhookId]);
    // The first node, back, finds the lease held and does nothing.
    expect(await holder!.runDue()).toBe(0);
  });
});
