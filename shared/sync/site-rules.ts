import type { SyncedEntity } from './entities.js';

/**
 * What a site (an edge linked to a cloud) may do to a shared record (docs/sync.md "Trust"). One home for
 * the rule: a linked edge's write guard (ownership.ts) refuses these writes with 409 `cloud-owned`,
 * and the cloud's SiteTrust refuses or strips them in what a site sends, so both sides agree.
 */

/**
 * Fields of shared records that only the cloud sets: who may log in (driver code, PIN) and who may
 * pass the gate (a block). A site's value for them never wins a merge at the cloud.
 */
export const CLOUD_ONLY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  driver: ['pinHash', 'driverCode', 'status', 'blockedReason'],
};

/** Values a record made at a site must have in its cloud-only fields (the defaults). */
const SITE_DEFAULTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  driver: { pinHash: null, driverCode: null, status: 'active', blockedReason: null },
};

export type SiteWrite = { op: 'insert' } | { op: 'update'; fields: readonly string[] } | { op: 'delete' };

/** `yardId` names a yard of this site (at an edge: a yard it holds; at the cloud: of the sending site). */
export type OwnYard = (yardId: unknown) => boolean;

/**
 * Why a site may not make this write to a shared record, or undefined when it may.
 * `row`: the new row (insert) or the stored row (update, delete).
 */
export function sharedWriteRefusal(
  entity: SyncedEntity,
  row: Record<string, unknown>,
  write: SiteWrite,
  ownYard: OwnYard,
): string | undefined {
  const cloudOnly = CLOUD_ONLY_FIELDS[entity.entity] ?? [];
  if (write.op === 'insert') {
    const defaults = SITE_DEFAULTS[entity.entity] ?? {};
    const set = cloudOnly.filter((f) => row[f] !== undefined && row[f] !== defaults[f]);
    if (set.length > 0) return `a site may not set ${set.join(', ')} of a ${entity.entity}`;
    return undefined;
  }
  if (write.op === 'update') {
    const set = cloudOnly.filter((f) => write.fields.includes(f));
    if (set.length > 0) return `a site may not change ${set.join(', ')} of a ${entity.entity}`;
    return undefined;
  }
  return deleteRefusal(entity, row, ownYard);
}

/** Deletes: drivers are organisation-wide (never a site's to delete); the rest only in the site's yards. */
export function deleteRefusal(
  entity: SyncedEntity,
  stored: Record<string, unknown>,
  ownYard: OwnYard,
): string | undefined {
  if (entity.entity === 'driver') return 'a site may not delete a driver (drivers are organisation-wide)';
  if (!ownYard(stored.yardId))
    return `a site may delete a ${entity.entity} only while it is in one of its yards`;
  return undefined;
}
