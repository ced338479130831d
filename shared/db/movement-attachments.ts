import type { Kdb } from './database.js';

/** Ids per query: well under SQLite's bound-parameter limit, and one round trip per chunk. */
const MOVEMENT_CHUNK = 500;

/**
 * Attachments uploaded later against movements (refType 'movement'), besides those a movement
 * lists itself, per movement id: the SQL helper of the read models that show a movement's
 * pictures (billing's visits, the detention report). Read in chunks of ids and grouped here
 * rather than with an aggregate of the database's own (SQLite's json_group_array has no
 * PostgreSQL namesake).
 */
export async function attachmentIdsOfMovements(
  db: Kdb,
  movementIds: readonly string[],
): Promise<Map<string, string[]>> {
  const byMovement = new Map<string, string[]>();
  const ids = [...new Set(movementIds)];
  for (let i = 0; i < ids.length; i += MOVEMENT_CHUNK) {
    const rows = await db
      .selectFrom('attachment')
      .select(['id', 'refId'])
      .where('refType', '=', 'movement')
      .where('refId', 'in', ids.slice(i, i + MOVEMENT_CHUNK))
      .execute();
    for (const r of rows) {
      if (!r.refId) continue;
      const list = byMovement.get(r.refId) ?? [];
      list.push(r.id);
      byMovement.set(r.refId, list);
    }
  }
  return byMovement;
}
