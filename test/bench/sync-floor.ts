import { inflateSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import { openDatabase } from '../../shared/db/database.js';
import { SYNCED_ENTITIES, toSnake } from '../../shared/sync/entities.js';
import { isZlibStream } from '../../shared/sync/wire-encoding.js';

const TABLE_OF: ReadonlyMap<string, string> = new Map(
  SYNCED_ENTITIES.map((e) => [e.entity, toSnake(e.table)]),
);

/**
 * The floor under any receiver of a catch-up on this machine: the batches' rows written by plain
 * better-sqlite3 into a fresh database with our schema (WAL, synchronous=FULL, as the cloud runs),
 * one transaction per batch, no rules: JSON.parse, then INSERT OR REPLACE of every row, plus the
 * applied position. Foreign keys are off (the master data is not there). Returns the elapsed time.
 * What the real applier adds on top (zod, ownership, merges, dead letters, forwarding, visits) is the
 * difference to the measured catch-up.
 */
export function sqliteFloor(payloads: readonly Buffer[], file: string): { ms: number; rows: number } {
  const db = openDatabase(file);
  const sqlite = db.sqlite;
  sqlite.pragma('foreign_keys = OFF');
  const statements = new Map<string, Database.Statement>();
  const cursor = sqlite.prepare(
    `INSERT INTO sync_cursor (peer, applied_remote_seq) VALUES ('site', ?)
     ON CONFLICT (peer) DO UPDATE SET applied_remote_seq = excluded.applied_remote_seq`,
  );
  let rows = 0;
  const started = performance.now();
  for (const payload of payloads) {
    const text = isZlibStream(payload) ? inflateSync(payload).toString() : payload.toString();
    const batch = JSON.parse(text) as {
      to: number;
      rows: Array<{ entity: string; data: Record<string, unknown> }>;
    };
    sqlite.transaction(() => {
      for (const row of batch.rows) {
        const fields = Object.keys(row.data);
        const key = `${row.entity}|${fields.join(',')}`;
        let stmt = statements.get(key);
        if (!stmt) {
          const table = TABLE_OF.get(row.entity);
          if (!table) throw new Error(`unknown entity ${row.entity}`);
          stmt = sqlite.prepare(
            `INSERT OR REPLACE INTO "${table}" (${fields.map((f) => `"${toSnake(f)}"`).join(', ')}) VALUES (${fields.map(() => '?').join(', ')})`,
          );
          statements.set(key, stmt);
        }
        stmt.run(fields.map((f) => scalar(row.data[f])));
        rows++;
      }
      cursor.run(batch.to);
    })();
  }
  const ms = performance.now() - started;
  db.close();
  return { ms, rows };
}

function scalar(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}
