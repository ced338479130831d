import type { Principal } from '../../auth/principal.js';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { NotFoundError } from '../../http/errors.js';
import { DAY_MS } from './backoff.js';
import type { WebhookEndpoints } from './endpoints.js';
import type { WebhookEventType } from './event-types.js';
import type { WebhookAttemptOutT, WebhookDeliveryListQueryT, WebhookDeliveryOutT } from './schema.js';

export type DeliveryDeps = Pick<CoreParts, 'kysely' | 'clock'> & {
  endpoints: Pick<WebhookEndpoints, 'visible'>;
  /** Tells the dispatcher there is work now (dispatcher.ts wake). */
  wake: () => void;
};

/**
 * The delivery log of an endpoint (docs/webhooks.md "Delivery log and replay"): each delivery with
 * its event and every attempt with its answer, and an admin's replay.
 */
export class WebhookDeliveries {
  constructor(private readonly deps: DeliveryDeps) {}

  async list(principal: Principal, endpointId: string, query: WebhookDeliveryListQueryT) {
    await this.deps.endpoints.visible(principal, endpointId);
    let q = selectDeliveries(this.deps.kysely)
      .where('d.endpointId', '=', endpointId)
      .orderBy('d.eventSeq', 'desc')
      .limit(query.limit + 1);
    if (query.cursor) q = q.where('d.eventSeq', '<', Number(decodeCursor(query.cursor, 1)[0]));
    if (query.status) q = q.where('d.status', 'in', query.status);
    if (query.type) q = q.where('e.type', 'in', query.type);
    if (query.resourceKey) q = q.where('d.resourceKey', '=', query.resourceKey);
    if (query.from !== undefined) q = q.where('d.createdAt', '>=', query.from);
    if (query.to !== undefined) q = q.where('d.createdAt', '<', query.to);
    const rows = await q.execute();
    const attempts = await attemptsOf(
      this.deps.kysely,
      rows.slice(0, query.limit).map((r) => r.id),
    );
    return toPage(
      rows,
      query.limit,
      (r) => deliveryOut(r, attempts.get(r.id) ?? []),
      (r) => [r.eventSeq],
    );
  }

  /**
   * Sends a delivery again, with the same webhook-id: back to pending, due now, with a new 24-hour
   * window of retries. It goes outside the order of its resource (an admin's explicit act).
   */
  async replay(principal: Principal, endpointId: string, deliveryId: string): Promise<WebhookDeliveryOutT> {
    await this.deps.endpoints.visible(principal, endpointId);
    const now = this.deps.clock.now();
    const res = await this.deps.kysely
      .updateTable('webhookDelivery')
      .set({ status: 'pending', replay: 1, attempts: 0, nextAttemptAt: now, giveUpAt: now + DAY_MS })
      .where('id', '=', deliveryId)
      .where('endpointId', '=', endpointId)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new NotFoundError('Webhook delivery', deliveryId);
    this.deps.wake();
    return this.one(deliveryId);
  }

  async one(deliveryId: string): Promise<WebhookDeliveryOutT> {
    const row = await selectDeliveries(this.deps.kysely).where('d.id', '=', deliveryId).executeTakeFirst();
    if (!row) throw new NotFoundError('Webhook delivery', deliveryId);
    return deliveryOut(row, (await attemptsOf(this.deps.kysely, [deliveryId])).get(deliveryId) ?? []);
  }
}

function selectDeliveries(db: Kdb) {
  return db
    .selectFrom('webhookDelivery as d')
    .innerJoin('webhookEvent as e', 'e.seq', 'd.eventSeq')
    .select([
      'd.id',
      'd.endpointId',
      'd.eventSeq',
      'd.resourceKey',
      'd.status',
      'd.nextAttemptAt',
      'd.giveUpAt',
      'd.deliveredAt',
      'd.createdAt',
      'e.id as webhookId',
      'e.type',
      'e.payload',
    ]);
}

type DeliveryRow = Awaited<ReturnType<ReturnType<typeof selectDeliveries>['executeTakeFirstOrThrow']>>;

async function attemptsOf(db: Kdb, deliveryIds: string[]): Promise<Map<string, WebhookAttemptOutT[]>> {
  const out = new Map<string, WebhookAttemptOutT[]>();
  if (deliveryIds.length === 0) return out;
  const rows = await db
    .selectFrom('webhookAttempt')
    .selectAll()
    .where('deliveryId', 'in', deliveryIds)
    .orderBy('deliveryId')
    .orderBy('n')
    .execute();
  for (const a of rows) {
    const list = out.get(a.deliveryId) ?? [];
    list.push({
      n: a.n,
      at: toIso(a.at),
      durationMs: a.durationMs,
      httpStatus: a.httpStatus,
      error: a.error,
      responseBody: a.responseBody,
      replay: a.replay === 1,
    });
    out.set(a.deliveryId, list);
  }
  return out;
}

function deliveryOut(r: DeliveryRow, attempts: WebhookAttemptOutT[]): WebhookDeliveryOutT {
  return {
    id: r.id,
    endpointId: r.endpointId,
    webhookId: r.webhookId,
    type: r.type as WebhookEventType,
    resourceKey: r.resourceKey,
    status: r.status,
    attempts,
    createdAt: toIso(r.createdAt),
    nextAttemptAt: r.status === 'pending' ? toIso(r.nextAttemptAt) : null,
    deliveredAt: toIsoOrNull(r.deliveredAt),
    giveUpAt: toIso(r.giveUpAt),
    payload: JSON.parse(r.payload) as Record<string, unknown>,
  };
}
