import { CHANGE_LOG_ORDER_LOCK_KEY, postgresTwin } from '../postgres-ddl.js';

/**
 * Initial schema. Conventions: snake_case columns (Kysely's CamelCasePlugin maps them), ids are
 * UUIDv7 text, times are integer epoch milliseconds (`bigint` so PostgreSQL takes the same DDL),
 * JSON is text, booleans are integer 0/1. Every synced table carries `hlc` (its last change) and
 * `version` (optimistic concurrency); shared tables also carry `field_hlc` (per-field HLCs, JSON).
 * A shipped migration is never edited: add a new file instead.
 */
export const up = `
CREATE TABLE change_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  peer TEXT NOT NULL,
  entity TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
  hlc TEXT NOT NULL,
  origin TEXT NOT NULL,
  schema_v INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX change_log_peer_seq ON change_log (peer, seq);

CREATE TABLE sync_cursor (
  peer TEXT PRIMARY KEY,
  acked_seq INTEGER NOT NULL DEFAULT 0,
  applied_remote_seq INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE dead_letter (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  peer TEXT NOT NULL,
  seq INTEGER NOT NULL,
  entity TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  error TEXT NOT NULL,
  data TEXT NOT NULL,
  at bigint NOT NULL
);

CREATE TABLE app_user (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL,
  display_name TEXT,
  role TEXT NOT NULL CHECK (role IN ('admin', 'dispatcher', 'gate', 'billing', 'viewer')),
  yard_ids TEXT,
  password_hash TEXT NOT NULL,
  disabled INTEGER NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX app_user_username ON app_user (lower(username));

CREATE TABLE api_key (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'dispatcher', 'gate', 'billing', 'viewer')),
  yard_ids TEXT,
  secret_hash TEXT NOT NULL,
  created_by TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  revoked_at bigint,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE auth_token (
  token_hash TEXT PRIMARY KEY,
  principal_kind TEXT NOT NULL CHECK (principal_kind IN ('user', 'driver')),
  principal_id TEXT NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  revoked_at bigint
);
CREATE INDEX auth_token_principal ON auth_token (principal_kind, principal_id);

CREATE TABLE yard (
  id TEXT PRIMARY KEY,
  code TEXT NOT NULL,
  name TEXT NOT NULL,
  time_zone TEXT NOT NULL,
  address TEXT,
  capacity INTEGER,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  site_id TEXT NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX yard_code ON yard (lower(code));

CREATE TABLE location (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES yard (id),
  kind TEXT NOT NULL CHECK (kind IN ('spot', 'door', 'zone', 'staging')),
  name TEXT NOT NULL,
  capacity INTEGER NOT NULL DEFAULT 1,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX location_yard_name ON location (yard_id, lower(name));

CREATE TABLE gate (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES yard (id),
  name TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('in', 'out', 'both')),
  relay TEXT,
  camera_ids TEXT NOT NULL DEFAULT '[]',
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX gate_yard_name ON gate (yard_id, lower(name));

CREATE TABLE carrier (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  scac TEXT,
  usdot TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'blocked')),
  blocked_reason TEXT,
  contact TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX carrier_scac ON carrier (scac) WHERE scac IS NOT NULL;
CREATE INDEX carrier_name ON carrier (lower(name));

CREATE TABLE driver (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('yard', 'carrier')),
  carrier_id TEXT REFERENCES carrier (id),
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  phone TEXT,
  license_number TEXT,
  license_region TEXT,
  license_expires_on TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'blocked')),
  blocked_reason TEXT,
  driver_code TEXT,
  pin_hash TEXT,
  notes TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  field_hlc TEXT NOT NULL DEFAULT '{}',
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX driver_code ON driver (driver_code) WHERE driver_code IS NOT NULL;
CREATE INDEX driver_license ON driver (license_number, license_region);
CREATE INDEX driver_phone ON driver (phone);
CREATE INDEX driver_carrier ON driver (carrier_id);

CREATE TABLE truck (
  id TEXT PRIMARY KEY,
  carrier_id TEXT REFERENCES carrier (id),
  unit_number TEXT,
  plate TEXT,
  plate_region TEXT,
  vin TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'out_of_service', 'retired')),
  yard_id TEXT REFERENCES yard (id),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  field_hlc TEXT NOT NULL DEFAULT '{}',
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX truck_plate ON truck (plate);
CREATE INDEX truck_carrier ON truck (carrier_id);
CREATE INDEX truck_yard ON truck (yard_id);

CREATE TABLE truck_inspection (
  id TEXT PRIMARY KEY,
  truck_id TEXT NOT NULL REFERENCES truck (id),
  yard_id TEXT NOT NULL REFERENCES yard (id),
  inspected_at bigint NOT NULL,
  inspector_id TEXT,
  result TEXT NOT NULL CHECK (result IN ('pass', 'fail')),
  items TEXT NOT NULL DEFAULT '[]',
  odometer INTEGER,
  attachment_ids TEXT NOT NULL DEFAULT '[]',
  notes TEXT,
  created_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX truck_inspection_truck ON truck_inspection (truck_id, inspected_at);

CREATE TABLE trailer (
  id TEXT PRIMARY KEY,
  carrier_id TEXT REFERENCES carrier (id),
  number TEXT NOT NULL,
  plate TEXT,
  plate_region TEXT,
  type TEXT NOT NULL DEFAULT 'dry_van' CHECK (type IN ('dry_van', 'reefer', 'flatbed', 'container', 'chassis', 'tanker', 'other')),
  length_ft INTEGER,
  load_status TEXT NOT NULL DEFAULT 'unknown' CHECK (load_status IN ('empty', 'loaded', 'unknown')),
  seal_number TEXT,
  yard_id TEXT REFERENCES yard (id),
  location_id TEXT REFERENCES location (id),
  arrived_at bigint,
  notes TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  field_hlc TEXT NOT NULL DEFAULT '{}',
  version INTEGER NOT NULL DEFAULT 1,
  -- The API's JSON for this trailer (same fields and formats as trailerOut), kept by SQLite on every
  -- write so a list page is a concatenation instead of 50 x 17 values converted twice. Not synced.
  api_json TEXT GENERATED ALWAYS AS (json_object(
    'id', id, 'carrierId', carrier_id, 'number', number, 'plate', plate, 'plateRegion', plate_region,
    'type', type, 'lengthFt', length_ft, 'loadStatus', load_status, 'sealNumber', seal_number,
    'yardId', yard_id, 'locationId', location_id,
    'inYard', json(CASE WHEN yard_id IS NULL THEN 'false' ELSE 'true' END),
    'arrivedAt', CASE WHEN arrived_at IS NULL THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S', arrived_at / 1000, 'unixepoch') || '.' || printf('%03d', arrived_at % 1000) || 'Z' END,
    'notes', notes,
    'createdAt', CASE WHEN created_at IS NULL THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S', created_at / 1000, 'unixepoch') || '.' || printf('%03d', created_at % 1000) || 'Z' END,
    'updatedAt', CASE WHEN updated_at IS NULL THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S', updated_at / 1000, 'unixepoch') || '.' || printf('%03d', updated_at % 1000) || 'Z' END,
    'version', version)) STORED
);
CREATE INDEX trailer_yard ON trailer (yard_id, id);
CREATE INDEX trailer_carrier ON trailer (carrier_id, id);
CREATE INDEX trailer_number ON trailer (lower(number));
CREATE INDEX trailer_plate ON trailer (plate);

CREATE TABLE gate_actuation (
  id TEXT PRIMARY KEY,
  gate_id TEXT NOT NULL REFERENCES gate (id),
  yard_id TEXT NOT NULL REFERENCES yard (id),
  requested_by TEXT,
  requested_via TEXT NOT NULL CHECK (requested_via IN ('local', 'cloud')),
  reason TEXT,
  at bigint NOT NULL,
  result TEXT NOT NULL CHECK (result IN ('ok', 'fault', 'refused')),
  duration_ms INTEGER,
  error TEXT,
  movement_id TEXT REFERENCES movement (id),
  created_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX gate_actuation_gate ON gate_actuation (gate_id, at);
CREATE INDEX gate_actuation_movement ON gate_actuation (movement_id) WHERE movement_id IS NOT NULL;

CREATE TABLE movement (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES yard (id),
  gate_id TEXT REFERENCES gate (id),
  direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
  at bigint NOT NULL,
  truck_id TEXT REFERENCES truck (id),
  trailer_id TEXT REFERENCES trailer (id),
  driver_id TEXT REFERENCES driver (id),
  carrier_id TEXT REFERENCES carrier (id),
  location_id TEXT REFERENCES location (id),
  load_status TEXT CHECK (load_status IN ('empty', 'loaded', 'unknown')),
  seal_number TEXT,
  plate_read TEXT,
  attachment_ids TEXT NOT NULL DEFAULT '[]',
  actuation_id TEXT REFERENCES gate_actuation (id),
  operator_id TEXT,
  notes TEXT,
  warnings TEXT NOT NULL DEFAULT '[]',
  override_reason TEXT,
  corrects_id TEXT REFERENCES movement (id),
  created_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX movement_yard_at ON movement (yard_id, at, id);
CREATE INDEX movement_trailer_at ON movement (trailer_id, at);
CREATE INDEX movement_carrier_at ON movement (carrier_id, at);
CREATE INDEX movement_at ON movement (at);

-- Derived from movements in the same transaction; not synced (each side derives its own).
CREATE TABLE visit (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES yard (id),
  unit_kind TEXT NOT NULL CHECK (unit_kind IN ('trailer', 'truck')),
  trailer_id TEXT REFERENCES trailer (id),
  truck_id TEXT REFERENCES truck (id),
  carrier_id TEXT REFERENCES carrier (id),
  in_movement_id TEXT NOT NULL REFERENCES movement (id),
  out_movement_id TEXT REFERENCES movement (id),
  in_at bigint NOT NULL,
  out_at bigint
);
CREATE INDEX visit_yard_open ON visit (yard_id, out_at);
CREATE INDEX visit_trailer ON visit (trailer_id, in_at);
CREATE INDEX visit_truck ON visit (truck_id, in_at);
CREATE INDEX visit_carrier ON visit (yard_id, carrier_id, in_at);

CREATE TABLE attachment (
  id TEXT PRIMARY KEY,
  filename TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  ref_type TEXT,
  ref_id TEXT,
  created_by TEXT,
  created_by_kind TEXT,
  created_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX attachment_sha ON attachment (sha256);
CREATE INDEX attachment_ref ON attachment (ref_type, ref_id);

CREATE TABLE setting (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('global', 'site')),
  updated_by TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);

-- Client and server error responses per yard and minute, for the dashboard. Not synced.
CREATE TABLE http_error_stat (
  yard_id TEXT NOT NULL,
  minute bigint NOT NULL,
  status INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (yard_id, minute, status)
);
`;

