import type { CoreParts } from '../../shared/core-parts.js';
import type { SiteSyncStatusOutT } from '../../shared/modules/sync/schema.js';

/** A site's `site.status` events go out at most this often, except on a change of link state. */
const SITE_EVENT_EVERY_MS = 1_000;

export interface SiteStatusEventsOptions {
  /** The site's row as GET /api/sync/status answers it (undefined: no longer registered). */
  row: (siteId: string) => Promise<SiteSyncStatusOutT | undefined>;
  everyMs?: number;
}

interface PerSite {
  lastSentAt: number;
  timer?: NodeJS.Timeout | undefined;
  /** A send under way: the next one waits for it, so events leave in order. */
  sending?: Promise<void> | undefined;
}

/**
 * The cloud's `site.status` live event (shared/events.ts): a site's row of the sync status whenever
 * what its status message says changes (CloudSync.onStatus). Per site, a change of link state goes
 * out at once; other changes at most one per `everyMs`, and the row is read when the event is sent,
 * so the last change is always the one that arrives. Site-wide: every staff member receives it.
 */
export class SiteStatusEvents {
  private readonly sites = new Map<string, PerSite>();
  private stopped = false;

  constructor(
    private readonly deps: Pick<CoreParts, 'bus' | 'log'>,
    private readonly o: SiteStatusEventsOptions,
  ) {}

  /** The site's status changed; `now`: its link state did (no waiting). */
  changed(siteId: string, now: boolean): void {
    if (this.stopped) return;
    const site = this.sites.get(siteId) ?? { lastSentAt: 0 };
    this.sites.set(siteId, site);
    if (now) {
      if (site.timer) clearTimeout(site.timer);
      site.timer = undefined;
      this.send(siteId, site);
      return;
    }
    if (site.timer) return;
    const delay = Math.max(0, site.lastSentAt + (this.o.everyMs ?? SITE_EVENT_EVERY_MS) - Date.now());
    site.timer = setTimeout(() => {
      site.timer = undefined;
      this.send(siteId, site);
    }, delay);
    site.timer.unref();
  }

  /** Waits for the events being sent (CloudSync.stop). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const site of this.sites.values()) if (site.timer) clearTimeout(site.timer);
    await Promise.all([...this.sites.values()].map((s) => s.sending));
  }

  private send(siteId: string, site: PerSite): void {
    site.lastSentAt = Date.now();
    const previous = site.sending ?? Promise.resolve();
    const sending = previous
      .then(() => this.o.row(siteId))
      .then((row) => {
        if (row && !this.stopped) this.deps.bus.publish({ type: 'site.status', yardId: null, data: row });
      })
      .catch((err: Error) => this.deps.log.warn({ siteId, err: err.message }, 'site.status not published'));
    site.sending = sending;
    void sending.finally(() => {
      if (site.sending === sending) site.sending = undefined;
    });
  }
}
