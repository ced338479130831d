import type { CoreParts } from '../../shared/core-parts.js';
import { exclusive } from '../../shared/sync/outbox.js';
import { CommandResult, decode, parseTopic, SiteStatus } from '../../shared/sync/protocol.js';
import { LogPruner } from '../../shared/sync/prune.js';
import type { SyncRuntime } from '../../shared/sync/runtime.js';
import { type SendStore, sendStoreOf } from '../../shared/sync/send-store.js';
import type { SyncApplier } from '../../shared/sync/sync-applier.js';
import type { SyncTransport } from '../../shared/sync/transport.js';
import { SiteLinks, type SiteSnapshot } from './site-links.js';
import { SiteRows } from './site-rows.js';
import { SiteStatusTracker } from './site-status.js';
import { SiteStatusEvents } from './site-status-events.js';

export interface CloudSyncOptions {
  transport: SyncTransport;
  applier: SyncApplier;
  /** writeSiteSnapshot(deps, siteId) in production. */
  snapshot: (siteId: string) => SiteSnapshot | Promise<SiteSnapshot>;
}

export type CloudSyncDeps = Pick<
  CoreParts,
  'config' | 'db' | 'kysely' | 'reads' | 'clock' | 'log' | 'hlc' | 'changes' | 'bus'
>;

/**
 * The cloud's change streams: one PeerLink per site (cloud/sync/site-links.ts) over the topics of
 * CLOUD_SUBSCRIPTIONS, the sites' retained status into the `site` table, and pruning. A site is sent
 * rows only while its status says online; on each 'online' its link starts again from what the
 * site acknowledged.
 *
 * One cloud node per broker: with several nodes, shared subscriptions ($share/cloud/yards/+/up/#)
 * would spread a site's batches over nodes, each with its own view of the link; that needs per-site
 * ownership of links and is not built here.
 */
export class CloudSync implements SyncRuntime {
  private readonly store: SendStore;
  private readonly links: SiteLinks;
  private readonly statuses: SiteStatusTracker;
  private readonly rows: SiteRows;
  private readonly statusEvents: SiteStatusEvents;
  private readonly pruner: LogPruner;
  /** Status messages are handled one at a time per site, in arrival order. */
  private readonly statusChains = new Map<string, Promise<void>>();
  private listening = false;

  constructor(
    private readonly deps: CloudSyncDeps,
    private readonly o: CloudSyncOptions,
  ) {
    this.store = sendStoreOf(deps);
    this.links = new SiteLinks({
      deps,
      transport: o.transport,
      store: this.store,
      applier: o.applier,
      snapshot: o.snapshot,
    });
    this.statuses = new SiteStatusTracker(deps);
    this.rows = new SiteRows(deps);
    this.statusEvents = new SiteStatusEvents(deps, { row: (siteId) => this.rows.one(siteId) });
    this.pruner = new LogPruner(deps);
  }

  async start(): Promise<void> {
    if (!this.listening) {
      this.listening = true;
      this.o.transport.onMessage((topic, payload) => this.onMessage(topic, payload));
      // Statuses are retained: every (re)connect hands us each site's current one, which
      // (re)activates its link. Until then nothing is sent.
      this.o.transport.onDisconnect(() => {
        void this.links.all().then((links) => {
          for (const link of links) link.deactivate();
        });
      });
      this.deps.changes.onLogged((peers) => this.links.wake(peers));
    }
    await this.store.stream();
    const pending = await this.o.applier.applyPending();
    if (pending > 0) this.deps.log.info({ rows: pending }, 'applied rows kept for a newer schema');
    await this.pruner.start();
    await this.o.transport.start();
  }

  async stop(): Promise<void> {
    await this.links.stop();
    await this.pruner.stop();
    await this.o.transport.stop();
    await Promise.all(this.statusChains.values());
    await this.statusEvents.stop();
  }

  async queued(): Promise<number> {
    return this.rows.queuedTotal();
  }

  async status() {
    const sites = await this.rows.all();
    const numbers = {
      lastSeq: await this.store.topSeq(),
      deadLetters: (await this.store.totalFigures()).deadLetters,
    };
    return {
      mode: 'cloud' as const,
      role: 'cloud' as const,
      siteId: this.deps.config.siteId,
      lastSeq: numbers.lastSeq,
      ackedSeq: 0,
      queued: sites.reduce((n, s) => n + s.queued, 0),
      deadLetters: numbers.deadLetters,
      clockSkewMs: Math.round(this.deps.hlc.maxSkewMs),
      sites,
    };
  }

  private onMessage(topic: string, payload: Buffer): void {
    const parsed = parseTopic(topic);
    if (!parsed) return;
    const { siteId, rest } = parsed;
    if (rest === 'status') {
      this.inStatusOrder(siteId, () => this.onStatus(siteId, payload));
      return;
    }
    if (rest !== 'up/changes' && rest !== 'up/ack' && rest !== 'up/cmd-result') return;
    void this.links.get(siteId).then((link) => {
      if (!link) return;
      this.statuses.seen(siteId);
      if (rest === 'up/changes') link.receiveBatch(payload);
      else if (rest === 'up/ack') link.receiveAck(payload);
      else {
        const result = decode(CommandResult, payload);
        if (result) this.links.resyncAnswered(siteId, result.id, result.ok);
      }
    });
  }

  private inStatusOrder(siteId: string, work: () => Promise<void>): void {
    const next = (this.statusChains.get(siteId) ?? Promise.resolve())
      .then(work)
      .catch((err: Error) => this.deps.log.error({ siteId, err: err.message }, 'site status not handled'));
    this.statusChains.set(siteId, next);
    void next.finally(() => {
      if (this.statusChains.get(siteId) === next) this.statusChains.delete(siteId);
    });
  }

  private async onStatus(siteId: string, payload: Buffer): Promise<void> {
    const status = decode(SiteStatus, payload);
    if (!status) {
      this.deps.log.warn({ siteId }, 'malformed site status dropped');
      return;
    }
    const link = await this.links.get(siteId);
    if (!link) return;
    const recorded = await this.statuses.record(siteId, status);
    if (recorded?.changed) this.statusEvents.changed(siteId, recorded.linkChanged);
    if (status.state === 'online') {
      link.activate('site online');
    } else {
      link.deactivate();
      this.links.siteOffline(siteId);
    }
  }
}
