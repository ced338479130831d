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

/**
 * Shared records split by field (docs/sync.md "Conflict rules"): the cloud books, the yard's site
 * records what happened. A site may change only these fields (its own), never create or delete
 * the record; every other field is the cloud's (a column added later is the cloud's too).
 * updatedAt changes with every write, so both sides write it (the merge keeps the later one).
 */
export const SITE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  appointment: [
    'arrivedAt',
    'arrival',
    'movementId',
    'dockedAt',
    'completedAt',
    'departedAt',
    'noShowAt',
    'updatedAt',
  ],
};

/** What a split record is called in a refusal, and where its other fields are made. */
const SPLIT_WORDS: Readonly<Record<string, { record: string; cloudPart: string }>> = {
  appointment: { record: 'an appointment', cloudPart: 'bookings are made and changed at the cloud' },
};

/** Columns every synced row carries for the sync itself: never a site's or the cloud's field. */
const BOOKKEEPING: ReadonlySet<string> = new Set(['hlc', 'fieldHlc', 'version', 'apiJson']);

/**
 * The fields of a split record's row that are the cloud's: all but the site's fields, its key and
 * the sync's bookkeeping. Empty for other records.
 */
export function cloudFieldsOf(entity: SyncedEntity, row: Record<string, unknown>): string[] {
  const site = SITE_FIELDS[entity.entity];
  if (!site) return [];
  return Object.keys(row).filter((f) => f !== entity.key && !BOOKKEEPING.has(f) && !site.includes(f));
}

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
  const split = splitWriteRefusal(entity, write);
  if (split !== null) return split;
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

/**
 * A split record (SITE_FIELDS): never created or deleted by a site, updated only in the site's
 * fields. null: not a split record (the other rules decide).
 */
function splitWriteRefusal(entity: SyncedEntity, write: SiteWrite): string | undefined | null {
  const siteFields = SITE_FIELDS[entity.entity];
  const words = SPLIT_WORDS[entity.entity];
  if (!siteFields || !words) return null;
  if (write.op === 'insert') return `a site may not create ${words.record}: ${words.cloudPart}`;
  if (write.op === 'delete') return `a site may not delete ${words.record}: ${words.cloudPart}`;
  const cloud = write.fields.filter((f) => !siteFields.includes(f) && !BOOKKEEPING.has(f));
  if (cloud.length > 0)
    return `a site may not change ${cloud.join(', ')} of ${words.record}: ${words.cloudPart}`;
  return undefined;
}

/** Deletes: drivers are organisation-wide (never a site's to delete); the rest only in the site's yards. */
export function deleteRefusal(
  entity: SyncedEntity,
  stored: Record<string, unknown>,
  ownYard: OwnYard,
): string | undefined {
  if (entity.entity === 'driver') return 'a site may not delete a driver (drivers are organisation-wide)';
  const split = splitWriteRefusal(entity, { op: 'delete' });
  if (split) return split;
  if (!ownYard(stored.yardId))
    return `a site may delete a ${entity.entity} only while it is in one of its yards`;
  return undefined;
}
