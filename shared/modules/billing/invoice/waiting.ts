import type { Kdb } from '../../../db/database.js';

/** A yard the cloud cannot invoice yet for a period: its site may still hold activity of it. */
export interface WaitingYard {
  yardId: string;
  yardCode: string;
  siteId: string;
  /** Why: `site-offline`, `site-catching-up`, `site-never-connected` (stable codes). */
  reason: WaitReason;
  /** The same in the user's words: what the cloud is waiting for, and why it matters. */
  message: string;
}

export const WAIT_REASONS = ['site-offline', 'site-catching-up', 'site-never-connected'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** Why a yard waits, in the words of the billing screens (no codes). */
function waitMessage(reason: WaitReason, yardCode: string, siteId: string): string {
  const site = `The site ${siteId} (yard ${yardCode})`;
  switch (reason) {
    case 'site-offline':
      return `${site} is offline: activity recorded there since it went offline, such as gate check-ins, has not reached the cloud.`;
    case 'site-catching-up':
      return `${site} is still sending recorded activity to the cloud, such as recent gate check-ins: the month may not be complete here yet.`;
    case 'site-never-connected':
      return `${site} has never connected to the cloud: none of its activity has arrived.`;
  }
}

/**
 * Which yards wait for their site before a past period is invoiced, plugged in at the composition
 * root (shared/services.ts): SiteSyncCheck at the cloud; none at a standalone edge, which holds all
 * its own activity.
 */
export interface SiteWait {
  /** Why the yard waits, or null when its period may be invoiced from what is here. */
  waiting(yard: { id: string; code: string; siteId: string }): Promise<WaitingYard | null>;
}

/** A standalone edge: no yard waits. */
export const noSiteWait: SiteWait = { waiting: async () => null };

/**
 * Whether the cloud has everything a site recorded up to a past period's end (docs/domain.md
 * "Billing", waiting sites). What the cloud knows of a site is its link state and queue depth as
 * the site last reported them (`site`, from the retained status topic). The site sends its changes
 * in order and within seconds while online, so:
 * - online with nothing queued: in step now, so past the period's end (the period is past);
 * - online with changes queued: catching up, perhaps on changes of the period: waiting;
 * - offline: waiting. Its queue is unknown: the broker's will reports an offline site with queue 0
 *   whatever it holds, and a clerk at the site may still record (or back-date) a movement of the
 *   period while the link is down. It is invoiced once it is back and has caught up, or with force;
 * - never connected: waiting (nothing of it has arrived).
 * A yard whose site is not registered here has no site to wait for.
 */
export class SiteSyncCheck implements SiteWait {
  constructor(private readonly db: Kdb) {}

  async waiting(yard: { id: string; code: string; siteId: string }): Promise<WaitingYard | null> {
    const site = await this.db
      .selectFrom('site')
      .select(['id', 'linkState', 'reportedQueued'])
      .where('id', '=', yard.siteId)
      .executeTakeFirst();
    if (!site) return null;
    const wait = (reason: WaitReason): WaitingYard => ({
      yardId: yard.id,
      yardCode: yard.code,
      siteId: site.id,
      reason,
      message: waitMessage(reason, yard.code, site.id),
    });
    if (site.linkState === 'never') return wait('site-never-connected');
    if (site.linkState === 'offline') return wait('site-offline');
    return site.reportedQueued > 0 ? wait('site-catching-up') : null;
  }
}
