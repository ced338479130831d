import type BetterSqlite3 from 'better-sqlite3';
import { ConflictError } from '../http/errors.js';
import type { SyncMode } from '../role-profile.js';
import type { SyncedEntity } from './entities.js';
import { type OwnYard, type SiteWrite, sharedWriteRefusal } from './site-rules.js';

/** Which side may write a record when an edge is linked to a cloud (docs/domain.md "Records and who owns them"). */
export type Owner = 'edge' | 'cloud' | 'both';

type AnyRow = Record<string, unknown>;

/**
 * The owner of one row. Per table (entities.ts) except where the domain splits a table (docs/domain.md "Records and who owns them"):
 * - camera: an ONVIF camera belongs to its edge (only the edge reaches it), a provider camera to the cloud;
 * - setting: a global setting belongs to the cloud, a site setting to the edge;
 * - task_event, appointment_event and attachment: whoever made them ("creator, immutable"); both
 *   sides may insert (an appointment's history: booked at the cloud, arrived at the site).
 * Shared records (tasks, trucks, trailers, drivers) are written on both sides and merged per field.
 */
export function ownerOf(entity: SyncedEntity, row: AnyRow | undefined): Owner {
  switch (entity.entity) {
    case 'camera':
      return row?.source === 'provider' ? 'cloud' : 'edge';
    case 'setting':
      return row?.scope === 'site' ? 'edge' : 'cloud';
    case 'task_event':
    case 'attachment':
    case 'appointment_event':
      return 'both';
  }
  switch (entity.ownership) {
    case 'cloud':
      return 'cloud';
    case 'shared':
      return 'both';
    default:
      return 'edge';
  }
}

/** Whether ownerOf needs the row (else the table alone decides). */
export function ownerDependsOnRow(entity: SyncedEntity): boolean {
  return entity.entity === 'camera' || entity.entity === 'setting';
}

/**
 * Decides whether this side may write a row: undefined when it may, else the 409 to answer.
 * ChangeCapture asks it for every insert (the new row), update (the stored row and the row as
 * patched) and delete (the stored row), so no write path can get around it.
 */
export type WriteGuard = (
  entity: SyncedEntity,
  row: AnyRow | undefined,
  write?: SiteWrite,
) => ConflictError | undefined;

/** A standalone edge (and a test without sync) owns everything. */
export const allowEveryWrite: WriteGuard = () => undefined;

/**
 * The guard for a sync mode. A linked edge refuses cloud-owned records (409 `cloud-owned`), the
 * cloud refuses edge-owned ones (409 `edge-owned`); records owned by both are written on both sides.
 * `siteOf` names the site whose edge owns a row, for the cloud's answer (optional: the answer
 * then says "the site's edge"). Chosen once (shared/app.ts): a guard never asks the mode per write.
 */
export function writeGuard(
  mode: SyncMode,
  siteOf?: (row: AnyRow) => string | undefined,
  ownYard: OwnYard = () => true,
): WriteGuard {
  const guards: Record<SyncMode, () => WriteGuard> = {
    standalone: () => allowEveryWrite,
    linked: () => linkedEdgeGuard(ownYard),
    cloud: () => cloudGuard(siteOf),
  };
  return guards[mode]();
}

/** A linked edge: cloud-owned records are the cloud's, shared ones only as a site may change them. */
function linkedEdgeGuard(ownYard: OwnYard): WriteGuard {
  return (entity, row, write) => {
    if (ownerOf(entity, row) === 'cloud') return cloudOwned(entity);
    // A linked edge makes only the changes the cloud accepts from a site (site-rules.ts).
    // Without the row (an up-front check, assertMayWrite) only inserts and updates can be judged.
    if (entity.ownership === 'shared' && write && (row || write.op !== 'delete')) {
      const refusal = sharedWriteRefusal(entity, row ?? {}, write, ownYard);
      if (refusal) return cloudOwnedField(entity, refusal);
    }
    return undefined;
  };
}

/** The cloud: edge-owned records are written at their site's edge. */
function cloudGuard(siteOf?: (row: AnyRow) => string | undefined): WriteGuard {
  return (entity, row) =>
    ownerOf(entity, row) === 'edge' ? edgeOwned(entity, row && siteOf?.(row)) : undefined;
}

