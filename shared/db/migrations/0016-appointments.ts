/**
 * Dock appointments (docs/domain.md "Appointments"): a yard's scheduling config, its load types,
 * the appointments and each appointment's history.
 *
 * - scheduling_config: one row per yard (cloud-owned, synced so the site can classify arrivals and
 *   run the no-show sweep offline). open_hours: JSON {"1": [{"from": "06:00", "to": "18:00"}], ...}
 *   keyed by ISO weekday (1 = Monday), yard-local wall clock; closed_dates: JSON ["YYYY-MM-DD"].
 * - load_type: cloud-owned. door_ids: JSON array of door location ids, empty = every door.
 * - appointment: shared, split by field (docs/sync.md "Conflict rules"): the booking fields are the
 *   cloud's, the arrival fields (arrived_at, arrival, movement_id, docked_at, completed_at,
 *   departed_at, no_show_at) the yard's site's. There is no status column: the status follows from
 *   the times (shared/modules/appointments/status.ts), so a merge of fields can never leave a status
 *   that disagrees with them. code: 8 characters, unique per yard.
 * - appointment_event: the history (immutable; written by whichever side made the change).
 * - movement.appointment_id: the appointment a check-in matched (no foreign key: the movement may
 *   reach a peer before the appointment it names).
 */
export const up = `
CREATE TABLE scheduling_config (
  yard_id TEXT PRIMARY KEY REFERENCES yard (id),
  enabled INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
  open_hours TEXT NOT NULL DEFAULT '{}',
  closed_dates TEXT NOT NULL DEFAULT '[]',
  slot_minutes INTEGER NOT NULL DEFAULT 15 CHECK (slot_minutes BETWEEN 5 AND 60),
  lead_time_min_minutes INTEGER NOT NULL DEFAULT 120,
  lead_time_max_days INTEGER NOT NULL DEFAULT 30,
  change_cutoff_minutes INTEGER NOT NULL DEFAULT 240,
  late_grace_minutes INTEGER NOT NULL DEFAULT 15,
  no_show_after_minutes INTEGER NOT NULL DEFAULT 60,
  free_time_minutes INTEGER NOT NULL DEFAULT 120,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE load_type (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES yard (id),
  name TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('inbound', 'outbound', 'both')),
  duration_minutes INTEGER NOT NULL CHECK (duration_minutes BETWEEN 5 AND 1440),
  door_ids TEXT NOT NULL DEFAULT '[]',
  carrier_visible INTEGER NOT NULL DEFAULT 1 CHECK (carrier_visible IN (0, 1)),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX load_type_yard_name ON load_type (yard_id, lower(name));

CREATE TABLE appointment (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES yard (id),
  door_id TEXT NOT NULL REFERENCES location (id),
  load_type_id TEXT NOT NULL REFERENCES load_type (id),
  start_at bigint NOT NULL,
  end_at bigint NOT NULL,
  carrier_id TEXT NOT NULL REFERENCES carrier (id),
  refs TEXT NOT NULL DEFAULT '[]',
  trailer_number TEXT,
  truck_plate TEXT,
  driver_name TEXT,
  driver_phone TEXT,
  notes TEXT,
  code TEXT NOT NULL,
  override_reason TEXT,
  created_by TEXT,
  cancelled_at bigint,
  cancel_reason TEXT,
  arrived_at bigint,
  arrival TEXT CHECK (arrival IN ('early', 'on_time', 'late')),
  movement_id TEXT,
  docked_at bigint,
  completed_at bigint,
  departed_at bigint,
  no_show_at bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  field_hlc TEXT NOT NULL DEFAULT '{}',
  version INTEGER NOT NULL DEFAULT 1,
  CHECK (end_at > start_at)
);
CREATE UNIQUE INDEX appointment_yard_code ON appointment (yard_id, code);
CREATE INDEX appointment_yard_start ON appointment (yard_id, start_at);
CREATE INDEX appointment_door_start ON appointment (door_id, start_at);
CREATE INDEX appointment_carrier_start ON appointment (carrier_id, start_at);

CREATE TABLE appointment_event (
  id TEXT PRIMARY KEY,
  appointment_id TEXT NOT NULL REFERENCES appointment (id),
  yard_id TEXT NOT NULL REFERENCES yard (id),
  at bigint NOT NULL,
  kind TEXT NOT NULL,
  from_status TEXT,
  to_status TEXT,
  actor_id TEXT,
  actor_kind TEXT CHECK (actor_kind IN ('user', 'driver', 'api-key', 'system')),
  reason TEXT,
  detail TEXT,
  created_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX appointment_event_appointment ON appointment_event (appointment_id, at);

ALTER TABLE movement ADD COLUMN appointment_id TEXT;
`;
