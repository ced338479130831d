import { type SyncedEntity, syncedFields } from './entities.js';
import { format } from './hlc.js';
import { fieldHlcs } from './merge.js';
import type { Fields } from './row-sql.js';

/**
 * Trucks and trailers ("units") by relevance (docs/sync.md "Routing"): every site must recognise a
 * unit by number or plate at its gate (one record per unit across the organisation), but only the
 * site whose yard it stands in needs where it stands and what it carries. This file is the one home
 * of what a site gets of a unit's row; routing.ts decides which sites get which share.
 */

/** What one peer gets of a row. */
export type Share =
  /** The row as stored (every record but a unit's in another site's yard). */
  | 'row'
  /** A unit's identity only: its whereabouts and load withheld. */
  | 'identity'
  /** A unit's identity and that it left: whereabouts null, load withheld (the site it was at). */
  | 'departure';

/** A peer whose change log gets a row, and what it gets of it. */
export interface Route {
  peer: string;
  share: Share;
}

/** The write a row comes from, as far as routing needs it (a unit's shares depend on it). */
export interface WriteContext {
  op: 'upsert' | 'delete';
  /**
   * The row as stored before this write. Undefined: the write made it here, or a snapshot (a
   * peer then gets everything of the row it needs).
   */
  before: Fields | undefined;
  /**
   * A site's change applied at the cloud: that site holds what it sent and gets nothing back,
   * unless `combined` (the merge kept fields of the cloud's that the site does not hold: a unit's
   * load written while it stood in another site's yard) and the unit is now that site's.
   */
  from?: { site: string; combined: boolean };
}

export const NEW_ROW: WriteContext = { op: 'upsert', before: undefined };

/** Per unit: the fields only the site holding it gets. */
const HELD_FIELDS: Readonly<Record<string, { whereabouts: readonly string[]; load: readonly string[] }>> = {
  trailer: { whereabouts: ['yardId', 'locationId', 'arrivedAt'], load: ['loadStatus', 'sealNumber'] },
  truck: { whereabouts: ['yardId'], load: [] },
};

/** Fields that change with every write without saying anything about the unit. */
const NOT_IDENTITY = new Set(['hlc', 'fieldHlc', 'version', 'apiJson', 'updatedAt']);

/**
 * The field clock of a field a copy never received (an identity share leaves whereabouts and load
 * out): older than every real clock, so any real write wins over the copy's default, and the copy
 * sent back up (the site edits the unit's number) never overrides what the cloud holds.
 */
export const NEVER_WRITTEN = format(0, 0, 'none');

/**
 * A unit's whereabouts fields (yard, spot, arrival), or undefined for a record that is not a unit:
 * what only the site holding it gets, and what a site may set only to its own yards (site-trust.ts).
 */
export function whereaboutsOf(entity: SyncedEntity): readonly string[] | undefined {
  return HELD_FIELDS[entity.entity]?.whereabouts;
}

export function isUnit(entity: SyncedEntity): boolean {
  return entity.entity in HELD_FIELDS;
}

/**
 * Which registered sites get a unit's row, and what of it:
 * - the site whose yard the unit stands in: the row;
 * - the site whose yard it stood in before this write, when it moved elsewhere: its departure
 *   (the row itself when the unit is now in no yard: nothing in it refers to a yard);
 * - a unit in no yard that stays in no yard (made at the office, edited while out): the row, to
 *   every site (it may arrive at any gate, and nothing in it refers to a yard);
 * - every other site: the identity, only when the write made the unit or changed its identity (a
 *   move or a load change is none of their business);
 * - a delete: every site (each may hold the identity).
 */
export function routeUnit(
  entity: SyncedEntity,
  row: Fields,
  write: WriteContext,
  sites: readonly string[],
  siteOfYard: (yardId: unknown) => string | undefined,
): Route[] {
  if (write.op === 'delete') return sites.map((peer) => ({ peer, share: 'row' }));
  const { before } = write;
  const here = siteOfYard(row.yardId);
  const was = before === undefined ? undefined : siteOfYard(before.yardId);
  const outOfYards = row.yardId == null;
  const staysOut = outOfYards && (before === undefined || before.yardId == null);
  const newIdentity = before === undefined || identityChanged(entity, before, row);
  const routes: Route[] = [];
  for (const peer of sites) {
    let share: Share | undefined;
    if (peer === here || staysOut) share = 'row';
    else if (peer === was) share = outOfYards ? 'row' : 'departure';
    else if (newIdentity) share = 'identity';
    if (share) routes.push({ peer, share });
  }
  return routes;
}

/** Whether a write changed a unit's identity (any field but its whereabouts, load and bookkeeping). */
export function identityChanged(entity: SyncedEntity, before: Fields, row: Fields): boolean {
  const held = HELD_FIELDS[entity.entity];
  for (const [field, value] of Object.entries(row)) {
    if (NOT_IDENTITY.has(field) || held?.whereabouts.includes(field) || held?.load.includes(field)) continue;
    // A field the write does not carry (undefined) is not written by it.
    if (value !== undefined && !sameValue(before[field], value)) return true;
  }
  return false;
}

/**
 * The data a peer gets for its share of a row: the synced fields, and for a unit's partial shares
 * the withheld fields left out (a copy keeps its own values, a new copy the column defaults) with
 * their field clocks set to NEVER_WRITTEN.
 */
export function sharedData(entity: SyncedEntity, row: Fields, share: Share): Fields {
  const data = syncedFields(entity, row);
  const held = HELD_FIELDS[entity.entity];
  if (share === 'row' || !held) return data;
  const withheld = share === 'identity' ? [...held.whereabouts, ...held.load] : held.load;
  const out: Fields = { ...data };
  const clocks = fieldHlcs(data);
  for (const f of withheld) {
    delete out[f];
    clocks[f] = NEVER_WRITTEN;
  }
  if (share === 'departure') for (const f of held.whereabouts) out[f] = null;
  out.fieldHlc = JSON.stringify(
    Object.fromEntries(
      Object.keys(clocks)
        .sort()
        .map((k) => [k, clocks[k]]),
    ),
  );
  return out;
}

/** The same column value (SQLite's 0/1 for a boolean, PostgreSQL's numbers as text). */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) === Number(b);
  return String(a) === String(b);
}

/**
 * The change-log data of a write for each share, each text made once (most rows have one share for
 * every peer): a delete carries the key only.
 */
export function dataOfShares(
  entity: SyncedEntity,
  row: Fields,
  op: 'upsert' | 'delete',
): (share: Share) => string {
  const texts = new Map<Share, string>();
  return (share) => {
    let text = texts.get(share);
    if (text === undefined) {
      text = JSON.stringify(
        op === 'delete' ? { [entity.key]: String(row[entity.key]) } : sharedData(entity, row, share),
      );
      texts.set(share, text);
    }
    return text;
  };
}
