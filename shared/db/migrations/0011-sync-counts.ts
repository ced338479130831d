import { postgresTwin } from '../postgres-ddl.js';

/**
 * Queue depths and dead letters per peer without counting rows on each status read (docs/architecture.md "Layering rules", read models:
 * /api/sync/status and /readyz counted every site's queue per call, growing with the backlog).
 *
 * sync_peer_count holds, per peer: `log_rows`, the change_log rows for it; `acked_rows`, those of
 * them at or below its sync_cursor.acked_seq; `dead_letters`, its dead_letter rows. The queue is
 * `log_rows - acked_rows`. change_log.seq is one counter over every peer, so a seq range says
 * nothing about how many of a peer's rows it holds: the counts are kept by triggers, in the
 * transaction of the write that changes them, whichever code writes (the change-log writer, a
 * forwarded row, a snapshot, pruning, a stream rotation, a resync):
 * - a change_log row inserted or deleted moves `log_rows`, and `acked_rows` when its seq is at or
 *   below the peer's acknowledged position (pruning deletes only such rows);
 * - the acknowledged position moving counts only the rows between the old and the new position
 *   (index range on change_log (peer, seq)): an ack moves it by the batches in flight, so the
 *   count is bounded by them; going back (a replaced peer database, a rotation to 0) is rare;
 * - a dead_letter row inserted or deleted moves `dead_letters`.
 * The counts are backfilled from the rows present when this migration runs.
 *
 * site.reported_gates: each gate's relay state as the site's last status reported it, JSON
 * `[{gateId, state}]`; null until a site reports gates (an edge older than this).
 */