/*
 * PostgreSQL: the translation (shared/db/postgres-ddl.ts) plus two changes it cannot make:
 * - gate_actuation.movement_id and movement.actuation_id reference each other. SQLite checks a
 *   foreign key only on writes, so gate_actuation can name movement before it exists; PostgreSQL
 *   needs the table, so that key is added once movement exists (same constraint, same name).
 * - api_json: PostgreSQL has no json_object/strftime, and a generated column may only use IMMUTABLE
 *   functions (to_json and to_char are STABLE: they could depend on settings for other types or
 *   patterns). Two small functions of ours, IMMUTABLE because they only handle text and integers,
 *   build the same text as SQLite's json_object, byte for byte (key order, no spaces, escapes,
 *   `2026-03-10T15:00:00.000Z` instants, null for what is unset or outside SQLite's dates), so a
 *   list page can concatenate it on either database. They call only built-ins, so they also work
 *   under pg_restore's empty search_path, which recomputes the column.
 */
const postgresJsonFunctions = `
-- JSON text of a string, escaped as SQLite's json_quote does (the same escapes as to_json on text);
-- null for NULL. IMMUTABLE: to_json of text depends on nothing but the text.
CREATE FUNCTION json_string_or_null(value text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(to_json(value)::text, 'null') $$;

-- strftime('%Y-%m-%dT%H:%M:%S', ms / 1000, 'unixepoch') || '.' || printf('%03d', ms % 1000) || 'Z'
-- as SQLite computes it, integer arithmetic truncating toward zero included; NULL outside SQLite's
-- date range (julian day 0 to 9999-12-31), where strftime gives NULL.
CREATE FUNCTION iso_utc_from_epoch_ms(ms bigint) RETURNS text
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
DECLARE
  secs bigint := ms / 1000;
  frac bigint := ms % 1000;
  t timestamp;
  y integer;
BEGIN
  IF secs < -210866760000 OR secs > 253402300799 THEN
    RETURN NULL;
  END IF;
  t := timestamp '1970-01-01 00:00:00' + secs * interval '1 second';
  y := extract(year FROM t);
  -- PostgreSQL has no year 0 (1 BC is -1); SQLite counts astronomically (1 BC is 0).
  IF y < 0 THEN
    y := y + 1;
  END IF;
  -- printf('%04d', y): at least 4 characters, the sign included.
  RETURN CASE WHEN y >= 0 THEN lpad(y::text, 4, '0')
              WHEN y > -100 THEN '-' || lpad((-y)::text, 3, '0')
              ELSE y::text END
    || '-' || lpad(extract(month FROM t)::text, 2, '0')
    || '-' || lpad(extract(day FROM t)::text, 2, '0')
    || 'T' || lpad(extract(hour FROM t)::text, 2, '0')
    || ':' || lpad(extract(minute FROM t)::text, 2, '0')
    || ':' || lpad(floor(extract(second FROM t))::text, 2, '0')
    || '.' || CASE WHEN frac >= 0 THEN lpad(frac::text, 3, '0')
                   WHEN frac > -10 THEN '-0' || (-frac)::text
                   ELSE frac::text END
    || 'Z';
END
$$;
`;

