import type { Kdb } from '../db/database.js';
import { PostgresWork } from '../db/sql-work.js';
import type { SyncedEntity } from './entities.js';
import { type Route, uncachedCloudRouting, type WriteContext } from './routing.js';

/**
 * The cloud's routing on PostgreSQL for writers that hold a Kysely transaction (ChangeCapture): the
 * same rule and lookups as the applier's (routing.ts uncachedCloudRouting), awaited in the write's
 * own transaction (`db`), so a row sees the yard or site written just before it. Nothing is cached
 * between writes (see uncachedCloudRouting).
 */
export class PostgresCloudRouting {
  private readonly routing = uncachedCloudRouting();
  private readonly driver = new PostgresWork();

  // Bound (arrow) members: writers are handed peersFor on its own.
  readonly peersFor = (
    entity: SyncedEntity,
    row: Record<string, unknown>,
    db: Kdb,
    write?: WriteContext,
  ): Promise<Route[]> => this.driver.run(db, this.routing.routes(entity, row, write));

  readonly siteOfYard = (yardId: string, db: Kdb): Promise<string | undefined> =>
    this.driver.run(db, this.routing.siteOfYard(yardId));
}