export const up = `
CREATE TABLE sync_peer_count (
  peer TEXT PRIMARY KEY,
  log_rows INTEGER NOT NULL DEFAULT 0,
  acked_rows INTEGER NOT NULL DEFAULT 0,
  dead_letters INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO sync_peer_count (peer, log_rows)
  SELECT peer, count(*) FROM change_log GROUP BY peer;
INSERT INTO sync_peer_count (peer) SELECT peer FROM sync_cursor WHERE true
  ON CONFLICT (peer) DO NOTHING;
INSERT INTO sync_peer_count (peer) SELECT DISTINCT peer FROM dead_letter WHERE true
  ON CONFLICT (peer) DO NOTHING;
UPDATE sync_peer_count SET
  acked_rows = (
    SELECT count(*) FROM change_log l, sync_cursor c
    WHERE c.peer = sync_peer_count.peer AND l.peer = c.peer AND l.seq <= c.acked_seq
  ),
  dead_letters = (SELECT count(*) FROM dead_letter d WHERE d.peer = sync_peer_count.peer);

CREATE TRIGGER change_log_count_insert AFTER INSERT ON change_log BEGIN
  INSERT INTO sync_peer_count (peer, log_rows, acked_rows)
    VALUES (NEW.peer, 1, NEW.seq <= coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = NEW.peer), 0))
    ON CONFLICT (peer) DO UPDATE SET
      log_rows = log_rows + 1,
      acked_rows = acked_rows + excluded.acked_rows;
END;

CREATE TRIGGER change_log_count_delete AFTER DELETE ON change_log BEGIN
  UPDATE sync_peer_count SET
    log_rows = log_rows - 1,
    acked_rows = acked_rows - (OLD.seq <= coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = OLD.peer), 0))
  WHERE peer = OLD.peer;
END;

CREATE TRIGGER change_log_count_update AFTER UPDATE OF peer, seq ON change_log BEGIN
  UPDATE sync_peer_count SET
    log_rows = log_rows - 1,
    acked_rows = acked_rows - (OLD.seq <= coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = OLD.peer), 0))
  WHERE peer = OLD.peer;
  INSERT INTO sync_peer_count (peer, log_rows, acked_rows)
    VALUES (NEW.peer, 1, NEW.seq <= coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = NEW.peer), 0))
    ON CONFLICT (peer) DO UPDATE SET
      log_rows = log_rows + 1,
      acked_rows = acked_rows + excluded.acked_rows;
END;

CREATE TRIGGER sync_cursor_count_insert AFTER INSERT ON sync_cursor BEGIN
  INSERT INTO sync_peer_count (peer, acked_rows)
    VALUES (NEW.peer, (SELECT count(*) FROM change_log WHERE peer = NEW.peer AND seq <= NEW.acked_seq))
    ON CONFLICT (peer) DO UPDATE SET acked_rows = excluded.acked_rows;
END;

CREATE TRIGGER sync_cursor_count_update AFTER UPDATE OF peer, acked_seq ON sync_cursor
  WHEN NEW.acked_seq <> OLD.acked_seq OR NEW.peer <> OLD.peer BEGIN
  UPDATE sync_peer_count SET acked_rows = 0 WHERE peer = OLD.peer AND OLD.peer <> NEW.peer;
  INSERT INTO sync_peer_count (peer) VALUES (NEW.peer) ON CONFLICT (peer) DO NOTHING;
  UPDATE sync_peer_count SET acked_rows = CASE
      WHEN OLD.peer <> NEW.peer THEN
        (SELECT count(*) FROM change_log WHERE peer = NEW.peer AND seq <= NEW.acked_seq)
      WHEN NEW.acked_seq > OLD.acked_seq THEN acked_rows +
        (SELECT count(*) FROM change_log WHERE peer = NEW.peer AND seq > OLD.acked_seq AND seq <= NEW.acked_seq)
      ELSE acked_rows -
        (SELECT count(*) FROM change_log WHERE peer = NEW.peer AND seq > NEW.acked_seq AND seq <= OLD.acked_seq)
    END
  WHERE peer = NEW.peer;
END;

CREATE TRIGGER sync_cursor_count_delete AFTER DELETE ON sync_cursor BEGIN
  UPDATE sync_peer_count SET acked_rows = 0 WHERE peer = OLD.peer;
END;

CREATE TRIGGER dead_letter_count_insert AFTER INSERT ON dead_letter BEGIN
  INSERT INTO sync_peer_count (peer, dead_letters) VALUES (NEW.peer, 1)
    ON CONFLICT (peer) DO UPDATE SET dead_letters = dead_letters + 1;
END;

CREATE TRIGGER dead_letter_count_delete AFTER DELETE ON dead_letter BEGIN
  UPDATE sync_peer_count SET dead_letters = dead_letters - 1 WHERE peer = OLD.peer;
END;

CREATE TRIGGER dead_letter_count_update AFTER UPDATE OF peer ON dead_letter
  WHEN NEW.peer <> OLD.peer BEGIN
  UPDATE sync_peer_count SET dead_letters = dead_letters - 1 WHERE peer = OLD.peer;
  INSERT INTO sync_peer_count (peer, dead_letters) VALUES (NEW.peer, 1)
    ON CONFLICT (peer) DO UPDATE SET dead_letters = dead_letters + 1;
END;

ALTER TABLE site ADD COLUMN reported_gates TEXT;
`;

/*
 * PostgreSQL: the same triggers with the same effects, as plpgsql trigger functions (PostgreSQL
 * triggers run a function; SQLite's have an inline body). Each keeps SQLite's trigger name, its
 * events (`UPDATE OF` columns) and WHEN condition, and its statements; a comparison that SQLite
 * uses as 0/1 is cast with ::int. Row triggers AFTER the statement (PostgreSQL) instead of after
 * each row (SQLite) change nothing here: no trigger reads the table its statement writes.
 * Concurrent writers (several cloud nodes) stay exact: every change is a relative update of the
 * peer's count row, which PostgreSQL locks and re-reads (READ COMMITTED) before applying it. An ack
 * counts the change_log rows it covers as this transaction sees them, so it must never cover a row
 * not yet committed; it does not, as a peer acknowledges only rows it was sent, after their commit.
 */
