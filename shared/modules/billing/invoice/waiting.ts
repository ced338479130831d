import type { Kdb } from '../../../db/database.js';

/** A yard the cloud cannot invoice yet for a period: its site may still hold activity of it. */
export interface WaitingYard {
  yardId: string;
  siteId: string;
  /** Why: `site-catching-up`, `site-offline-with-changes-queued`, `site-never-synced`, `no-change-since-period-end`. */
  reason: string;
}

/**
 * Whether the cloud has everything a site recorded up to a period's end (docs/domain.md "Billing",
 * waiting sites). What the cloud knows of a site: its link state and queue depth as the site last
 * reported them (`site`, from the retained status topic; the broker's will reports an offline site
 * with queue 0, so that figure alone proves nothing) and when it last applied a batch of the site's
 * changes (`sync_cursor.applied_at`, the cloud's clock). The site sends its changes in order, so:
 * - online with nothing queued: in step now, so past the period's end;
 * - online with changes queued: catching up, perhaps on changes from before the end: waiting;
 * - offline (or never heard from): synced past the end only when a batch was applied at or after
 *   the end and nothing was reported queued; otherwise waiting.
 * A yard whose site is not registered has no site to wait for. Only the cloud asks (a standalone
 * edge holds all its own activity).
 */
export class SiteSyncCheck {
  constructor(private readonly db: Kdb) {}

  async waiting(yard: { id: string; siteId: string }, periodEnd: number): Promise<WaitingYard | null> {
    const site = await this.db
      .selectFrom('site')
      .select(['id', 'linkState', 'reportedQueued'])
      .where('id', '=', yard.siteId)
      .executeTakeFirst();
    if (!site) return null;
    const cursor = await this.db
      .selectFrom('syncCursor')
      .select('appliedAt')
      .where('peer', '=', site.id)
      .executeTakeFirst();
    const appliedAt = cursor?.appliedAt ?? null;
    const wait = (reason: string): WaitingYard => ({ yardId: yard.id, siteId: site.id, reason });
    if (site.linkState === 'online') return site.reportedQueued > 0 ? wait('site-catching-up') : null;
    if (site.reportedQueued > 0) return wait('site-offline-with-changes-queued');
    if (appliedAt === null) return wait('site-never-synced');
    if (appliedAt < periodEnd) return wait('no-change-since-period-end');
    return null;
  }
}
