/**
 * PostgreSQL only: the change log's triggers once per statement, not once per row (docs/sync.md
 * "Apply, ack, resume"). The sync applier writes the rows it forwards to other sites in one
 * statement (a site's trailers go to every other site: hundreds of rows); migration 0011 counted
 * them one row at a time (an upsert of the peer's sync_peer_count row and a read of its cursor per
 * row) and notified the peer once per row. Now, once per statement, from its transition table:
 * - sync_peer_count gets one addition per peer the statement wrote to, in peer order (any two
 *   transactions lock the peers' counters in the same order); the counts are the same as before
 *   (log rows per peer; acked rows: those at or below the peer's acknowledged position);
 * - each peer written to is notified once (NOTIFY sends one per transaction and payload anyway).
 * The other triggers of 0011 (a row deleted or moved, an ack, a dead letter) stay per row: they
 * write few rows per statement. SQLite's triggers stay as they are: its one writer runs them in
 * process, without round trips, and the counts are the same.
 */
export const up = '';

export const upPostgres = `
DROP TRIGGER change_log_count_insert ON change_log;
CREATE OR REPLACE FUNCTION change_log_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sync_peer_count AS c (peer, log_rows, acked_rows)
    SELECT l.peer, count(*), count(*) FILTER (WHERE l.seq <= coalesce(cur.acked_seq, 0))
    FROM change_log_logged l LEFT JOIN sync_cursor cur ON cur.peer = l.peer
    GROUP BY l.peer ORDER BY l.peer
    ON CONFLICT (peer) DO UPDATE SET
      log_rows = c.log_rows + excluded.log_rows,
      acked_rows = c.acked_rows + excluded.acked_rows;
  RETURN NULL;
END
$$;
CREATE TRIGGER change_log_count_insert AFTER INSERT ON change_log
  REFERENCING NEW TABLE AS change_log_logged
  FOR EACH STATEMENT EXECUTE FUNCTION change_log_count_insert();

DROP TRIGGER change_log_commit_signal ON change_log;
CREATE OR REPLACE FUNCTION yard_peer_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('yard_peer_logged', p.peer) FROM (SELECT DISTINCT peer FROM change_log_logged) p;
  RETURN NULL;
END
$$;
CREATE TRIGGER change_log_commit_signal AFTER INSERT ON change_log
  REFERENCING NEW TABLE AS change_log_logged
  FOR EACH STATEMENT EXECUTE FUNCTION yard_peer_logged();
`;