const sqliteTriggersStart = up.indexOf('CREATE TRIGGER change_log_count_insert');
const sqliteTriggersEnd = up.indexOf('ALTER TABLE site ADD COLUMN reported_gates');

/*
 * PostgreSQL only: the signals by which the cloud's nodes hear what the others committed
 * (shared/sync/postgres-commit-signals.ts). NOTIFY is transactional: sent at commit, only if the
 * transaction commits, and the same payload once per transaction however many rows it wrote.
 * - every table a node caches answers from (the synced ones, visits derived from movements, and
 *   auth_token for cached principals) notifies its name after each statement that wrote it;
 * - change_log notifies the peer of each row, so the node that sends to that site wakes.
 * SQLite has one process per database: these have no twin there. A table added later that nodes
 * cache from needs its trigger in its own migration's twin (postgres-schema.test.ts checks).
 */
const SIGNALLED_TABLES = [
  'app_user',
  'api_key',
  'yard',
  'location',
  'gate',
  'carrier',
  'driver',
  'truck',
  'truck_inspection',
  'trailer',
  'gate_actuation',
  'movement',
  'attachment',
  'setting',
  'yard_task',
  'task_event',
  'driver_session',
  'session_location',
  'push_token',
  'integration',
  'camera',
  'visit',
  'auth_token',
];

const commitSignals = `
CREATE FUNCTION yard_table_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('yard_table_changed', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
${SIGNALLED_TABLES.map(
  (t) =>
    `CREATE TRIGGER ${t}_commit_signal AFTER INSERT OR UPDATE OR DELETE ON ${t}\n  FOR EACH STATEMENT EXECUTE FUNCTION yard_table_changed();`,
).join('\n')}

CREATE FUNCTION yard_peer_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('yard_peer_logged', NEW.peer);
  RETURN NULL;
END
$$;
CREATE TRIGGER change_log_commit_signal AFTER INSERT ON change_log
  FOR EACH ROW EXECUTE FUNCTION yard_peer_logged();
`;

