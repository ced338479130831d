/** Who may sign in: staff users, API keys and the tokens they were issued. */
import type { Generated } from 'kysely';
import type { StaffRole } from '../../enums.js';
import type { Synced, Timestamps } from './columns.js';

export interface AppUserTable extends Synced, Timestamps {
  id: string;
  username: string;
  displayName: string | null;
  role: StaffRole;
  yardIds: string | null;
  passwordHash: string;
  disabled: Generated<number>;
}

/**
 * A carrier user (migration 0023): cloud only, never synced (no hlc). Its tokens are auth_token rows
 * of principal_kind 'user', resolved here when no app_user has the id.
 */
export interface CarrierUserTable extends Timestamps {
  id: string;
  username: string;
  displayName: string | null;
  carrierId: string;
  yardIds: string | null;
  passwordHash: string;
  disabled: Generated<number>;
  createdBy: string | null;
  version: Generated<number>;
}

export interface ApiKeyTable extends Synced, Timestamps {
  id: string;
  name: string;
  role: StaffRole;
  yardIds: string | null;
  secretHash: string;
  createdBy: string | null;
  revokedAt: number | null;
}

export interface AuthTokenTable {
  tokenHash: string;
  principalKind: 'user' | 'driver';
  principalId: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

/** Secrets the server made for itself (migration 0015), e.g. the login device cookies' key. */
export interface ServerSecretTable {
  name: string;
  value: string;
  createdAt: number;
}
