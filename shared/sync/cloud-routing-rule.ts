import type { SyncedEntity } from './entities.js';
import { isUnit, NEW_ROW, type Route, routeUnit, type WriteContext } from './unit-shares.js';

/** Every site that needs a row: org-wide master data (units: unit-shares.ts). */
const ORG_WIDE = new Set(['carrier', 'driver']);

/** Records with a yard scope (`yardIds`, JSON or null = every yard): only the sites they cover. */
const SCOPED = new Set(['user', 'api_key']);

/** Attachment ref types whose target has a yard (the others are org-wide records). */
export const YARD_REFS: Record<string, string> = {
  movement: 'movement',
  inspection: 'truck_inspection',
  camera: 'camera',
};
export interface RowLookups {
  yardOfSession(sessionId: string): string | undefined;
  /** Yards with a camera that uses this integration. */
  yardsUsingIntegration(integrationId: string): string[];
  /** yard_id of the row with this id in `table`. */
  yardOfRef(table: string, id: string): string | undefined;
}

/**
 * The cloud's routing rule for one row, given the registered sites and lookups (see cloudRouting):
 * the peers that get it and what each gets of it (unit-shares.ts: a truck or trailer in another
 * site's yard reaches the other sites as its identity only, and only when that changed). `write`:
 * the write the row comes from (default: a row new to every peer, as in a snapshot); a site's change
 * applied here (`write.from`) goes back to that site only as unit-shares.ts says.
 */
export function routeAtCloud(
  entity: SyncedEntity,
  row: Record<string, unknown>,
  sites: readonly string[],
  siteOfYard: (yardId: string) => string | undefined,
  lookups: RowLookups,
  write: WriteContext = NEW_ROW,
): Route[] {
  const from = write.from;
  if (isUnit(entity)) {
    const siteOf = (yardId: unknown) =>
      typeof yardId === 'string' ? registeredSite(siteOfYard(yardId), sites) : undefined;
    const routes = routeUnit(entity, row, write, sites, siteOf);
    // The sender holds what it sent; it gets the merged row back only when the merge added what it
    // never received (its copy of a unit that stood elsewhere) and the unit is now its own.
    return from ? routes.filter((r) => r.peer !== from.site || (from.combined && r.share === 'row')) : routes;
  }
  const peers = peersAtCloud(entity, row, sites, siteOfYard, lookups);
  return (from ? peers.filter((p) => p !== from.site) : peers).map((peer) => ({ peer, share: 'row' }));
}

function registeredSite(site: string | undefined, sites: readonly string[]): string | undefined {
  return site !== undefined && sites.includes(site) ? site : undefined;
}

/** The sites that get the whole row, for every record but units. */
function peersAtCloud(
  entity: SyncedEntity,
  row: Record<string, unknown>,
  sites: readonly string[],
  siteOfYard: (yardId: string) => string | undefined,
  lookups: RowLookups,
): string[] {
  const toYardSite = (yardId: unknown): string[] => {
    if (typeof yardId !== 'string') return [];
    const site = registeredSite(siteOfYard(yardId), sites);
    return site !== undefined ? [site] : [];
  };
  switch (entity.entity) {
    case 'setting':
      return row.scope === 'site' ? [] : [...sites];
    case 'yard':
      return typeof row.siteId === 'string' && sites.includes(row.siteId) ? [row.siteId] : [];
    case 'session_location':
      return typeof row.sessionId === 'string' ? toYardSite(lookups.yardOfSession(row.sessionId)) : [];
    case 'attachment': {
      const refType = typeof row.refType === 'string' ? row.refType : undefined;
      const refId = typeof row.refId === 'string' ? row.refId : undefined;
      if (refType && refId && refType === 'yard') return toYardSite(refId);
      const table = refType ? YARD_REFS[refType] : undefined;
      const yardId = table && refId ? lookups.yardOfRef(table, refId) : undefined;
      // Not derivable (no ref, an org-wide ref, or the target has not arrived): every site.
      return yardId ? toYardSite(yardId) : [...sites];
    }
  }
  if (ORG_WIDE.has(entity.entity)) return [...sites];
  if (SCOPED.has(entity.entity)) return scopedSites(row.yardIds, sites, siteOfYard);
  if (entity.entity === 'integration') {
    // Its secrets go only to the sites with a camera that uses it (a new camera brings it along:
    // entities.ts NEEDS).
    const id = typeof row.id === 'string' ? row.id : '';
    return [...new Set(lookups.yardsUsingIntegration(id).flatMap(toYardSite))];
  }
  if (entity.entity === 'push_token') return [];
  return toYardSite(row.yardId);
}

/**
 * The sites a yard scope covers: every site for an unscoped user or key (null), else the sites of
 * its yards. A password hash or key hash goes only where it can be used to log in (docs/sync.md "Trust").
 * An unreadable scope goes nowhere.
 */
function scopedSites(
  yardIds: unknown,
  sites: readonly string[],
  siteOfYard: (yardId: string) => string | undefined,
): string[] {
  if (yardIds === null || yardIds === undefined) return [...sites];
  let ids: unknown;
  try {
    ids = typeof yardIds === 'string' ? JSON.parse(yardIds) : yardIds;
  } catch {
    return [];
  }
  if (!Array.isArray(ids)) return [];
  const covered = new Set<string>();
  for (const id of ids) {
    const site = typeof id === 'string' ? siteOfYard(id) : undefined;
    if (site !== undefined && sites.includes(site)) covered.add(site);
  }
  return [...covered];
}
