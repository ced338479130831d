import type { DB } from '../db/tables.js';

/**
 * Every record that syncs between edge and cloud (docs/sync.md "Conflict rules"), with its conflict rule.
 * This list drives change capture: writes to these tables are refused unless they go through
 * ChangeCapture, which writes the change_log row in the same transaction.
 */
export type Ownership =
  | 'edge-immutable' // insert if absent by id; never updated
  | 'edge-mutable' // edge wins
  | 'cloud' // cloud wins; a linked edge answers writes with 409 cloud-owned
  | 'shared'; // per-field last-writer-wins by HLC

export interface SyncedEntity {
  entity: string;
  table: keyof DB;
  key: string;
  ownership: Ownership;
}

export const SYNCED_ENTITIES = [
  { entity: 'user', table: 'appUser', key: 'id', ownership: 'cloud' },
  { entity: 'api_key', table: 'apiKey', key: 'id', ownership: 'cloud' },
  { entity: 'yard', table: 'yard', key: 'id', ownership: 'cloud' },
  { entity: 'location', table: 'location', key: 'id', ownership: 'cloud' },
  { entity: 'gate', table: 'gate', key: 'id', ownership: 'edge-mutable' },
  { entity: 'carrier', table: 'carrier', key: 'id', ownership: 'cloud' },
  { entity: 'driver', table: 'driver', key: 'id', ownership: 'shared' },
  { entity: 'truck', table: 'truck', key: 'id', ownership: 'shared' },
  { entity: 'truck_inspection', table: 'truckInspection', key: 'id', ownership: 'edge-immutable' },
  { entity: 'trailer', table: 'trailer', key: 'id', ownership: 'shared' },
  // Written when the relay energises and completed once when it is de-energised (docs/domain.md
  // "Gate actuation"): the edge's second write must reach the cloud, so the edge's row wins.
  { entity: 'gate_actuation', table: 'gateActuation', key: 'id', ownership: 'edge-mutable' },
  { entity: 'movement', table: 'movement', key: 'id', ownership: 'edge-immutable' },
  { entity: 'attachment', table: 'attachment', key: 'id', ownership: 'edge-immutable' },
  { entity: 'setting', table: 'setting', key: 'name', ownership: 'edge-mutable' },
  { entity: 'yard_task', table: 'yardTask', key: 'id', ownership: 'shared' },
  { entity: 'task_event', table: 'taskEvent', key: 'id', ownership: 'edge-immutable' },
  { entity: 'driver_session', table: 'driverSession', key: 'id', ownership: 'edge-mutable' },
  { entity: 'session_location', table: 'sessionLocation', key: 'id', ownership: 'edge-immutable' },
  { entity: 'push_token', table: 'pushToken', key: 'id', ownership: 'edge-mutable' },
  { entity: 'integration', table: 'integration', key: 'id', ownership: 'cloud' },
  // docs/domain.md "Records and who owns them": ONVIF cameras belong to their edge, provider cameras to the cloud. Per-row ownership
  // arrives with the cloud role; until then the edge that registered a camera owns it.
  { entity: 'camera', table: 'camera', key: 'id', ownership: 'edge-mutable' },
  // Dock appointments (docs/domain.md "Appointments"): the config and load types are the cloud's; an
  // appointment is shared and split by field (site-rules.ts), its history is written by either side.
  { entity: 'scheduling_config', table: 'schedulingConfig', key: 'yardId', ownership: 'cloud' },
  { entity: 'load_type', table: 'loadType', key: 'id', ownership: 'cloud' },
  { entity: 'appointment', table: 'appointment', key: 'id', ownership: 'shared' },
  { entity: 'appointment_event', table: 'appointmentEvent', key: 'id', ownership: 'edge-immutable' },
] as const satisfies readonly SyncedEntity[];

/**
 * Fields that never leave the side that stores them (sent as null): the cloud reaches an ONVIF
 * camera only through its edge, so the camera's password stays on the yard box (docs/sync.md "Trust").
 */
export const LOCAL_SECRETS: Readonly<Record<string, readonly string[]>> = {
  camera: ['onvifPassword'],
};

/**
 * A record that names another one the receiver needs to use it: a peer that gets the record gets
 * the named one too (logged just before it). A provider camera is useless to a site without its
 * integration, and integrations go only to the sites that use them (routing.ts).
 */
export const NEEDS: Readonly<Record<string, { field: string; entity: string; table: 'integration' }>> = {
  camera: { field: 'integrationId', entity: 'integration', table: 'integration' },
};

/**
 * Credentials: when a change means a peer no longer needs one (a user's yard scope moved to other
 * sites), that peer gets a delete, so the login stops working there. Other records a peer stops
 * needing (a yard moved to another site) stay there as they were.
 */
export const WITHDRAWN_WHEN_UNNEEDED: ReadonlySet<string> = new Set(['user', 'api_key']);

export type SyncedTable = (typeof SYNCED_ENTITIES)[number]['table'];

export const SYNCED_BY_TABLE: ReadonlyMap<string, SyncedEntity> = new Map(
  SYNCED_ENTITIES.map((e) => [e.table as string, e]),
);

const SYNCED_BY_NAME: ReadonlyMap<string, SyncedEntity> = new Map(SYNCED_ENTITIES.map((e) => [e.entity, e]));

/** The synced entity of this name (a change's `entity`), or undefined for a name that does not sync. */
export function entityByName(name: string): SyncedEntity | undefined {
  return SYNCED_BY_NAME.get(name);
}

/** The synced entity stored in `table`; throws for a table that does not sync (a programming error). */
export function entityOfTable(table: string): SyncedEntity {
  const entity = SYNCED_BY_TABLE.get(table);
  if (!entity) throw new Error(`${table} is not a synced table`);
  return entity;
}

export function toSnake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Snake-case table names, as they appear in SQL. */
export const SYNCED_SQL_TABLES: ReadonlySet<string> = new Set(SYNCED_ENTITIES.map((e) => toSnake(e.table)));

/** Columns SQLite derives from the others (generated): local read models, never part of a change. */
const DERIVED_COLUMNS = ['apiJson'];

/**
 * The fields of a row that travel to a peer: without derived columns, and with the secrets that
 * stay on the side that uses them (LOCAL_SECRETS) sent as null.
 */
export function syncedFields(entity: SyncedEntity, row: Record<string, unknown>): Record<string, unknown> {
  const local = LOCAL_SECRETS[entity.entity] ?? [];
  if (!DERIVED_COLUMNS.some((c) => c in row) && !local.some((f) => row[f] != null)) return row;
  const copy = { ...row };
  for (const c of DERIVED_COLUMNS) delete copy[c];
  for (const f of local) if (copy[f] != null) copy[f] = null;
  return copy;
}
