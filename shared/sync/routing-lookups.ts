import { once, type SqlWork, sqlRows, sqlValue, statement } from '../db/sql-work.js';
import { type RowLookups, YARD_REFS } from './cloud-routing-rule.js';
import type { SyncedEntity } from './entities.js';

/*
 * The reads the cloud's routing makes (routing.ts cloudRouting on SQLite, routing-postgres.ts
 * uncachedCloudRouting on PostgreSQL), written once as SqlWork (shared/db/sql-work.ts).
 */

export const READ_STAMP = statement('routing|stamp', 'value', 'SELECT n FROM temp.yard_routing_stamp');
export const READ_SITES = statement('routing|sites', 'rows', 'SELECT id FROM site ORDER BY id');
export const READ_YARDS = statement('routing|yards', 'rows', 'SELECT id, site_id FROM yard');
export const READ_SITE_OF_YARD = statement(
  'routing|site-of-yard',
  'value',
  'SELECT site_id FROM yard WHERE id = ?',
);
const READ_SESSION_YARD = statement(
  'routing|session-yard',
  'value',
  'SELECT yard_id FROM driver_session WHERE id = ?',
);
const READ_INTEGRATION_YARDS = statement(
  'routing|integration-yards',
  'rows',
  'SELECT DISTINCT yard_id FROM camera WHERE integration_id = ?',
);
const READ_REF_YARD: Record<string, ReturnType<typeof statement>> = Object.fromEntries(
  ['movement', 'truck_inspection', 'camera'].map((table) => [
    table,
    statement(`routing|ref-yard|${table}`, 'value', `SELECT yard_id FROM "${table}" WHERE id = ?`),
  ]),
);

export function* yardOfSession(sessionId: string): SqlWork<string | undefined> {
  // A session's pings come by the hundred in a batch; its yard never changes.
  return yield* once(
    `routing|session-yard|${sessionId}`,
    function* () {
      const yardId = yield* sqlValue(READ_SESSION_YARD, [sessionId]);
      return typeof yardId === 'string' ? yardId : undefined;
    },
    (yardId) => yardId !== undefined,
  );
}

export function* yardsUsingIntegration(integrationId: string): SqlWork<string[]> {
  const rows = yield* sqlRows(READ_INTEGRATION_YARDS, [integrationId]);
  return rows.flatMap((r) => (typeof r.yard_id === 'string' ? [r.yard_id] : []));
}

export function* yardOfRef(table: string, id: string): SqlWork<string | undefined> {
  const stmt = READ_REF_YARD[table];
  if (!stmt) return undefined;
  const yardId = yield* sqlValue(stmt, [id]);
  return typeof yardId === 'string' ? yardId : undefined;
}

/**
 * The one row lookup routeAtCloud may ask for this row, read beforehand (it asks synchronously):
 * a session's yard, the yard of what an attachment is attached to, the yards using an integration.
 */
export function* lookupsFor(entity: SyncedEntity, row: Record<string, unknown>): SqlWork<RowLookups> {
  let sessionYard: string | undefined;
  let refYard: string | undefined;
  let integrationYards: string[] = [];
  if (entity.entity === 'session_location' && typeof row.sessionId === 'string') {
    sessionYard = yield* yardOfSession(row.sessionId);
  } else if (
    entity.entity === 'attachment' &&
    typeof row.refType === 'string' &&
    typeof row.refId === 'string'
  ) {
    const table = YARD_REFS[row.refType];
    if (table) refYard = yield* yardOfRef(table, row.refId);
  } else if (entity.entity === 'integration' && typeof row.id === 'string') {
    integrationYards = yield* yardsUsingIntegration(row.id);
  }
  return {
    yardOfSession: () => sessionYard,
    yardOfRef: () => refYard,
    yardsUsingIntegration: () => integrationYards,
  };
}
