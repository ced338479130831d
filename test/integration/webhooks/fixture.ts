import { expect } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, query } from '../../helpers/http.js';
import type { TestDialect } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { bookableYard, NOW } from '../appointments/fixture.js';

export { NOW };

/**
 * A cloud (or a standalone edge, which records gate movements itself) on a ManualClock with a bookable yard and an HTTPS receiver on loopback that it trusts
 * (webhooks.allowLocalEndpoints and webhooks.caFile, as a lab would set them). The app is not
 * started: tests run the dispatcher's passes themselves (`runDue`), moving the clock between them.
 */
export async function webhookWorld(
  dialect: TestDialect,
  opts: { postgresUrl?: string; role?: 'cloud' | 'edge' } = {},
) {
  const receiver = await new WebhookReceiver().start();
  const clock = new ManualClock(Date.parse(NOW));
  const t: TestApp<AppDatabase> = await startTestApp({
    dialect,
    clock,
    ...(opts.postgresUrl ? { postgresUrl: opts.postgresUrl } : {}),
    env: {
      YARD_ROLE: opts.role ?? 'cloud',
      YARD_WEBHOOKS_ALLOW_LOCAL_ENDPOINTS: 'true',
      YARD_WEBHOOKS_CA_FILE: receiver.caFile,
    },
  });
  const admin = new Client(t.url, t.adminToken);
  const dispatcher = t.services.webhooks.dispatcher!;
  return {
    t,
    admin,
    clock,
    receiver,
    dispatcher,
    /** One delivery pass now; the number of attempts it made. */
    runDue: () => dispatcher.runDue(),
    /** Registers an endpoint at the receiver; returns its id and secret. */
    async endpoint(fields: Record<string, unknown> = {}) {
      const res = await admin.post('/api/webhook', {
        url: receiver.url,
        events: ['appointment.created', 'appointment.changed', 'appointment.cancelled', 'movement.created'],
        ...fields,
      });
      expect(res.status, res.text).toBe(201);
      return { id: res.body.id as string, secret: res.body.secret as string };
    },
    yard: () => bookableYard(admin),
    /** Passes until nothing is due, moving the clock by `stepMs` between them (at most `steps` times). */
    async drain(stepMs: number, steps: number) {
      for (let i = 0; i < steps; i++) {
        await dispatcher.runDue();
        const pending = await query(
          t.db,
          "SELECT count(*) AS n FROM webhook_delivery WHERE status = 'pending'",
        );
        if (Number(pending[0].n) === 0) return;
        clock.advance(stepMs);
      }
    },
    async close() {
      await t.close();
      await receiver.stop();
    },
  };
}

export type WebhookWorld = Awaited<ReturnType<typeof webhookWorld>>;

/** Books an appointment of the yard for the day and hour given (yard-local, March 2026). */
export async function book(
  w: WebhookWorld,
  y: Awaited<ReturnType<typeof bookableYard>>,
  day: number,
  hour: number,
  fields: Record<string, unknown> = {},
  as: Client = w.admin,
) {
  const startAt = `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00-06:00`;
  const res = await as.post('/api/appointment', {
    yardId: y.yardId,
    loadTypeId: y.loadTypeId,
    carrierId: y.carrierId,
    startAt,
    ...fields,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; code: string; version: number };
}

/** The attempts of a delivery, oldest first. */
export function attemptsOf(db: AppDatabase, deliveryId: string) {
  return query(
    db,
    'SELECT n, at, http_status AS "httpStatus", error, response_body AS "responseBody", replay, node FROM webhook_attempt WHERE delivery_id = ? ORDER BY n',
    deliveryId,
  );
}

export function deliveriesOf(db: AppDatabase, endpointId: string) {
  return query(
    db,
    `SELECT d.id, d.status, d.attempts, d.resource_key AS "resourceKey", e.id AS "webhookId", e.type
     FROM webhook_delivery d JOIN webhook_event e ON e.seq = d.event_seq
     WHERE d.endpoint_id = ? ORDER BY d.event_seq`,
    endpointId,
  );
}
