import { commitSignalTriggers, toPostgresDdl } from '../postgres-ddl.js';

/**
 * Signed webhooks (docs/webhooks.md) and the leases of background jobs. None of these tables is
 * synced (docs/sync.md "Conflict rules": webhook endpoints and deliveries stay at the cloud): no hlc,
 * no change_log, not in SYNCED_ENTITIES.
 *
 * - job_lease: one holder per background job across the cloud's nodes (shared/db/job-lease.ts). The
 *   epoch grows by one each time another term starts, and every result write checks it (fencing).
 * - webhook_endpoint: a receiver registered by an admin. event_types, yard_ids and carrier_ids are
 *   JSON arrays (filters; NULL = all). The secret ('whsec_' + base64 of 32 random bytes) is kept in
 *   clear because signing needs it; it is shown once. deleted_at: soft delete keeps the delivery log.
 * - webhook_event: the outbox proper, one row per domain event, written in the transaction of the
 *   change. seq orders the events of one resource; id ('msg_' + the source row's id) is the
 *   webhook-id header, deterministic so a row observed twice adds nothing. payload is the exact body.
 * - webhook_delivery: one per (endpoint, event), fanned out in the same transaction. resource_key is
 *   copied from the event for the query of each stream's head (docs/webhooks.md "Order"). attempts
 *   counts the tries of the current 24-hour window (an admin's replay starts a new one); replay = 1
 *   while a replay waits for its try, which goes outside the order of its resource.
 * - webhook_attempt: each try with its answer (status, first 2 KiB of the body, or the error).
 */
export const up = `
CREATE TABLE job_lease (
  name TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  expires_at bigint NOT NULL
);

CREATE TABLE webhook_endpoint (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  description TEXT,
  event_types TEXT NOT NULL,
  yard_ids TEXT,
  carrier_ids TEXT,
  secret TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_by TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  deleted_at bigint,
  version INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE webhook_event (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  resource_key TEXT NOT NULL,
  yard_id TEXT,
  carrier_id TEXT,
  payload TEXT NOT NULL,
  occurred_at bigint NOT NULL,
  created_at bigint NOT NULL
);
CREATE UNIQUE INDEX webhook_event_id ON webhook_event (id);

CREATE TABLE webhook_delivery (
  id TEXT PRIMARY KEY,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoint (id),
  event_seq bigint NOT NULL REFERENCES webhook_event (seq),
  resource_key TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL,
  give_up_at bigint NOT NULL,
  last_status INTEGER,
  last_error TEXT,
  delivered_at bigint,
  replay INTEGER NOT NULL DEFAULT 0 CHECK (replay IN (0, 1)),
  created_at bigint NOT NULL
);
CREATE UNIQUE INDEX webhook_delivery_once ON webhook_delivery (endpoint_id, event_seq);
CREATE INDEX webhook_delivery_stream ON webhook_delivery (endpoint_id, resource_key, event_seq) WHERE status = 'pending';
CREATE INDEX webhook_delivery_due ON webhook_delivery (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_delivery_event ON webhook_delivery (event_seq);

CREATE TABLE webhook_attempt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL REFERENCES webhook_delivery (id),
  n INTEGER NOT NULL,
  at bigint NOT NULL,
  duration_ms INTEGER,
  node TEXT,
  http_status INTEGER,
  error TEXT,
  response_body TEXT,
  replay INTEGER NOT NULL DEFAULT 0 CHECK (replay IN (0, 1))
);
CREATE INDEX webhook_attempt_delivery ON webhook_attempt (delivery_id, n);
`;

/**
 * PostgreSQL: the translation plus the commit signal (migration 0011) on the endpoints and the
 * deliveries, so every cloud node drops its cached endpoint list when an admin changes one, and the
 * node that delivers wakes when another node's transaction queued a delivery.
 */
export const upPostgres = `${toPostgresDdl(up)}
${commitSignalTriggers(['webhook_endpoint', 'webhook_delivery'])}`;
