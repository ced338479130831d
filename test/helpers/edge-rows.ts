import type { AppDatabase } from '../../shared/db/database.js';
import {
  rebuildDashboardRollups,
  rebuildDashboardRollupsPostgres,
} from '../../shared/modules/dashboard/rollups/rebuild.js';
import { query } from './http.js';
import type { TestApp } from './test-app.js';

/** Columns the database computes itself (a generated column is never written). */
const GENERATED = new Set(['api_json']);

/**
 * Brings an edge's rows of these tables to the cloud's database (SQLite or PostgreSQL) as plain
 * rows, inserted or replaced by id: what the cloud holds once the edge's changes have arrived. For
 * suites of the cloud's reads of edge-owned records (movements, visits) on a database the sync
 * applier does not run on yet. Tables in the order their foreign keys need.
 */
export async function copyEdgeRows(from: AppDatabase, to: AppDatabase, tables: readonly string[]) {
  for (const table of tables) {
    for (const row of await query(from, `SELECT * FROM ${table}`)) {
      const columns = Object.keys(row).filter((c) => !GENERATED.has(c));
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

/**
 * Recounts the dashboard's rollups from the rows on the app's database (rows written behind the
 * observers' back count from then on), and tells the shared answers (http/shared-answers.ts).
 */
export async function recountDashboardRollups(t: TestApp<AppDatabase>): Promise<void> {
  if (t.db.dialect === 'sqlite') rebuildDashboardRollups(t.db.sqlite);
  else await rebuildDashboardRollupsPostgres(t.db.kysely);
  t.services.figureAnswers.changed();
}
