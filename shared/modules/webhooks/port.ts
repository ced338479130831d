import type { Clock } from '../../clock.js';
import type { AppDatabase, Kdb } from '../../db/database.js';
import { PostgresWork, SqliteWork } from '../../db/sql-work.js';
import type { WebhookEventType } from './event-types.js';
import { body } from './events.js';
import { eventWork } from './outbox.js';

/** An event a module makes in its own code (an invoice issued or voided), not from observed rows. */
export interface IntegratorEvent {
  type: WebhookEventType;
  /** The stream it is ordered in, e.g. 'invoice:<id>'. */
  resourceKey: string;
  /** The id of what happened (an invoice's id and status change): the webhook-id is 'msg_' + it. */
  sourceId: string;
  yardId: string;
  carrierId: string | null;
  /** The body's `data`, e.g. {invoice: {...}}. */
  data: Record<string, unknown>;
  occurredAt: number;
}

/**
 * What a module that makes integrator events by hand is given (billing's issue and void, which
 * are not synced rows a row observer could follow): `emit` writes the event and its deliveries in
 * the caller's transaction `trx`, so they commit or roll back with the change. Where webhooks are
 * the cloud's (a linked edge) it is `noIntegratorEvents`.
 */
export interface IntegratorEvents {
  emit(trx: Kdb, event: IntegratorEvent): Promise<void>;
}

export const noIntegratorEvents: IntegratorEvents = { emit: async () => undefined };

export function integratorEvents(db: AppDatabase, clock: Clock): IntegratorEvents {
  const toOutbox = (e: IntegratorEvent) => ({
    id: `msg_${e.sourceId}`,
    type: e.type,
    resourceKey: e.resourceKey,
    yardId: e.yardId,
    carrierId: e.carrierId,
    occurredAt: e.occurredAt,
    payload: body(e.type, e.occurredAt, e.data),
  });
  if (db.dialect === 'sqlite') {
    // Kysely's SQLite transaction runs on this same connection: the statements join it.
    const driver = new SqliteWork(db.sqlite);
    return { emit: async (_trx, e) => driver.run(eventWork(toOutbox(e), clock.now())) };
  }
  const driver = new PostgresWork();
  return { emit: (trx, e) => driver.run(trx, eventWork(toOutbox(e), clock.now())) };
}
