import type { AppDatabase } from '../../shared/db/database.js';
import {
  rebuildDashboardRollups,
  rebuildDashboardRollupsPostgres,
} from '../../shared/modules/dashboard/rollups/rebuild.js';
import { query } from './http.js';
import type { TestApp } from './test-app.js';

/**
 * Brings one database's rows of these tables to another (SQLite or PostgreSQL, either way) as plain
 * rows, inserted or replaced by id: what the cloud holds once an edge's changes have arrived, or an
 * edge once the cloud's have. For suites on a database the sync applier does not run on yet. Tables
 * in the order their foreign keys need; the columns the target stores (not those it computes).
 */
export async function copyEdgeRows(from: AppDatabase, to: AppDatabase, tables: readonly string[]) {
  for (const table of tables) {
    const stored = new Set(await storedColumns(to, table));
    for (const row of await query(from, `SELECT * FROM ${table} ORDER BY id`)) {
      const columns = Object.keys(row).filter((c) => stored.has(c));
      const updates = columns
        .filter((c) => c !== 'id')
        .map((c) => `${c} = excluded.${c}`)
        .join(', ');
      await query(
        to,
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
         ON CONFLICT (id) DO UPDATE SET ${updates}`,
        ...columns.map((c) => row[c]),
      );
    }
  }
}

/** A table's columns that are written (generated columns, such as api_json, are the database's). */
async function storedColumns(db: AppDatabase, table: string): Promise<string[]> {
  const rows =
    db.dialect === 'sqlite'
      ? await query(db, 'SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0', table)
      : await query(
          db,
          "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER'",
          table,
        );
  return rows.map((r) => r.name as string);
}

/**
 * Recounts the dashboard's rollups from the rows on the app's database (rows written behind the
 * observers' back count from then on), and tells the shared answers (http/shared-answers.ts).
 */
export async function recountDashboardRollups(t: TestApp<AppDatabase>): Promise<void> {
  if (t.db.dialect === 'sqlite') rebuildDashboardRollups(t.db.sqlite);
  else await rebuildDashboardRollupsPostgres(t.db.kysely);
  t.services.figureAnswers.changed();
}
