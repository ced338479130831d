/**
 * Secrets this server makes for itself and keeps (local, never synced: no change_log, no hlc).
 * - login-device: the HMAC key of the login device cookies (shared/modules/auth/login-devices.ts).
 *   Kept in the database so every cloud node on one PostgreSQL signs and checks with the same key,
 *   and a restart keeps the devices trusted. Made by the first node that needs it.
 */
export const up = `
CREATE TABLE server_secret (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at bigint NOT NULL
);
`;
