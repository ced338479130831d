import type { Selectable } from 'kysely';
import { type AppDatabase, type Kdb, unguarded } from '../../db/database.js';
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
 * Deletes up to `limit` location pings older than `cutoff`, past the synced-write guard (no change
 * log: see retention.ts for why), on either database. Returns how many went.
 */
export async function deleteLocationsBefore(db: AppDatabase, cutoff: number, limit: number): Promise<number> {
  const oldest = (eb: Kdb) =>
    eb.selectFrom('sessionLocation').select('id').where('at', '<', cutoff).limit(limit);
  const result = await unguarded(db.kysely)
    .deleteFrom('sessionLocation')
    .where('id', 'in', oldest(db.kysely))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
