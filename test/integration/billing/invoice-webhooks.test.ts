import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/principal.js';
import { newId } from '../../../shared/ids.js';
import { InvoiceLifecycle } from '../../../shared/modules/billing/invoice/lifecycle.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { verify } from '../../helpers/webhook-receiver.js';
import { type WebhookWorld, webhookWorld } from '../webhooks/fixture.js';

/**
 * Invoices issued and voided tell the carriers' systems (docs/webhooks.md "Events"): the event is
 * written in the transaction of the status change, delivered in order per invoice, signed, and
 * says only what the carrier may see of the invoice. The yard is Chicago's (UTC-6); the clock
 * starts Monday 2 March 2026 12:00 UTC, so February is a past period.
 */
describe.each(TEST_DIALECTS)('invoice webhooks on %s', (dialect) => {
  let w: WebhookWorld;
  let y: Awaited<ReturnType<WebhookWorld['yard']>>;
  let yardName: string;
  let subscribed: { id: string; secret: string };

  const eventIds = async () =>
    (await query(w.t.db, 'SELECT id FROM webhook_event ORDER BY seq')).map((r: { id: string }) => r.id);

  /** A February draft of the yard's carrier (the cloud invoices without waiting for the site). */
  const draft = async () => {
    const res = await w.admin.post('/api/billing/invoice', {
      yardId: y.yardId,
      carrierId: y.carrierId,
      period: '2026-02',
      force: true,
    });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; number: string; total: number };
  };

  beforeAll(async () => {
    w = await webhookWorld(dialect);
    y = await w.yard();
    yardName = (await w.admin.get(`/api/yard/${y.yardId}`)).body.name;
    const config = await w.admin.put(`/api/billing/config/${y.yardId}`, {
      currency: 'USD',
      taxRateBp: 825,
      bookedSpaces: 1,
      spaceMonthlyRate: 10_000,
      issuerName: 'Yard Services',
      paymentTermsDays: 30,
    });
    expect(config.status, config.text).toBe(201);
    // A carrier config: the carrier books the yard's one space.
    const carrier = await w.admin.post(`/api/billing/config/${y.yardId}/carrier`, { carrierId: y.carrierId });
    expect(carrier.status, carrier.text).toBe(201);
    subscribed = await w.endpoint({
      events: ['invoice.issued', 'invoice.voided'],
      carrierIds: [y.carrierId],
    });
    // Subscribed to the same events, but for another carrier's: it must get nothing.
    await w.endpoint({
      events: ['invoice.issued', 'invoice.voided'],
      carrierIds: [(await w.yard()).carrierId],
    });
    // Subscribed to appointments only: nothing either.
    await w.endpoint();
  });
  afterAll(() => w?.close());

  it('an issued then voided invoice reaches the subscribed endpoint in that order, signed, with the carrier’s view', async () => {
    w.receiver.reset();
    const inv = await draft();
    await w.runDue();
    expect(w.receiver.received, 'a draft is not final: no event').toEqual([]);

    const issuedAt = w.clock.now();
    const issue = await w.admin.post(`/api/billing/invoice/${inv.id}/issue`);
    expect(issue.status, issue.text).toBe(200);
    w.clock.advance(3_600_000);
    const voidedAt = w.clock.now();
    const voided = await w.admin.post(`/api/billing/invoice/${inv.id}/void`, { reason: 'Wrong spaces' });
    expect(voided.status, voided.text).toBe(200);
    expect(await eventIds()).toEqual([`msg_${inv.id}_issued`, `msg_${inv.id}_voided`]);

    await w.drain(1_000, 5);
    const view = {
      id: inv.id,
      number: inv.number,
      yardId: y.yardId,
      yardName,
      carrierId: y.carrierId,
      period: '2026-02',
      currency: 'USD',
      // One booked space at 100.00, tax 8.25 %: worked out by hand.
      subtotal: 10_000,
      tax: 825,
      total: 10_825,
      issuedAt: new Date(issuedAt).toISOString(),
      // Issued 2 March in Chicago, 30 days to pay.
      dueAt: '2026-04-01',
    };
    expect(w.receiver.delivered()).toEqual([
      {
        id: `msg_${inv.id}_issued`,
        type: 'invoice.issued',
        timestamp: new Date(issuedAt).toISOString(),
        data: { invoice: { ...view, status: 'issued', voidedAt: null, voidReason: null } },
      },
      {
        id: `msg_${inv.id}_voided`,
        type: 'invoice.voided',
        timestamp: new Date(voidedAt).toISOString(),
        data: {
          invoice: {
            ...view,
            status: 'void',
            voidedAt: new Date(voidedAt).toISOString(),
            voidReason: 'Wrong spaces',
          },
        },
      },
    ]);
    for (const r of w.receiver.received) {
      expect(verify(subscribed.secret, r, w.clock.now())).toMatchObject({
        data: { invoice: { id: inv.id } },
      });
    }
    const tampered = { ...w.receiver.received[0]!, body: w.receiver.received[0]!.body.replace('10825', '1') };
    expect(() => verify(subscribed.secret, tampered, w.clock.now())).toThrow();
  });

  it('a refused issue or void, and a draft deleted, write no event', async () => {
    const inv = await draft();
    const before = await eventIds();
    const voidDraft = await w.admin.post(`/api/billing/invoice/${inv.id}/void`, { reason: 'x' });
    expect(voidDraft.status, voidDraft.text).toBe(409);
    const issue = await w.admin.post(`/api/billing/invoice/${inv.id}/issue`);
    expect(issue.status, issue.text).toBe(200);
    const again = await w.admin.post(`/api/billing/invoice/${inv.id}/issue`);
    expect(again.status, again.text).toBe(409);
    expect(await eventIds()).toEqual([...before, `msg_${inv.id}_issued`]);
    const voided = await w.admin.post(`/api/billing/invoice/${inv.id}/void`, { reason: 'Redo' });
    expect(voided.status, voided.text).toBe(200);
    const next = await draft();
    const removed = await w.admin.delete(`/api/billing/invoice/${next.id}`);
    expect(removed.status, removed.text).toBe(204);
    expect(await eventIds()).toEqual([...before, `msg_${inv.id}_issued`, `msg_${inv.id}_voided`]);
  });

  it('the status change and its event are one transaction: when the event cannot be written, the invoice stays as it was', async () => {
    const inv = await draft();
    const failing = new InvoiceLifecycle({
      kysely: w.t.core.kysely,
      clock: w.clock,
      yards: w.t.services.yards,
      carriers: w.t.services.carriers,
      events: {
        emit: async () => {
          throw new Error('the outbox write failed');
        },
      },
    });
    const admin: Principal = { kind: 'user', id: newId(), name: 'admin', role: 'admin', yardIds: null };
    await expect(failing.issue(admin, inv.id)).rejects.toThrow('the outbox write failed');
    const row = await w.admin.get(`/api/billing/invoice/${inv.id}`);
    expect(row.body).toMatchObject({ status: 'draft', issuedAt: null });
  });
});
