import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.js';
import type { IntegratorEvent } from '../../../shared/modules/webhooks/port.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type WebhookWorld, webhookWorld } from './fixture.js';

/**
 * Events a module makes in its own transaction (shared/modules/webhooks/port.ts: billing's invoice
 * issued and voided), written with the change and rolled back with it.
 */
describe.each(TEST_DIALECTS)('integrator events emitted in a transaction on %s', (dialect) => {
  let w: WebhookWorld;
  let y: Awaited<ReturnType<WebhookWorld['yard']>>;

  beforeAll(async () => {
    w = await webhookWorld(dialect);
    y = await w.yard();
  });
  afterAll(() => w?.close());

  const issued = (carrierId: string): IntegratorEvent => {
    const id = newId();
    return {
      type: 'invoice.issued',
      resourceKey: `invoice:${id}`,
      sourceId: `${id}:issued`,
      yardId: y.yardId,
      carrierId,
      data: { invoice: { id, number: 'INV-1', carrierId } },
      occurredAt: w.clock.now(),
    };
  };

  it('are delivered once committed, to the endpoints that want them, and never when rolled back', async () => {
    await w.endpoint({ events: ['invoice.issued'], carrierIds: [y.carrierId] });
    const events = w.t.services.webhooks.events;
    const kept = issued(y.carrierId);
    await w.t.core.kysely.transaction().execute((trx) => events.emit(trx, kept));
    const undone = issued(y.carrierId);
    await expect(
      w.t.core.kysely.transaction().execute(async (trx) => {
        await events.emit(trx, undone);
        throw new Error('the issue failed after the event');
      }),
    ).rejects.toThrow('the issue failed');
    const otherCarriers = issued(newId());
    await w.t.core.kysely.transaction().execute((trx) => events.emit(trx, otherCarriers));

    await w.runDue();
    expect(w.receiver.delivered()).toEqual([
      {
        id: `msg_${kept.sourceId}`,
        type: 'invoice.issued',
        timestamp: new Date(kept.occurredAt).toISOString(),
        data: kept.data,
      },
    ]);
    const stored = await query(w.t.db, 'SELECT id FROM webhook_event ORDER BY seq');
    expect(stored.map((r: { id: string }) => r.id)).toEqual([`msg_${kept.sourceId}`]);
  });
});