/*
 * PostgreSQL: change_log.seq comes from an identity sequence, and sequences are not transactional:
 * transaction A may take seq 9, B seq 10, and B commit first. A sender reading the log then could
 * send 10 without 9, and the peer's ack of 10 would skip 9 for ever (SQLite has one writer at a
 * time, so its seqs commit in order). A BEFORE INSERT ... FOR EACH STATEMENT trigger fires before
 * the statement computes any row (so before the identity default takes a seq) and takes a
 * transaction advisory lock that is held until commit or rollback: every transaction takes its
 * seqs and commits under the lock, one after the other, so seq order is commit order. The cost:
 * transactions that write change_log rows commit one at a time (the lock is released at commit).
 * test/integration/sync/change-log-order.test.ts checks the claim with concurrent writers.
 */
const changeLogSeqOrder = `
CREATE FUNCTION change_log_seq_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(${CHANGE_LOG_ORDER_LOCK_KEY});
  RETURN NULL;
END
$$;
CREATE TRIGGER change_log_seq_order BEFORE INSERT ON change_log
  FOR EACH STATEMENT EXECUTE FUNCTION change_log_seq_order();
`;

const sqliteApiJsonStart = up.indexOf('api_json TEXT GENERATED');
const sqliteApiJsonEnd = up.indexOf(')) STORED', sqliteApiJsonStart) + ')) STORED'.length;

