import { sqliteOf } from '../db/database.js';
import { SCHEMA_VERSION } from '../db/migrate.js';
import { SqliteWork } from '../db/sql-work.js';
import { BusyError } from './applier.js';
import type { SyncDeps } from './deps.js';
import { SYNCED_ENTITIES, type SyncedEntity, syncedFields } from './entities.js';
import { parseHlc } from './hlc.js';
import { type RowLookups, routeAtCloud } from './routing.js';
import { RowSql } from './row-sql.js';

/**
 * Synced entities in the order their rows may be inserted: every foreign key points to an entity
 * earlier in the list (movement before gate_actuation: an actuation names its movement; a movement
 * is written before its actuation and never updated with it).
 */
export const SNAPSHOT_ORDER = [
  'yard',
  'location',
  'gate',
  'carrier',
  'integration',
  'camera',
  'user',
  'api_key',
  'setting',
  'driver',
  'truck',
  'trailer',
  'attachment',
  'truck_inspection',
  'movement',
  'gate_actuation',
  'yard_task',
  'task_event',
  'driver_session',
  'session_location',
  'push_token',
] as const;

/** Rows read per query while writing a snapshot. */
const PAGE = 2000;

/**
 * Cloud: appends to the site's change_log an upsert of every current row the site needs (the
 * routing rules of routing.ts, as if the site were registered already), in dependency order and
 * within a table in insertion order. For a new site, or one whose cursor is older than the pruned
 * log. The edge applies it with the ordinary rules: cloud-owned rows replace its copies, its own
 * rows are inserted if missing, shared rows merge. One transaction.
 *
 * Returns the seq range written: `from` is the first seq, `to` the last (`to = from - 1` when
 * there was nothing to write). Rows the site holds that the cloud no longer has are not deleted.
 */
export function writeSiteSnapshot(
  deps: Pick<SyncDeps, 'db' | 'changes'>,
  siteId: string,
): { from: number; to: number; rows: number } {
  const sqlite = sqliteOf(deps.db, 'site snapshots');
  if (sqlite.inTransaction) throw new BusyError();
  const sql = new RowSql();
  const work = new SqliteWork(sqlite);
  const sites = [siteId];
  const siteOfYard = new Map(
    sqlite.prepare('SELECT id, site_id FROM yard').raw().all() as Array<[string, string]>,
  );
  const lookups: RowLookups = {
    yardOfSession: (id) =>
      sqlite.prepare('SELECT yard_id FROM driver_session WHERE id = ?').pluck().get(id) as string | undefined,
    yardsUsingIntegration: (id) =>
      sqlite
        .prepare('SELECT DISTINCT yard_id FROM camera WHERE integration_id = ?')
        .pluck()
        .all(id) as string[],
    yardOfRef: (table, id) =>
      sqlite.prepare(`SELECT yard_id FROM "${table}" WHERE id = ?`).pluck().get(id) as string | undefined,
  };
  const insert = sqlite.prepare(
    "INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES (?, ?, ?, 'upsert', ?, ?, ?, ?)",
  );
  const result = sqlite
    .transaction(() => {
      let from = 0;
      let to = 0;
      let rows = 0;
      for (const name of SNAPSHOT_ORDER) {
        const entity = SYNCED_ENTITIES.find((e) => e.entity === name) as SyncedEntity;
        const shape = work.run(sql.shape(entity));
        // Pages by rowid: a statement cannot write while another one is still iterating.
        const page = sqlite.prepare(
          `SELECT rowid AS "__rowid", ${shape.columns.map((c) => `"${c.column}"`).join(', ')} FROM "${shape.table}" WHERE rowid > ? ORDER BY rowid LIMIT ${PAGE}`,
        );
        for (let after = 0; ; ) {
          const raws = page.all(after) as Array<Record<string, unknown>>;
          if (raws.length === 0) break;
          after = raws.at(-1)!.__rowid as number;
          for (const raw of raws) {
            const row = sql.toFields(shape, raw);
            if (!routeAtCloud(entity, row, sites, (y) => siteOfYard.get(y), lookups).includes(siteId))
              continue;
            const hlc = String(row.hlc);
            const { lastInsertRowid } = insert.run(
              siteId,
              entity.entity,
              String(row[shape.keyField]),
              hlc,
              parseHlc(hlc).origin,
              SCHEMA_VERSION,
              JSON.stringify(syncedFields(entity, row)),
            );
            to = Number(lastInsertRowid);
            if (from === 0) from = to;
            rows += 1;
          }
        }
      }
      if (rows === 0) {
        const last = sqlite
          .prepare("SELECT seq FROM sqlite_sequence WHERE name = 'change_log'")
          .pluck()
          .get();
        from = Number(last ?? 0) + 1;
        to = from - 1;
      }
      return { from, to, rows };
    })
    .immediate();
  if (result.rows > 0) deps.changes.notifyLogged([siteId]);
  return result;
}
