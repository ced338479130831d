/**
 * Yard tasking: tasks and their events, driver sessions with location pings, push tokens.
 * Same conventions as 0001. Statuses are upper case as in the state machine (docs/domain.md "State machine").
 */
export const up = `
CREATE TABLE yard_task (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES yard (id),
  type TEXT NOT NULL CHECK (type IN ('move', 'pull_to_door', 'return_to_spot', 'shunt', 'inspect', 'other')),
  trailer_id TEXT REFERENCES trailer (id),
  from_location_id TEXT REFERENCES location (id),
  to_location_id TEXT REFERENCES location (id),
  priority INTEGER NOT NULL DEFAULT 1 CHECK (priority BETWEEN 0 AND 3),
  status TEXT NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'ASSIGNED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED')),
  driver_id TEXT REFERENCES driver (id),
  notes TEXT,
  due_at bigint,
  created_by TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  assigned_at bigint,
  started_at bigint,
  completed_at bigint,
  cancelled_at bigint,
  cancel_reason TEXT,
  -- The carrier a completed move is billed to (the trailer's carrier at completion).
  billed_carrier_id TEXT REFERENCES carrier (id),
  hlc TEXT NOT NULL,
  field_hlc TEXT NOT NULL DEFAULT '{}',
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX yard_task_queue ON yard_task (yard_id, status, priority DESC, created_at, id);
CREATE INDEX yard_task_driver ON yard_task (driver_id, status);
CREATE INDEX yard_task_status ON yard_task (status, id);
CREATE INDEX yard_task_yard_id ON yard_task (yard_id, id);
CREATE INDEX yard_task_completed ON yard_task (yard_id, completed_at);
CREATE INDEX yard_task_started ON yard_task (yard_id, started_at);

CREATE TABLE task_event (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL REFERENCES yard_task (id),
  yard_id TEXT NOT NULL REFERENCES yard (id),
  at bigint NOT NULL,
  actor_id TEXT,
  actor_kind TEXT CHECK (actor_kind IN ('user', 'driver', 'api-key', 'system')),
  from_status TEXT,
  to_status TEXT NOT NULL,
  driver_id TEXT,
  reason TEXT,
  lat REAL,
  lon REAL,
  created_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX task_event_task ON task_event (task_id, at);

CREATE TABLE driver_session (
  id TEXT PRIMARY KEY,
  driver_id TEXT NOT NULL REFERENCES driver (id),
  yard_id TEXT NOT NULL REFERENCES yard (id),
  device_id TEXT,
  started_at bigint NOT NULL,
  ended_at bigint,
  end_reason TEXT,
  last_check_at bigint,
  last_lat REAL,
  last_lon REAL,
  last_location_at bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX driver_session_driver ON driver_session (driver_id, ended_at);
CREATE INDEX driver_session_yard_open ON driver_session (yard_id, ended_at);

CREATE TABLE session_location (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES driver_session (id),
  at bigint NOT NULL,
  lat REAL NOT NULL,
  lon REAL NOT NULL,
  accuracy_m REAL,
  speed REAL,
  heading REAL,
  created_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX session_location_session ON session_location (session_id, at);
CREATE INDEX session_location_at ON session_location (at);

CREATE TABLE push_token (
  id TEXT PRIMARY KEY,
  driver_id TEXT NOT NULL REFERENCES driver (id),
  device_id TEXT NOT NULL,
  platform TEXT NOT NULL CHECK (platform IN ('web', 'android', 'ios')),
  token TEXT NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX push_token_device ON push_token (driver_id, device_id);
`;
