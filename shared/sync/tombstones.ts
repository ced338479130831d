import { type SqlWork, sqlRun, sqlValue, statement } from '../db/sql-work.js';

/**
 * Tombstones of deleted shared records, as the applier writes and reads them (docs/sync.md
 * "Conflict rules", Deletes): a received delete leaves one, and a later upsert of that id (or a task
 * event of a deleted task) is not applied (RowRules). A local delete writes its own in its write's
 * transaction (ChangeLogWriter).
 */
export function* leaveTombstone(entity: string, id: string, hlc: string): SqlWork<void> {
  yield* sqlRun(TOMBSTONE_PUT, [entity, id, hlc]);
}

/** Whether the record was deleted (an id that is not a string never was). */
export function* isTombstoned(entity: string, id: unknown): SqlWork<boolean> {
  if (typeof id !== 'string') return false;
  return (yield* sqlValue(TOMBSTONE_GET, [entity, id])) !== undefined;
}

/** A delete's tombstone keeps the latest clock (a scalar max, written as CASE for PostgreSQL). */
const TOMBSTONE_PUT = statement(
  'tombstone|put',
  'changes',
  'INSERT INTO sync_tombstone (entity, entity_id, hlc) VALUES (?, ?, ?) ON CONFLICT (entity, entity_id) DO UPDATE SET ' +
    'hlc = CASE WHEN excluded.hlc > sync_tombstone.hlc THEN excluded.hlc ELSE sync_tombstone.hlc END',
);

const TOMBSTONE_GET = statement(
  'tombstone|get',
  'value',
  'SELECT 1 FROM sync_tombstone WHERE entity = ? AND entity_id = ?',
);
