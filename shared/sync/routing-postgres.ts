import type { Kdb } from '../db/database.js';
import type { SyncedEntity } from './entities.js';
import { type RowLookups, routeAtCloud } from './routing.js';

/** Attachment ref types whose target has a yard, and its table (as routing.ts YARD_REFS). */
const YARD_REF_TABLES: Record<string, 'movement' | 'truckInspection' | 'camera'> = {
  movement: 'movement',
  inspection: 'truckInspection',
  camera: 'camera',
};

/**
 * The cloud's routing on PostgreSQL: the same rule as on SQLite (routeAtCloud, routing.ts), its
 * lookups read with awaits in the write's own transaction (`db`), so a row sees the yard or site
 * written just before it. Nothing is cached between writes: with several cloud nodes, a site or
 * yard registered through one node must route the very next write on any other node, and these are
 * primary-key reads of two small tables (sites and yards number in the hundreds).
 */
export class PostgresCloudRouting {
  async peersFor(entity: SyncedEntity, row: Record<string, unknown>, db: Kdb): Promise<string[]> {
    const [sites, yards, lookups] = await Promise.all([
      db.selectFrom('site').select('id').orderBy('id').execute(),
      db.selectFrom('yard').select(['id', 'siteId']).execute(),
      lookupsFor(entity, row, db),
    ]);
    const siteOfYard = new Map(yards.map((y) => [y.id, y.siteId]));
    return routeAtCloud(
      entity,
      row,
      sites.map((s) => s.id),
      (yardId) => siteOfYard.get(yardId) ?? undefined,
      lookups,
    );
  }

  async siteOfYard(yardId: string, db: Kdb): Promise<string | undefined> {
    const row = await db.selectFrom('yard').select('siteId').where('id', '=', yardId).executeTakeFirst();
    return row?.siteId ?? undefined;
  }
}

/**
 * The few row lookups routeAtCloud may ask for this row, read beforehand (it asks synchronously):
 * a session's yard, the yard of what an attachment is attached to, the yards using an integration.
 */
async function lookupsFor(entity: SyncedEntity, row: Record<string, unknown>, db: Kdb): Promise<RowLookups> {
  let sessionYard: string | undefined;
  let refYard: string | undefined;
  let integrationYards: string[] = [];
  if (entity.entity === 'session_location' && typeof row.sessionId === 'string') {
    const found = await db
      .selectFrom('driverSession')
      .select('yardId')
      .where('id', '=', row.sessionId)
      .executeTakeFirst();
    sessionYard = found?.yardId;
  } else if (
    entity.entity === 'attachment' &&
    typeof row.refType === 'string' &&
    typeof row.refId === 'string'
  ) {
    const table = YARD_REF_TABLES[row.refType];
    if (table) {
      const found = (await db
        .selectFrom(table)
        .select('yardId')
        .where('id', '=', row.refId)
        .executeTakeFirst()) as { yardId: string | null } | undefined;
      refYard = found?.yardId ?? undefined;
    }
  } else if (entity.entity === 'integration' && typeof row.id === 'string') {
    const found = await db
      .selectFrom('camera')
      .select('yardId')
      .distinct()
      .where('integrationId', '=', row.id)
      .execute();
    integrationYards = found.flatMap((c) => (c.yardId ? [c.yardId] : []));
  }
  return {
    yardOfSession: () => sessionYard,
    yardOfRef: () => refYard,
    yardsUsingIntegration: () => integrationYards,
  };
}
