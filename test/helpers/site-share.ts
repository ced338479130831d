import type { ChecksumFilter } from '../../shared/sync/checksum.js';

/**
 * The cloud's rows that one site holds (shared/sync/routing.ts routeAtCloud, read backwards), as an
 * entityChecksums filter: compared with everything the site's edge holds, both ways, the edge has
 * every row of its share and the cloud the same version of each. Org-wide master data (carriers,
 * drivers, global settings) are every site's; a yard is its own site's; a row with a yard the site
 * of that yard's, trucks and trailers included (whole only at the site whose yard they stand in;
 * every other site holds their identity only: shared/sync/unit-shares.ts); a session location the site
 * of its session's yard; a user or API key the sites its yard scope covers (null: every site).
 * Records this rule does not place (attachments, push tokens, integrations) count by the ids the
 * edge holds, `idsAtEdge`.
 */
export function siteShareFilter(
  yardIds: readonly string[],
  idsAtEdge: (entity: string) => readonly string[],
): ChecksumFilter {
  const list = (ids: readonly string[]) => (ids.length === 0 ? '(NULL)' : `(${ids.map(quote).join(', ')})`);
  const yards = list(yardIds);
  return (entity, columns) => {
    switch (entity.entity) {
      case 'carrier':
      case 'driver':
      case 'setting':
        return undefined;
      case 'yard':
        return `id IN ${yards}`;
      case 'user':
      case 'api_key':
        // Yard scopes are JSON text of yard ids (uuids): a substring match names the yard exactly.
        return `(yard_ids IS NULL${yardIds.map((y) => ` OR yard_ids LIKE ${quote(`%${y}%`)}`).join('')})`;
      case 'session_location':
        return `session_id IN (SELECT id FROM driver_session WHERE yard_id IN ${yards})`;
    }
    if (columns.includes('yard_id')) return `yard_id IN ${yards}`;
    if (entity.entity === 'task_event')
      return `task_id IN (SELECT id FROM yard_task WHERE yard_id IN ${yards})`;
    return `${entity.key} IN ${list(idsAtEdge(entity.entity))}`;
  };
}

function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