export const upPostgres =
  postgresJsonFunctions +
  postgresTwin(up, [
    {
      sqlite: 'movement_id TEXT REFERENCES movement (id),\n  created_at bigint NOT NULL',
      postgres: 'movement_id TEXT COLLATE "C",\n  created_at bigint NOT NULL',
    },
    {
      sqlite: up.slice(sqliteApiJsonStart, sqliteApiJsonEnd),
      postgres: `api_json TEXT COLLATE "C" GENERATED ALWAYS AS (
    '{"id":' || json_string_or_null(id)
    || ',"carrierId":' || json_string_or_null(carrier_id)
    || ',"number":' || json_string_or_null(number)
    || ',"plate":' || json_string_or_null(plate)
    || ',"plateRegion":' || json_string_or_null(plate_region)
    || ',"type":' || json_string_or_null(type)
    || ',"lengthFt":' || coalesce(length_ft::text, 'null')
    || ',"loadStatus":' || json_string_or_null(load_status)
    || ',"sealNumber":' || json_string_or_null(seal_number)
    || ',"yardId":' || json_string_or_null(yard_id)
    || ',"locationId":' || json_string_or_null(location_id)
    || ',"inYard":' || CASE WHEN yard_id IS NULL THEN 'false' ELSE 'true' END
    || ',"arrivedAt":' || json_string_or_null(iso_utc_from_epoch_ms(arrived_at))
    || ',"notes":' || json_string_or_null(notes)
    || ',"createdAt":' || json_string_or_null(iso_utc_from_epoch_ms(created_at))
    || ',"updatedAt":' || json_string_or_null(iso_utc_from_epoch_ms(updated_at))
    || ',"version":' || coalesce(version::text, 'null')
    || '}') STORED`,
    },
  ]) +
  'ALTER TABLE gate_actuation ADD FOREIGN KEY (movement_id) REFERENCES movement (id);\n' +
  changeLogSeqOrder;
