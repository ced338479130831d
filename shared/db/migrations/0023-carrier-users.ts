import { commitSignalTriggers, toPostgresDdl } from '../postgres-ddl.js';

/**
 * Carrier users (docs/api.md "Roles and access", docs/sync.md "Conflict rules": cloud only): a login
 * bound to one carrier, created by an admin at the cloud (or a standalone edge). A table of its own,
 * not app_user: app_user is synced to the sites, and a table that is not in SYNCED_ENTITIES can never
 * reach a site's change_log or snapshot, password hashes included. No hlc, no change_log.
 *
 * The username is unique case-blind here (the index) and across app_user (checked under a lock by
 * shared/modules/auth/users.ts, since one index cannot span two tables). yard_ids: JSON array, NULL =
 * every yard. Tokens of carrier users are auth_token rows of principal_kind 'user', as staff's.
 */
export const up = `
CREATE TABLE carrier_user (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL,
  display_name TEXT,
  carrier_id TEXT NOT NULL REFERENCES carrier (id),
  yard_ids TEXT,
  password_hash TEXT NOT NULL,
  disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  created_by TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX carrier_user_username ON carrier_user (lower(username));
CREATE INDEX carrier_user_carrier ON carrier_user (carrier_id);
`;

/** PostgreSQL: the translation plus the commit signal, so other cloud nodes drop cached principals. */
export const upPostgres = `${toPostgresDdl(up)}
${commitSignalTriggers(['carrier_user'])}
`;
