import type { Selectable } from 'kysely';
import { toIsoOrNull } from '../../shared/clock.js';
import type { CoreParts } from '../../shared/core-parts.js';
import type { SiteTable } from '../../shared/db/tables.js';
import type { SiteSyncStatusOutT } from '../../shared/modules/sync/schema.js';
import { parseHlc } from '../../shared/sync/hlc.js';
import { exclusive, type Outbox } from '../../shared/sync/outbox.js';
import { PeerCounts } from '../../shared/sync/peer-counts.js';
import { storedGates } from './site-gates.js';

export type SiteRowsDeps = Pick<CoreParts, 'db' | 'kysely' | 'clock'>;

type SiteRow = Selectable<SiteTable>;

/**
 * Each site's row of GET /api/sync/status (SiteSyncStatus) and of the `site.status` live event:
 * what its retained status last said (the `site` table), and the cloud's side of its link: the
 * queue and dead letters from PeerCounts (kept by triggers, never counted here) and the lag from
 * the oldest unacknowledged row (one step on the change_log (peer, seq) index).
 */
export class SiteRows {
  private readonly counts: PeerCounts;

  constructor(
    private readonly deps: SiteRowsDeps,
    private readonly outbox: Outbox,
  ) {
    this.counts = new PeerCounts(deps.db.sqlite);
  }

  async all(): Promise<SiteSyncStatusOutT[]> {
    const sites = await this.deps.kysely.selectFrom('site').selectAll().orderBy('id').execute();
    return this.rowsOf(sites);
  }

  /** Undefined for a site that is not registered. */
  async one(siteId: string): Promise<SiteSyncStatusOutT | undefined> {
    const site = await this.deps.kysely.selectFrom('site').selectAll().where('id', '=', siteId).execute();
    return (await this.rowsOf(site))[0];
  }

  /** Changes waiting for every registered site together (/readyz). */
  async queuedTotal(): Promise<number> {
    return exclusive(this.deps, () =>
      Number(
        this.deps.db.sqlite
          .prepare(
            'SELECT coalesce(sum(c.log_rows - c.acked_rows), 0) FROM sync_peer_count c JOIN site s ON s.id = c.peer',
          )
          .pluck()
          .get(),
      ),
    );
  }

  private rowsOf(sites: SiteRow[]): Promise<SiteSyncStatusOutT[]> {
    const now = this.deps.clock.now();
    return exclusive(this.deps, () => {
      const acked = this.deps.db.sqlite.prepare('SELECT acked_seq FROM sync_cursor WHERE peer = ?').pluck();
      return sites.map((site) => {
        const ackedSeq = Number(acked.get(site.id) ?? 0);
        const oldest = this.outbox.oldestQueuedHlc(site.id, ackedSeq);
        const counted = this.counts.of(site.id);
        return {
          siteId: site.id,
          name: site.name,
          link: site.linkState,
          lastSeenAt: toIsoOrNull(site.lastSeenAt),
          // How long the oldest change waiting for the site has been waiting.
          lagMs: oldest ? Math.max(0, now - parseHlc(oldest).ms) : 0,
          queued: counted.queued,
          reportedQueued: site.reportedQueued,
          deadLetters: counted.deadLetters,
          clockSkewMs: site.clockSkewMs,
          schemaV: site.reportedSchemaV,
          version: site.reportedVersion,
          linkSince: toIsoOrNull(site.linkChangedAt),
          gates: storedGates(site.reportedGates),
        };
      });
    });
  }
}
