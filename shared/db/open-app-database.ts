import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { type AppDatabase, openDatabase } from './database.js';
import { migratePostgres } from './migrate-postgres.js';

/**
 * The role's database, migrated: PostgreSQL when `database.url` is set (the cloud in production;
 * several nodes may start at once, migratePostgres lets one of them migrate), else SQLite in the
 * data directory.
 */
export async function openAppDatabase(config: Config, log?: Logger): Promise<AppDatabase> {
  const url = config.database.url;
  if (!url) return openDatabase(join(resolve(config.dataDir), 'yard.db'));
  // Loaded only here (shared/lazy-module.ts's reason): a SQLite node never holds the pg driver.
  const { openPostgres } = await import('./postgres-database.js');
  const db = openPostgres({
    url,
    poolMax: config.database.poolMax,
    statementTimeoutMs: config.database.statementTimeoutMs,
    ...(log ? { log } : {}),
  });
  try {
    const applied = await migratePostgres(db.pool);
    if (applied.length > 0) log?.info({ applied, database: db.where }, 'PostgreSQL schema migrated');
    return db;
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
