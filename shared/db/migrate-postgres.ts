import type pg from 'pg';
import { MIGRATIONS, refuseNewerSchema } from './migrate.js';
import { fillStatement } from './migration-fill.js';
import { toPostgresDdl } from './postgres-ddl.js';

/**
 * The key of the session advisory lock the migration run holds: the ASCII bytes of "yardmigr" read
 * as a big-endian 64-bit integer (0x796172646d696772). Fixed, so every node of every version takes
 * the same lock; other advisory locks of the service must use other keys.
 */
export const MIGRATION_LOCK_KEY = '8746397726988134258';

/** A migration's PostgreSQL DDL: its twin where it has one, else the translation of its SQLite DDL. */
export function postgresUp(migration: (typeof MIGRATIONS)[number]): string {
  return migration.upPostgres ?? toPostgresDdl(migration.up);
}

/**
 * Applies pending migrations to PostgreSQL, each in its own transaction with its schema_migration
 * row, and returns the versions applied. The whole run holds one advisory lock: when several cloud
 * nodes start together one migrates and the others wait, then find nothing to do. The lock is the
 * session's, so a node that dies mid-run releases it with its connection (its open migration rolls
 * back: PostgreSQL DDL is transactional).
 */
export async function migratePostgres(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  let unlocked = false;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    return await applyPending(client);
  } finally {
    try {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
      unlocked = true;
    } catch {
      // A broken connection: closing it below ends the session, which releases the lock.
    }
    // Back to the pool only once the lock is given back (so no transaction is left open either);
    // otherwise the connection is closed, not reused.
    client.release(unlocked ? undefined : new Error('migration connection left in an unknown state'));
  }
}

async function applyPending(client: pg.PoolClient): Promise<number[]> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migration (
    version BIGINT PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, applied_at BIGINT NOT NULL)`);
  const applied = new Set(
    (await client.query<{ version: string }>('SELECT version FROM schema_migration')).rows.map((r) =>
      Number(r.version),
    ),
  );
  refuseNewerSchema(Math.max(0, ...applied));
  const done: number[] = [];
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    await client.query('BEGIN');
    try {
      await client.query(postgresUp(migration));
      if (migration.fill) {
        const { rows } = await client.query<Record<string, unknown>>(migration.fill.select);
        const write = fillStatement(migration.fill, 'postgres');
        for (const { id, value } of migration.fill.compute(rows)) await client.query(write, [value, id]);
      }
      await client.query('INSERT INTO schema_migration (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        Date.now(),
      ]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw new Error(`Migration ${migration.version} (${migration.name}) failed on PostgreSQL`, {
        cause: err,
      });
    }
    done.push(migration.version);
  }
  return done;
}

/** The newest schema version applied, 0 for a database never migrated. */
export async function appliedVersionPostgres(pool: pg.Pool): Promise<number> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass('schema_migration') AS t");
  if (exists.rows[0]?.t == null) return 0;
  const row = await pool.query<{ v: string | null }>('SELECT max(version) AS v FROM schema_migration');
  return Number(row.rows[0]?.v ?? 0);
}
