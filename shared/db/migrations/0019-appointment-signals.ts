/**
 * PostgreSQL only: the commit signal (migration 0011) for the appointment tables, so the cloud's
 * other nodes hear of a booking, an arrival or a config change as they do of every synced table
 * (shared/sync/postgres-commit-signals.ts). SQLite has one node and nothing to signal.
 */
const APPOINTMENT_TABLES = ['scheduling_config', 'load_type', 'appointment', 'appointment_event'];

export const up = '';

export const upPostgres = APPOINTMENT_TABLES.map(
  (t) =>
    `CREATE TRIGGER ${t}_commit_signal AFTER INSERT OR UPDATE OR DELETE ON ${t}\n  FOR EACH STATEMENT EXECUTE FUNCTION yard_table_changed();`,
).join('\n');
