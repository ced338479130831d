import type { CoreParts } from '../../shared/core-parts.js';
import type { PeerLink } from '../../shared/sync/peer-link.js';
import {
  CommandResult,
  decode,
  isCommandResult,
  parseTopic,
  SiteStatus,
} from '../../shared/sync/protocol.js';
import { LogPruner } from '../../shared/sync/prune.js';
import type { SyncRuntime } from '../../shared/sync/runtime.js';
import { type SendStore, sendStoreOf } from '../../shared/sync/send-store.js';
import type { SyncApplier } from '../../shared/sync/sync-applier.js';
import type { SyncTransport } from '../../shared/sync/transport.js';
import { CountingApplier } from './applied-count.js';
import { SiteLinks, type SiteSnapshot } from './site-links.js';
import { SiteRows } from './site-rows.js';
import { type SiteSenders, SoleSender } from './site-senders.js';
import { SiteStatusTracker } from './site-status.js';
import { SiteStatusEvents } from './site-status-events.js';

export interface CloudSyncOptions {
  transport: SyncTransport;
  applier: SyncApplier;
  /** writeSiteSnapshot(deps, siteId) in production. */
  snapshot: (siteId: string) => SiteSnapshot | Promise<SiteSnapshot>;
  /** Which node sends to each site (site-senders.ts); every site is this node's by default. */
  senders?: SiteSenders;
  /** Several nodes share the sites' batches: an early one waits this long for its turn (link-receiver.ts). */
  parkEarlyMs?: number;
  /** This node's id (cloudNodeId), in the status. */
  nodeId?: string;
}

/** How often a node tries to take over sending to online sites no node sends to (one died). */
const TAKE_OVER_EVERY_MS = 5_000;

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
 * Several nodes (on PostgreSQL): each hears every site's status and acks, and gets some of its
 * batches through the shared subscription (protocol.ts cloudSubscriptions), which it applies; one
 * node at a time sends to each site (site-senders.ts), and the others take a site over when that
 * node dies or loses the broker.
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
  private readonly senders: SiteSenders;
  /** Sites whose last status said online. */
  private readonly online = new Set<string>();
  private takeOver: NodeJS.Timeout | undefined;
  /** The sites' batches this node applied since it started (the status: which node does the work). */
  private readonly applied: CountingApplier;

  constructor(
    private readonly deps: CloudSyncDeps,
    private readonly o: CloudSyncOptions,
  ) {
    this.store = sendStoreOf(deps);
    this.applied = new CountingApplier(o.applier);
    this.links = new SiteLinks({
      deps,
      transport: o.transport,
      store: this.store,
      applier: this.applied,
      snapshot: o.snapshot,
      ...(o.parkEarlyMs ? { parkEarlyMs: o.parkEarlyMs } : {}),
    });
    this.statuses = new SiteStatusTracker(deps);
    this.rows = new SiteRows(deps);
    this.statusEvents = new SiteStatusEvents(deps, { row: (siteId) => this.rows.one(siteId) });
    this.pruner = new LogPruner(deps);
    this.senders = o.senders ?? new SoleSender();
  }

  async start(): Promise<void> {
    if (!this.listening) {
      this.listening = true;
      this.o.transport.onMessage((topic, payload) => this.onMessage(topic, payload));
      // Statuses are retained: every (re)connect hands us each site's current one, which
      // (re)activates its link. Until then nothing is sent.
      // Without the broker this node cannot send: it gives its sites up for a node that can.
      this.o.transport.onDisconnect(() => {
        void this.deactivateAll().then(() => this.senders.releaseAll());
      });
      this.senders.onLost(() => void this.deactivateAll());
      this.deps.changes.onLogged((peers) => this.links.wake(peers));
    }
    await this.store.stream();
    const pending = await this.o.applier.applyPending();
    if (pending > 0) this.deps.log.info({ rows: pending }, 'applied rows kept for a newer schema');
    await this.pruner.start();
    await this.senders.start();
    await this.o.transport.start();
    this.takeOver = setInterval(() => this.takeOverSites(), TAKE_OVER_EVERY_MS);
    this.takeOver.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.takeOver);
    await this.links.stop();
    await this.senders.stop();
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
      node: {
        id: this.o.nodeId ?? 'cloud',
        sendsTo: (await this.links.all()).filter((l) => l.isActive).map((l) => l.peer),
        applied: this.applied.figures(),
      },
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
    if (rest !== 'up/changes' && rest !== 'up/ack' && !isCommandResult(rest)) return;
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
      this.online.add(siteId);
      await this.sendIfOurs(siteId, link, 'site online');
    } else {
      this.online.delete(siteId);
      link.deactivate();
      this.links.siteOffline(siteId);
      await this.senders.release(siteId);
    }
  }

  /** Sends to the site if this node is (or now becomes) its sender; another node's otherwise. */
  private async sendIfOurs(siteId: string, link: PeerLink, reason: string): Promise<void> {
    if (await this.senders.claim(siteId)) link.activate(reason);
    else link.deactivate();
  }

  /** Online sites that no node sends to (their sender died or lost the broker) are claimed. */
  private takeOverSites(): void {
    if (!this.o.transport.connected) return;
    for (const siteId of this.online) {
      this.inStatusOrder(siteId, async () => {
        const link = await this.links.get(siteId);
        if (link && !link.isActive && this.online.has(siteId))
          await this.sendIfOurs(siteId, link, 'taking over sending to the site');
      });
    }
  }

  private async deactivateAll(): Promise<void> {
    for (const link of await this.links.all()) link.deactivate();
  }
}
