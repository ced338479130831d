import type BetterSqlite3 from 'better-sqlite3';
import { fillStatement, type MigrationFill } from './migration-fill.js';
import * as m0001 from './migrations/0001-initial.js';
import * as m0002 from './migrations/0002-yard-tasking.js';
import * as m0003 from './migrations/0003-cameras-integrations.js';
import * as m0004 from './migrations/0004-sync.js';
import * as m0005 from './migrations/0005-idempotency.js';
import * as m0006 from './migrations/0006-billing.js';
import * as m0007 from './migrations/0007-billing-indexes.js';
import * as m0008 from './migrations/0008-billing-auto-run.js';
import * as m0009 from './migrations/0009-location-position.js';
import * as m0010 from './migrations/0010-dashboard-rollups.js';
import * as m0011 from './migrations/0011-sync-counts.js';
import * as m0012 from './migrations/0012-tapped-at.js';
import * as m0013 from './migrations/0013-movement-corrections.js';
import * as m0014 from './migrations/0014-invoice-export-number.js';
import * as m0015 from './migrations/0015-server-secret.js';
import * as m0016 from './migrations/0016-appointments.js';
import * as m0017 from './migrations/0017-appointment-fees.js';
import * as m0018 from './migrations/0018-appointment-arrivals.js';
import * as m0019 from './migrations/0019-appointment-signals.js';
import * as m0020 from './migrations/0020-appointment-capacity.js';
import * as m0021 from './migrations/0021-webhooks.js';
import * as m0022 from './migrations/0022-email.js';
import * as m0023 from './migrations/0023-carrier-users.js';
import * as m0024 from './migrations/0024-ingest-counters.js';
import * as m0025 from './migrations/0025-task-summary-indexes.js';

/**
 * Forward-only migrations, in order. Append; never edit or reorder a shipped one. `upPostgres` is
 * the PostgreSQL twin of a migration the mechanical translation cannot take (migrate-postgres.ts);
 * `fill` a data step computed in TypeScript (migration-fill.ts).
 */
export const MIGRATIONS: ReadonlyArray<{
  version: number;
  name: string;
  up: string;
  upPostgres?: string;
  fill?: MigrationFill;
}> = [
  { version: 1, name: 'initial', up: m0001.up, upPostgres: m0001.upPostgres },
  { version: 2, name: 'yard-tasking', up: m0002.up },
  { version: 3, name: 'cameras-integrations', up: m0003.up },
  { version: 4, name: 'sync', up: m0004.up, upPostgres: m0004.upPostgres },
  { version: 5, name: 'idempotency', up: m0005.up },
  { version: 6, name: 'billing', up: m0006.up },
  { version: 7, name: 'billing-indexes', up: m0007.up },
  { version: 8, name: 'billing-auto-run', up: m0008.up },
  { version: 9, name: 'location-position', up: m0009.up },
  { version: 10, name: 'dashboard-rollups', up: m0010.up },
  { version: 11, name: 'sync-counts', up: m0011.up, upPostgres: m0011.upPostgres },
  { version: 12, name: 'tapped-at', up: m0012.up },
  { version: 13, name: 'movement-corrections', up: m0013.up },
  { version: 14, name: 'invoice-export-number', up: m0014.up, fill: m0014.fill },
  { version: 15, name: 'server-secret', up: m0015.up },
  { version: 16, name: 'appointments', up: m0016.up },
  { version: 17, name: 'appointment-fees', up: m0017.up },
  { version: 18, name: 'appointment-arrivals', up: m0018.up },
  { version: 19, name: 'appointment-signals', up: m0019.up, upPostgres: m0019.upPostgres },
  { version: 20, name: 'appointment-capacity', up: m0020.up },
  { version: 21, name: 'webhooks', up: m0021.up, upPostgres: m0021.upPostgres },
  { version: 22, name: 'email', up: m0022.up, upPostgres: m0022.upPostgres },
  { version: 23, name: 'carrier-users', up: m0023.up, upPostgres: m0023.upPostgres },
  { version: 24, name: 'ingest-counters', up: m0024.up, upPostgres: m0024.upPostgres },
  { version: 25, name: 'task-summary-indexes', up: m0025.up },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Applies pending migrations, each in its own transaction, and records them. Returns the ones applied. */
export function migrate(sqlite: BetterSqlite3.Database): number[] {
  sqlite.exec(`CREATE TABLE IF NOT EXISTS schema_migration (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(
    (sqlite.prepare('SELECT version FROM schema_migration').all() as { version: number }[]).map(
      (r) => r.version,
    ),
  );
  refuseNewerSchema(Math.max(0, ...applied));
  const done: number[] = [];
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    sqlite.transaction(() => {
      sqlite.exec(migration.up);
      if (migration.fill) {
        const write = sqlite.prepare(fillStatement(migration.fill, 'sqlite'));
        const rows = sqlite.prepare(migration.fill.select).all() as Array<Record<string, unknown>>;
        for (const { id, value } of migration.fill.compute(rows)) write.run(value, id);
      }
      sqlite
        .prepare('INSERT INTO schema_migration (version, name, applied_at) VALUES (?, ?, ?)')
        .run(migration.version, migration.name, Date.now());
    })();
    done.push(migration.version);
  }
  return done;
}

/** A database migrated by a newer program is left alone: this one would misread it. */
export function refuseNewerSchema(newest: number): void {
  if (newest > SCHEMA_VERSION) {
    throw new Error(
      `The database is at schema version ${newest}, newer than this program (${SCHEMA_VERSION}). Upgrade the program.`,
    );
  }
}

export function appliedVersion(sqlite: BetterSqlite3.Database): number {
  const row = sqlite.prepare('SELECT max(version) AS v FROM schema_migration').get() as { v: number | null };
  return row.v ?? 0;
}
