import { v5 as uuidv5 } from 'uuid';
import type { Clock } from '../../clock.js';
import type { AppDatabase } from '../../db/database.js';
import { once, type SqlWork, sqlRows, sqlRun, sqlValue, statement } from '../../db/sql-work.js';
import { type AnyRowObserver, type RowWrite, workObserver } from '../../sync/row-observers.js';
import { DAY_MS } from './backoff.js';
import { APPOINTMENT_EVENT_TYPES, appointmentEvent, movementEvent, type OutboxEvent } from './events.js';

/** The namespace of delivery ids: uuid v5 of (endpoint, event), the same however often it is written. */
const DELIVERY_NAMESPACE = '6f1c7f4e-3a52-4f8e-9d1a-2b7c0e5d9a41';

const INSERT_EVENT = statement(
  'webhooks.event-insert',
  'value',
  `INSERT INTO webhook_event (id, type, resource_key, yard_id, carrier_id, payload, occurred_at, created_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (id) DO NOTHING
   RETURNING seq`,
);

const LIVE_ENDPOINTS = statement(
  'webhooks.endpoints-live',
  'rows',
  `SELECT id, event_types AS "eventTypes", yard_ids AS "yardIds", carrier_ids AS "carrierIds"
   FROM webhook_endpoint WHERE enabled = 1 AND deleted_at IS NULL ORDER BY id`,
);

const INSERT_DELIVERY = statement(
  'webhooks.delivery-insert',
  'changes',
  `INSERT INTO webhook_delivery (id, endpoint_id, event_seq, resource_key, next_attempt_at, give_up_at, created_at)
   VALUES (?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (endpoint_id, event_seq) DO NOTHING`,
);

interface LiveEndpoint {
  id: string;
  eventTypes: Set<string>;
  yardIds: Set<string> | null;
  carrierIds: Set<string> | null;
}

/**
 * The durable outbox (docs/webhooks.md "Delivery"): each appointment history row and gate movement
 * inserted becomes a webhook_event, with a webhook_delivery for every enabled endpoint that wants
 * it, in the transaction of the write. Local writes (ChangeCapture) and rows synced up from a site
 * (the applier: arrivals and no-shows are made at the edge) are told alike (shared/sync/row-observers.ts),
 * so a change is never committed without its events, nor an event without its change. The ids are
 * the source row's, so a row observed twice adds nothing.
 */
export function webhookOutbox(db: AppDatabase, clock: Clock): AnyRowObserver {
  return workObserver(
    db,
    {
      tables: new Set(['appointmentEvent', 'movement']),
      // The dispatcher watches webhookDelivery's generation (dispatcher.ts): rows from a site bump it.
      writes: new Set(['webhookEvent', 'webhookDelivery']),
    },
    (write) => outboxWork(write, clock.now()),
  );
}

function* outboxWork(write: RowWrite, now: number): SqlWork<void> {
  // Inserts only: both tables' rows are immutable history (a movement correction is a new row).
  if (write.before !== undefined || write.after === undefined) return;
  const row = write.after;
  const type =
    write.table === 'appointmentEvent' ? APPOINTMENT_EVENT_TYPES[String(row.kind)] : 'movement.created';
  if (!type) return;
  // Nothing is written for an event no endpoint wants (a cloud ingesting a week of a site's
  // movements with no endpoint for them reads one small table per batch, nothing more).
  const yardId = String(row.yardId);
  const candidates = (yield* liveEndpoints()).filter(
    (e) => e.eventTypes.has(type) && (e.yardIds === null || e.yardIds.has(yardId)),
  );
  if (candidates.length === 0) return;
  const event = write.table === 'appointmentEvent' ? yield* appointmentEvent(row) : yield* movementEvent(row);
  if (!event) return;
  const targets = candidates.filter(
    (e) => e.carrierIds === null || (event.carrierId !== null && e.carrierIds.has(event.carrierId)),
  );
  if (targets.length > 0) yield* enqueue(event, targets, now);
}

/** An event made by a module's own code (port.ts): its deliveries go to every endpoint that wants it. */
export function* eventWork(event: OutboxEvent, now: number): SqlWork<void> {
  const targets = (yield* liveEndpoints()).filter(
    (e) =>
      e.eventTypes.has(event.type) &&
      (e.yardIds === null || e.yardIds.has(event.yardId)) &&
      (e.carrierIds === null || (event.carrierId !== null && e.carrierIds.has(event.carrierId))),
  );
  if (targets.length > 0) yield* enqueue(event, targets, now);
}

/** Writes the event and its deliveries; nothing when the event is already there. */
function* enqueue(event: OutboxEvent, endpoints: LiveEndpoint[], now: number): SqlWork<void> {
  const seq = yield* sqlValue(INSERT_EVENT, [
    event.id,
    event.type,
    event.resourceKey,
    event.yardId,
    event.carrierId,
    event.payload,
    event.occurredAt,
    now,
  ]);
  if (seq === undefined || seq === null) return;
  for (const endpoint of endpoints) {
    yield* sqlRun(INSERT_DELIVERY, [
      uuidv5(`${endpoint.id}|${event.id}`, DELIVERY_NAMESPACE),
      endpoint.id,
      Number(seq),
      event.resourceKey,
      now,
      now + DAY_MS,
      now,
    ]);
  }
}

/** The enabled endpoints, read once per transaction (a batch from a site has many rows). */
function liveEndpoints(): SqlWork<LiveEndpoint[]> {
  return once('webhooks|endpoints', function* () {
    const rows = (yield* sqlRows(LIVE_ENDPOINTS, [])) as Array<Record<string, string | null>>;
    const set = (json: string | null) => (json === null ? null : new Set(JSON.parse(json) as string[]));
    return rows.map((r) => ({
      id: String(r.id),
      eventTypes: new Set(JSON.parse(String(r.eventTypes)) as string[]),
      yardIds: set(r.yardIds ?? null),
      carrierIds: set(r.carrierIds ?? null),
    }));
  });
}