/** A yard this database holds: at an edge, exactly the yards of its site. */
export function heldYard(sqlite: BetterSqlite3.Database): OwnYard {
  return (yardId) =>
    typeof yardId === 'string' && sqlite.prepare('SELECT 1 FROM yard WHERE id = ?').get(yardId) !== undefined;
}

function cloudOwnedField(entity: SyncedEntity, refusal: string): ConflictError {
  const split = SPLIT_MESSAGES[entity.entity];
  if (split) return new ConflictError('cloud-owned', split, { owner: 'cloud', entity: entity.entity });
  return new ConflictError(
    'cloud-owned',
    `This edge is linked to a cloud and ${refusal}: driver codes, PINs and blocks, and deleting ` +
      'organisation-wide records, are managed in the cloud. Make the change in the cloud dashboard; ' +
      'it reaches this site with the next sync.',
    { owner: 'cloud', entity: entity.entity },
  );
}

function cloudOwned(entity: SyncedEntity): ConflictError {
  const what = CLOUD_OWNED_NAMES[entity.entity] ?? `Records of kind ${entity.entity}`;
  return new ConflictError(
    'cloud-owned',
    `${what} are managed in the cloud: this edge is linked to it and keeps a read-only copy. ` +
      'Change it in the cloud dashboard; the change reaches this site with the next sync.',
    { owner: 'cloud', entity: entity.entity },
  );
}

function edgeOwned(entity: SyncedEntity, siteId: string | undefined): ConflictError {
  const what = EDGE_OWNED_NAMES[entity.entity] ?? `Records of kind ${entity.entity}`;
  const where = siteId ? `site ${siteId}'s edge` : "the site's edge";
  return new ConflictError(
    'edge-owned',
    `${what} belong to the edge of the yard site, where they are made; the cloud keeps what the ` +
      `edge sends. This record belongs to ${where}; change it there.`,
    { owner: 'edge', entity: entity.entity, ...(siteId ? { siteId } : {}) },
  );
}

/**
 * The answer to a write a site may not make to a record split by field (site-rules.ts SITE_FIELDS),
 * in the words of the person at the yard.
 */
const SPLIT_MESSAGES: Record<string, string> = {
  appointment:
    'Appointments are booked in the cloud: this edge is linked to it. Book, reschedule or cancel ' +
    'the appointment in the cloud dashboard; arrivals, docking and no-shows are still recorded here.',
};

const CLOUD_OWNED_NAMES: Record<string, string> = {
  scheduling_config: 'Scheduling settings',
  load_type: 'Load types',
  user: 'Users',
  api_key: 'API keys',
  yard: 'Yards',
  location: 'Yard locations',
  carrier: 'Carriers',
  integration: 'Integrations',
  setting: 'Global settings',
  camera: 'Provider cameras',
};

const EDGE_OWNED_NAMES: Record<string, string> = {
  gate: 'Gates',
  truck_inspection: 'Truck inspections',
  gate_actuation: 'Gate actuations',
  movement: 'Gate movements',
  setting: 'Site settings',
  driver_session: 'Driver sessions',
  session_location: 'Driver locations',
  push_token: 'Push tokens',
  camera: 'ONVIF cameras',
};

/**
 * The site whose edge owns a row, read from the cloud's copy of the yards (synchronously, on the
 * connection that may hold the write's open transaction). Only asked when a write is refused.
 */
export function siteOfRow(sqlite: BetterSqlite3.Database): (row: AnyRow) => string | undefined {
  const query = (sql: string, id: unknown): string | undefined => {
    if (typeof id !== 'string') return undefined;
    const found = sqlite.prepare(sql).pluck().get(id);
    return typeof found === 'string' ? found : undefined;
  };
  return (row) => {
    if (row.yardId !== undefined) return query('SELECT site_id FROM yard WHERE id = ?', row.yardId);
    if (row.gateId !== undefined) {
      return query('SELECT y.site_id FROM gate g JOIN yard y ON y.id = g.yard_id WHERE g.id = ?', row.gateId);
    }
    if (row.sessionId !== undefined) {
      return query(
        'SELECT y.site_id FROM driver_session s JOIN yard y ON y.id = s.yard_id WHERE s.id = ?',
        row.sessionId,
      );
    }
    return undefined;
  };
}
