import { type Selectable, sql } from 'kysely';
import { toIsoOrNull } from '../../shared/clock.js';
import type { CoreParts } from '../../shared/core-parts.js';
import type { SiteTable } from '../../shared/db/tables.js';
import type { SiteSyncStatusOutT } from '../../shared/modules/sync/schema.js';
import { parseHlc } from '../../shared/sync/hlc.js';
import { storedGates } from './site-gates.js';

export type SiteRowsDeps = Pick<CoreParts, 'reads' | 'clock'>;

type SiteFigures = Selectable<SiteTable> & {
  queued: number | null;
  deadLetters: number | null;
  oldestHlc: string | null;
};

/**
 * Each site's row of GET /api/sync/status (SiteSyncStatus) and of the `site.status` live event:
 * what its retained status last said (the `site` table), and the cloud's side of its link: the
 * queue and dead letters from sync_peer_count (kept by triggers, never counted here) and the lag
 * from the oldest unacknowledged row (one step on the change_log (peer, seq) index).
 *
 * One statement for any number of sites, run by the read pool: with hundreds of sites, a
 * statement per site on the main thread held every other request up on each dashboard's poll.
 */
export class SiteRows {
  constructor(private readonly deps: SiteRowsDeps) {}

  async all(): Promise<SiteSyncStatusOutT[]> {
    return this.rowsOf(await this.figures().execute());
  }

  /** Undefined for a site that is not registered. */
  async one(siteId: string): Promise<SiteSyncStatusOutT | undefined> {
    return this.rowsOf(await this.figures().where('site.id', '=', siteId).execute())[0];
  }

  /** Changes waiting for every registered site together (/readyz). */
  async queuedTotal(): Promise<number> {
    const row = await this.deps.reads.kysely
      .selectFrom('syncPeerCount as c')
      .innerJoin('site as s', 's.id', 'c.peer')
      .select(sql<number>`coalesce(sum(c.log_rows - c.acked_rows), 0)`.as('queued'))
      .executeTakeFirst();
    return Number(row?.queued ?? 0);
  }

  private figures() {
    return this.deps.reads.kysely
      .selectFrom('site')
      .leftJoin('syncPeerCount as c', 'c.peer', 'site.id')
      .leftJoin('syncCursor as cur', 'cur.peer', 'site.id')
      .selectAll('site')
      .select((eb) => [
        sql<number | null>`c.log_rows - c.acked_rows`.as('queued'),
        'c.deadLetters',
        eb
          .selectFrom('changeLog as l')
          .select('l.hlc')
          .whereRef('l.peer', '=', 'site.id')
          .where('l.seq', '>', sql<number>`coalesce(cur.acked_seq, 0)`)
          .orderBy('l.seq')
          .limit(1)
          .as('oldestHlc'),
      ])
      .orderBy('site.id');
  }

  private rowsOf(sites: SiteFigures[]): SiteSyncStatusOutT[] {
    const now = this.deps.clock.now();
    return sites.map((site) => ({
      siteId: site.id,
      name: site.name,
      link: site.linkState,
      lastSeenAt: toIsoOrNull(site.lastSeenAt),
      // How long the oldest change waiting for the site has been waiting.
      lagMs: site.oldestHlc ? Math.max(0, now - parseHlc(site.oldestHlc).ms) : 0,
      queued: Number(site.queued ?? 0),
      reportedQueued: site.reportedQueued,
      deadLetters: Number(site.deadLetters ?? 0),
      clockSkewMs: site.clockSkewMs,
      schemaV: site.reportedSchemaV,
      version: site.reportedVersion,
      linkSince: toIsoOrNull(site.linkChangedAt),
      gates: storedGates(site.reportedGates),
    }));
  }
}