const postgresTriggers = `
CREATE FUNCTION change_log_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sync_peer_count AS c (peer, log_rows, acked_rows)
    VALUES (NEW.peer, 1, (NEW.seq <= coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = NEW.peer), 0))::int)
    ON CONFLICT (peer) DO UPDATE SET
      log_rows = c.log_rows + 1,
      acked_rows = c.acked_rows + excluded.acked_rows;
  RETURN NULL;
END
$$;
CREATE TRIGGER change_log_count_insert AFTER INSERT ON change_log
  FOR EACH ROW EXECUTE FUNCTION change_log_count_insert();

CREATE FUNCTION change_log_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sync_peer_count SET
    log_rows = log_rows - 1,
    acked_rows = acked_rows - (OLD.seq <= coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = OLD.peer), 0))::int
  WHERE peer = OLD.peer;
  RETURN NULL;
END
$$;
CREATE TRIGGER change_log_count_delete AFTER DELETE ON change_log
  FOR EACH ROW EXECUTE FUNCTION change_log_count_delete();

CREATE FUNCTION change_log_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sync_peer_count SET
    log_rows = log_rows - 1,
    acked_rows = acked_rows - (OLD.seq <= coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = OLD.peer), 0))::int
  WHERE peer = OLD.peer;
  INSERT INTO sync_peer_count AS c (peer, log_rows, acked_rows)
    VALUES (NEW.peer, 1, (NEW.seq <= coalesce((SELECT acked_seq FROM sync_cursor WHERE peer = NEW.peer), 0))::int)
    ON CONFLICT (peer) DO UPDATE SET
      log_rows = c.log_rows + 1,
      acked_rows = c.acked_rows + excluded.acked_rows;
  RETURN NULL;
END
$$;
CREATE TRIGGER change_log_count_update AFTER UPDATE OF peer, seq ON change_log
  FOR EACH ROW EXECUTE FUNCTION change_log_count_update();

CREATE FUNCTION sync_cursor_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sync_peer_count (peer, acked_rows)
    VALUES (NEW.peer, (SELECT count(*) FROM change_log WHERE peer = NEW.peer AND seq <= NEW.acked_seq))
    ON CONFLICT (peer) DO UPDATE SET acked_rows = excluded.acked_rows;
  RETURN NULL;
END
$$;
CREATE TRIGGER sync_cursor_count_insert AFTER INSERT ON sync_cursor
  FOR EACH ROW EXECUTE FUNCTION sync_cursor_count_insert();

CREATE FUNCTION sync_cursor_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sync_peer_count SET acked_rows = 0 WHERE peer = OLD.peer AND OLD.peer <> NEW.peer;
  INSERT INTO sync_peer_count (peer) VALUES (NEW.peer) ON CONFLICT (peer) DO NOTHING;
  UPDATE sync_peer_count SET acked_rows = CASE
      WHEN OLD.peer <> NEW.peer THEN
        (SELECT count(*) FROM change_log WHERE peer = NEW.peer AND seq <= NEW.acked_seq)
      WHEN NEW.acked_seq > OLD.acked_seq THEN acked_rows +
        (SELECT count(*) FROM change_log WHERE peer = NEW.peer AND seq > OLD.acked_seq AND seq <= NEW.acked_seq)
      ELSE acked_rows -
        (SELECT count(*) FROM change_log WHERE peer = NEW.peer AND seq > NEW.acked_seq AND seq <= OLD.acked_seq)
    END
  WHERE peer = NEW.peer;
  RETURN NULL;
END
$$;
CREATE TRIGGER sync_cursor_count_update AFTER UPDATE OF peer, acked_seq ON sync_cursor
  FOR EACH ROW WHEN (NEW.acked_seq <> OLD.acked_seq OR NEW.peer <> OLD.peer)
  EXECUTE FUNCTION sync_cursor_count_update();

CREATE FUNCTION sync_cursor_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sync_peer_count SET acked_rows = 0 WHERE peer = OLD.peer;
  RETURN NULL;
END
$$;
CREATE TRIGGER sync_cursor_count_delete AFTER DELETE ON sync_cursor
  FOR EACH ROW EXECUTE FUNCTION sync_cursor_count_delete();

CREATE FUNCTION dead_letter_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sync_peer_count AS c (peer, dead_letters) VALUES (NEW.peer, 1)
    ON CONFLICT (peer) DO UPDATE SET dead_letters = c.dead_letters + 1;
  RETURN NULL;
END
$$;
CREATE TRIGGER dead_letter_count_insert AFTER INSERT ON dead_letter
  FOR EACH ROW EXECUTE FUNCTION dead_letter_count_insert();

CREATE FUNCTION dead_letter_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sync_peer_count SET dead_letters = dead_letters - 1 WHERE peer = OLD.peer;
  RETURN NULL;
END
$$;
CREATE TRIGGER dead_letter_count_delete AFTER DELETE ON dead_letter
  FOR EACH ROW EXECUTE FUNCTION dead_letter_count_delete();

CREATE FUNCTION dead_letter_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sync_peer_count SET dead_letters = dead_letters - 1 WHERE peer = OLD.peer;
  INSERT INTO sync_peer_count AS c (peer, dead_letters) VALUES (NEW.peer, 1)
    ON CONFLICT (peer) DO UPDATE SET dead_letters = c.dead_letters + 1;
  RETURN NULL;
END
$$;
CREATE TRIGGER dead_letter_count_update AFTER UPDATE OF peer ON dead_letter
  FOR EACH ROW WHEN (NEW.peer <> OLD.peer)
  EXECUTE FUNCTION dead_letter_count_update();
${commitSignals}
`;

export const upPostgres = postgresTwin(up, [
  { sqlite: up.slice(sqliteTriggersStart, sqliteTriggersEnd), postgres: postgresTriggers },
]);
