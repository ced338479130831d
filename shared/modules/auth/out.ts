import type { Principal } from '../../auth/principal.js';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { CarrierUserRow } from './carrier-user-repo.js';
import type { ApiKeyRow, UserRow } from './repo.js';
import type { ApiKeyOutT, UserOutT } from './schema.js';

/** Row -> API mapping of users, API keys and principals. */

export function parseScope(value: string | null): string[] | null {
  return value === null ? null : (JSON.parse(value) as string[]);
}

export function principalOut(p: Principal) {
  return {
    kind: p.kind,
    id: p.id,
    name: p.name,
    role: p.role,
    yardIds: p.yardIds,
    ...(p.driverId ? { driverId: p.driverId } : {}),
    ...(p.carrierId ? { carrierId: p.carrierId } : {}),
  };
}

export function userOut(row: UserRow): UserOutT {
  return {
    id: row.id,
    username: row.username,
    displayName: row.displayName,
    role: row.role,
    carrierId: null,
    yardIds: parseScope(row.yardIds),
    disabled: row.disabled === 1,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}

export function carrierUserOut(row: CarrierUserRow): UserOutT {
  return {
    id: row.id,
    username: row.username,
    displayName: row.displayName,
    role: 'carrier',
    carrierId: row.carrierId,
    yardIds: parseScope(row.yardIds),
    disabled: row.disabled === 1,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}

export function apiKeyOut(row: ApiKeyRow): ApiKeyOutT {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    yardIds: parseScope(row.yardIds),
    createdBy: row.createdBy,
    createdAt: toIso(row.createdAt),
    revokedAt: toIsoOrNull(row.revokedAt),
  };
}
