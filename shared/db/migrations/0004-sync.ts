import { postgresTwin } from '../postgres-ddl.js';

/**
 * Edge <-> cloud sync (docs/sync.md).
 * - site: the cloud's register of edges. The MQTT password is stored only as a Mosquitto-compatible
 *   PBKDF2-SHA512 hash ($7$), so the embedded broker and a Mosquitto password file accept the same
 *   credentials. Link state is what the site's retained status topic last said.
 * - sync_meta.stream: a random id of this database's change log. Batches and acks carry it, so a
 *   receiver notices a replaced or restored peer database (its seqs start again) instead of
 *   mistaking its rows for duplicates.
 * - sync_cursor: the peer's stream id, and when we last heard an ack or applied a batch (for lag).
 * - sync_tombstone: deleted shared records; a late upsert of a tombstoned id is not applied.
 * - sync_pending: rows of a newer schema than ours, kept until we upgrade.
 * - blob_upload: the edge's record of attachment bytes that reached the cloud.
 */
export const up = `
CREATE TABLE site (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  mqtt_password_hash TEXT NOT NULL,
  created_at bigint NOT NULL,
  link_state TEXT NOT NULL DEFAULT 'never' CHECK (link_state IN ('never', 'online', 'offline')),
  link_changed_at bigint,
  last_seen_at bigint,
  reported_queued INTEGER NOT NULL DEFAULT 0,
  reported_schema_v INTEGER,
  reported_version TEXT,
  clock_skew_ms INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE sync_meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO sync_meta (name, value) VALUES ('stream', lower(hex(randomblob(16))));

ALTER TABLE sync_cursor ADD COLUMN remote_stream TEXT;
ALTER TABLE sync_cursor ADD COLUMN acked_at bigint;
ALTER TABLE sync_cursor ADD COLUMN applied_at bigint;

CREATE TABLE sync_tombstone (
  entity TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  hlc TEXT NOT NULL,
  PRIMARY KEY (entity, entity_id)
);

CREATE TABLE sync_pending (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  peer TEXT NOT NULL,
  seq INTEGER NOT NULL,
  schema_v INTEGER NOT NULL,
  entity TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  op TEXT NOT NULL,
  hlc TEXT NOT NULL,
  data TEXT NOT NULL
);

CREATE INDEX dead_letter_peer ON dead_letter (peer, id);

CREATE TABLE blob_upload (
  sha256 TEXT PRIMARY KEY,
  uploaded_at bigint,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL DEFAULT 0,
  last_error TEXT
);
`;

/**
 * PostgreSQL: SQLite's randomblob/hex are not there. The stream id only has to be random and
 * differ between databases: 32 lower-case hex digits of gen_random_uuid() (PostgreSQL 13+ core;
 * 122 random bits instead of 128), the same shape as SQLite's.
 */
export const upPostgres = postgresTwin(up, [
  { sqlite: 'lower(hex(randomblob(16)))', postgres: "replace(gen_random_uuid()::text, '-', '')" },
]);
