import type { Selectable } from 'kysely';
import { type AppDatabase, type Kdb, sqliteOf } from '../../db/database.js';
import type { DriverSessionTable } from '../../db/tables.js';

export type DriverSessionRow = Selectable<DriverSessionTable>;

/** Reads of driver sessions. Writes go through core.changes (driver_session is synced). */
export class DriverSessionRepo {
  constructor(private readonly db: Kdb) {}

  /** The driver's open session (endedAt null); at most one exists, the newest wins if not. */
  openOf(driverId: string): Promise<DriverSessionRow | undefined> {
    return this.db
      .selectFrom('driverSession')
      .selectAll()
      .where('driverId', '=', driverId)
      .where('endedAt', 'is', null)
      .orderBy('startedAt', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  allOpenOf(driverId: string): Promise<DriverSessionRow[]> {
    return this.db
      .selectFrom('driverSession')
      .selectAll()
      .where('driverId', '=', driverId)
      .where('endedAt', 'is', null)
      .execute();
  }
}

/**
 * Deletes up to `limit` location pings older than `cutoff`, straight through SQLite (no change
 * log: see retention.ts for why). Returns how many went.
 */
export function deleteLocationsBefore(db: AppDatabase, cutoff: number, limit: number): number {
  return sqliteOf(db, 'location-ping retention')
    .prepare(
      'DELETE FROM session_location WHERE id IN (SELECT id FROM session_location WHERE at < ? LIMIT ?)',
    )
    .run(cutoff, limit).changes;
}
