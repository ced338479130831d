import type { Kdb } from '../../db/database.js';
import type { WebhookDeliveryStatus } from '../../db/tables.js';
import type { AttemptResult } from './sender.js';

/** A delivery due now, with what sending it needs. */
export interface DueDelivery {
  id: string;
  endpointId: string;
  resourceKey: string;
  attempts: number;
  giveUpAt: number;
  replay: number;
  webhookId: string;
  payload: string;
  url: string;
  secret: string;
}

/** SQL of the dispatcher (dispatcher.ts): the due heads of the streams and each attempt's result. */
export class DeliveryRepo {
  constructor(private readonly db: Kdb) {}

  /**
   * Deliveries due at `now` to enabled endpoints that are the head of their stream (endpoint,
   * resource): no earlier event of the same resource is still pending for that endpoint. A replay
   * goes outside the order: it is due whatever waits before it, and it keeps nothing waiting.
   */
  dueHeads(now: number, limit: number): Promise<DueDelivery[]> {
    return this.db
      .selectFrom('webhookDelivery as d')
      .innerJoin('webhookEvent as e', 'e.seq', 'd.eventSeq')
      .innerJoin('webhookEndpoint as ep', 'ep.id', 'd.endpointId')
      .select([
        'd.id',
        'd.endpointId',
        'd.resourceKey',
        'd.attempts',
        'd.giveUpAt',
        'd.replay',
        'e.id as webhookId',
        'e.payload',
        'ep.url',
        'ep.secret',
      ])
      .where('d.status', '=', 'pending')
      .where('d.nextAttemptAt', '<=', now)
      .where('ep.enabled', '=', 1)
      .where('ep.deletedAt', 'is', null)
      .where((eb) =>
        eb.or([
          eb('d.replay', '=', 1),
          eb.not(
            eb.exists(
              eb
                .selectFrom('webhookDelivery as p')
                .select('p.id')
                .whereRef('p.endpointId', '=', 'd.endpointId')
                .whereRef('p.resourceKey', '=', 'd.resourceKey')
                .where('p.status', '=', 'pending')
                .where('p.replay', '=', 0)
                .whereRef('p.eventSeq', '<', 'd.eventSeq'),
            ),
          ),
        ]),
      )
      .orderBy('d.nextAttemptAt')
      .orderBy('d.eventSeq')
      .limit(limit)
      .execute();
  }

  /** The earliest time a pending delivery is due (for the next wake-up), or null. */
  async nextDueAt(): Promise<number | null> {
    const row = await this.db
      .selectFrom('webhookDelivery')
      .select((eb) => eb.fn.min('nextAttemptAt').as('at'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  /** Logs an attempt, numbered after the delivery's earlier ones. */
  async logAttempt(
    trx: Kdb,
    d: Pick<DueDelivery, 'id' | 'replay'>,
    at: number,
    node: string,
    r: AttemptResult,
  ): Promise<void> {
    const last = await trx
      .selectFrom('webhookAttempt')
      .select((eb) => eb.fn.max('n').as('n'))
      .where('deliveryId', '=', d.id)
      .executeTakeFirst();
    await trx
      .insertInto('webhookAttempt')
      .values({
        deliveryId: d.id,
        n: Number(last?.n ?? 0) + 1,
        at,
        durationMs: r.durationMs,
        node,
        httpStatus: r.httpStatus,
        error: r.error,
        responseBody: r.responseBody,
        replay: d.replay,
      })
      .execute();
  }

  /** The delivery's state after an attempt, if it is still pending (not removed meanwhile). */
  async settle(
    trx: Kdb,
    id: string,
    set: {
      status: WebhookDeliveryStatus;
      attempts: number;
      nextAttemptAt?: number;
      lastStatus: number | null;
      lastError: string | null;
      deliveredAt?: number;
      replay: number;
    },
  ): Promise<void> {
    await trx
      .updateTable('webhookDelivery')
      .set(set)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * After a success: the endpoint is reachable again, so the deliveries that waited out their backoff
   * because it could not be reached (no answer at all: refused, timed out, no route) are due now, not
   * up to hours later. Those it answered with an error keep their wait: an endpoint that refuses one
   * event is not asked again at every success of the others.
   */
  async pullForward(trx: Kdb, endpointId: string, now: number): Promise<void> {
    await trx
      .updateTable('webhookDelivery')
      .set({ nextAttemptAt: now })
      .where('endpointId', '=', endpointId)
      .where('status', '=', 'pending')
      .where('nextAttemptAt', '>', now)
      .where('attempts', '>', 0)
      .where('lastStatus', 'is', null)
      .execute();
  }

  /** 410 Gone (Standard Webhooks): the receiver asks for no more; the endpoint is disabled. */
  async disableEndpoint(trx: Kdb, endpointId: string, now: number): Promise<void> {
    await trx
      .updateTable('webhookEndpoint')
      .set((eb) => ({ enabled: 0, updatedAt: now, version: eb('version', '+', 1) }))
      .where('id', '=', endpointId)
      .execute();
  }

  /** Delivered and failed deliveries created before `cutoff`, with their attempts and events. */
  async prune(trx: Kdb, cutoff: number): Promise<void> {
    const old = trx
      .selectFrom('webhookDelivery')
      .select('id')
      .where('status', '<>', 'pending')
      .where('createdAt', '<', cutoff);
    await trx.deleteFrom('webhookAttempt').where('deliveryId', 'in', old).execute();
    await trx
      .deleteFrom('webhookDelivery')
      .where('status', '<>', 'pending')
      .where('createdAt', '<', cutoff)
      .execute();
    await trx
      .deleteFrom('webhookEvent')
      .where('createdAt', '<', cutoff)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhookDelivery as d')
              .select('d.id')
              .whereRef('d.eventSeq', '=', 'webhookEvent.seq'),
          ),
        ),
      )
      .execute();
  }
}
