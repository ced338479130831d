import type { CoreParts } from '../../shared/core-parts.js';
import { newId } from '../../shared/ids.js';
import { SiteRepo } from '../../shared/modules/sync/sites.js';
import { type BatchApplier, PeerLink } from '../../shared/sync/peer-link.js';
import { type Command, PROTOCOL_V, topicsFor } from '../../shared/sync/protocol.js';
import type { SendStore } from '../../shared/sync/send-store.js';
import type { SyncTransport } from '../../shared/sync/transport.js';

/** What writeSiteSnapshot (shared/sync/snapshot.ts) wrote into the site's log. */
export interface SiteSnapshot {
  /** The first seq written; with no rows, the seq after the last one taken. */
  from: number;
  to: number;
  rows: number;
}

export type SiteLinksDeps = Pick<CoreParts, 'config' | 'db' | 'kysely' | 'clock' | 'log'>;

export interface SiteLinksOptions {
  deps: SiteLinksDeps;
  transport: SyncTransport;
  /** Our change log, stream id, the sites' acknowledged positions and sync_meta. */
  store: SendStore;
  applier: BatchApplier;
  /** Writes everything the site needs into its log as new rows. */
  snapshot: (siteId: string) => SiteSnapshot | Promise<SiteSnapshot>;
  /** How often an unanswered resync command is repeated. */
  resyncRepeatMs?: number;
  /** Several nodes share the sites' batches: an early one waits this long for its turn (link-receiver.ts). */
  parkEarlyMs?: number;
}

interface PendingResync {
  stream: string;
  resumeFrom: number;
}

interface ResyncCall extends PendingResync {
  commandId: string;
  timer: NodeJS.Timeout;
}

const resyncKey = (siteId: string) => `resync:${siteId}`;
/** An unknown site id is looked up again at most this often (and logged at most this often). */
const UNKNOWN_SITE_RECHECK_MS = 30_000;

/**
 * The cloud's links, one PeerLink per site (peer name = site id), made on first use for sites in
 * the `site` table. Messages naming another site id are logged and dropped.
 *
 * Resync (docs/sync.md "Snapshots and resync"): a site that has no position in our log yet (first contact, a replaced edge
 * database that acknowledges nothing of our stream) or that needs rows we have pruned gets a
 * snapshot: writeSiteSnapshot puts everything it needs into its log as new rows, a `resync`
 * command tells the edge to take that point as its position, and sending resumes there once the
 * edge has said ok. The command is QoS 1 and repeated until answered; the pending resync is kept in
 * sync_meta so a restarted cloud does not write the snapshot twice.
 */
export class SiteLinks {
  private readonly links = new Map<string, Promise<PeerLink | undefined>>();
  private readonly unknown = new Map<string, number>();
  private readonly resyncs = new Map<string, ResyncCall>();
  /** One resend decision per site at a time: two at once could write two snapshots. */
  private readonly deciding = new Map<string, Promise<boolean>>();
  private readonly sites: SiteRepo;
  private stopped = false;

  constructor(private readonly o: SiteLinksOptions) {
    this.sites = new SiteRepo(o.deps.kysely);
  }

  /** The site's link, made and started on first use; undefined for a site id we do not know. */
  get(siteId: string): Promise<PeerLink | undefined> {
    const known = this.links.get(siteId);
    if (known) return known;
    const checkedAt = this.unknown.get(siteId);
    if (checkedAt !== undefined && this.o.deps.clock.now() - checkedAt < UNKNOWN_SITE_RECHECK_MS) {
      return Promise.resolve(undefined);
    }
    const made: Promise<PeerLink | undefined> = this.make(siteId).catch((err: Error) => {
      // A database error (no pool connection in time, a statement timeout) must neither end the
      // process (callers such as the message handler do not await this) nor stay cached: the
      // site's next message tries again (this one is not acknowledged, so the site resends it).
      if (this.links.get(siteId) === made) this.links.delete(siteId);
      this.o.deps.log.error({ siteId, err: err.message }, 'site link not made; its next message tries again');
      return undefined;
    });
    this.links.set(siteId, made);
    return made;
  }

  /** Links made so far. */
  async all(): Promise<PeerLink[]> {
    const links = await Promise.all(this.links.values());
    return links.filter((l): l is PeerLink => l !== undefined);
  }

  /** New rows were logged for these peers (site ids). */
  wake(peers: ReadonlySet<string>): void {
    for (const peer of peers) void this.links.get(peer)?.then((link) => link?.wake());
  }

  /** Answer to a resync command from the site; true when it was one of ours. */
  resyncAnswered(siteId: string, commandId: string, ok: boolean): boolean {
    const call = this.resyncs.get(siteId);
    if (!call || call.commandId !== commandId) return false;
    if (!ok) {
      this.o.deps.log.error({ siteId }, 'site refused the resync command; repeating it');
      return true;
    }
    this.cancelResync(siteId);
    void this.finishResync(siteId, call);
    return true;
  }

  /** The site went offline: stop repeating its resync command (it is sent again when it returns). */
  siteOffline(siteId: string): void {
    this.cancelResync(siteId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const siteId of [...this.resyncs.keys()]) this.cancelResync(siteId);
    for (const link of await this.all()) await link.stop();
  }

  private async make(siteId: string): Promise<PeerLink | undefined> {
    const site = await this.sites.get(siteId);
    if (!site || this.stopped) {
      this.links.delete(siteId);
      this.unknown.set(siteId, this.o.deps.clock.now());
      if (!site) this.o.deps.log.warn({ siteId }, 'message from an unknown site id dropped');
      return undefined;
    }
    this.unknown.delete(siteId);
    const topics = topicsFor(siteId);
    const link = new PeerLink({
      deps: this.o.deps,
      peer: siteId,
      site: siteId,
      transport: this.o.transport,
      publishTo: { changes: topics.downChanges, ack: topics.downAck },
      store: this.o.store,
      applier: this.o.applier,
      ...(this.o.parkEarlyMs ? { parkEarlyMs: this.o.parkEarlyMs } : {}),
      beforeResend: (from) => this.serialized(siteId, () => this.beforeResend(siteId, from)),
    });
    await link.start();
    return link;
  }

  private serialized(siteId: string, decide: () => Promise<boolean>): Promise<boolean> {
    const next = (this.deciding.get(siteId) ?? Promise.resolve(true)).catch(() => true).then(decide);
    this.deciding.set(siteId, next);
    return next.finally(() => {
      if (this.deciding.get(siteId) === next) this.deciding.delete(siteId);
    });
  }

  /** True when the site can be sent rows from `from`; otherwise starts (or repeats) a resync. */
  private async beforeResend(siteId: string, from: number): Promise<boolean> {
    const { deps, store } = this.o;
    const state = {
      cursor: await store.cursor(siteId),
      pruned: await store.prunedUpTo(siteId),
      stream: await store.stream(),
      pending: await readPending(store, siteId),
    };
    const established = state.cursor?.ackedAt !== null && state.cursor?.ackedAt !== undefined;
    // from 1 on an established cursor: the edge acknowledged nothing of our stream (new database).
    if (established && from > state.pruned && from > 1 && !state.pending) return true;
    let pending = state.pending?.stream === state.stream ? state.pending : undefined;
    if (!pending) {
      const reason = !established
        ? 'first contact'
        : from <= state.pruned
          ? 'rows pruned'
          : 'site has nothing of our stream';
      const snap = await this.o.snapshot(siteId);
      // An empty snapshot's `from` is the seq after the last one taken when it was written (under
      // the change-log lock on PostgreSQL, so no row below it is still to commit).
      const resumeFrom = snap.from;
      await writePending(store, siteId, { stream: state.stream, resumeFrom });
      pending = { stream: state.stream, resumeFrom };
      deps.log.info(
        { siteId, reason, rows: snap.rows, resumeFrom },
        'snapshot written for site; resync under way',
      );
    }
    this.sendResync(siteId, pending);
    return false;
  }

  private sendResync(siteId: string, pending: PendingResync): void {
    this.cancelResync(siteId);
    const commandId = newId();
    const publish = () => {
      const now = this.o.deps.clock.now();
      const command: Command = {
        v: PROTOCOL_V,
        id: commandId,
        kind: 'resync',
        args: { stream: pending.stream, resumeFrom: pending.resumeFrom },
        deadline: now + this.o.deps.config.sync.commandTimeoutMs,
        sentAt: now,
      };
      this.o.transport
        .publish(topicsFor(siteId).downCmd, JSON.stringify(command), { qos: 1 })
        .catch((err: Error) =>
          this.o.deps.log.debug({ siteId, err: err.message }, 'resync command not sent'),
        );
    };
    const repeatMs = this.o.resyncRepeatMs ?? Math.min(2_000, this.o.deps.config.sync.ackTimeoutMs);
    const timer = setInterval(publish, repeatMs);
    timer.unref();
    this.resyncs.set(siteId, { ...pending, commandId, timer });
    publish();
  }

  private cancelResync(siteId: string): void {
    const call = this.resyncs.get(siteId);
    if (call) clearInterval(call.timer);
    this.resyncs.delete(siteId);
  }

  private async finishResync(siteId: string, call: ResyncCall): Promise<void> {
    const { deps, store } = this.o;
    const stillCurrent = (await store.stream()) === call.stream;
    if (stillCurrent) await store.deleteMeta(resyncKey(siteId));
    const link = await this.links.get(siteId);
    if (!link) return;
    if (!stillCurrent) {
      // Our stream rotated while the edge was answering: start over.
      link.activate('resync of an old stream answered');
      return;
    }
    deps.log.info({ siteId, resumeFrom: call.resumeFrom }, 'site resynced; sending from the snapshot');
    link.resumeAt(call.resumeFrom);
  }
}

async function readPending(store: SendStore, siteId: string): Promise<PendingResync | undefined> {
  const stored = await store.meta(resyncKey(siteId));
  if (stored === undefined) return undefined;
  try {
    const value = JSON.parse(stored) as PendingResync;
    return typeof value.stream === 'string' && Number.isInteger(value.resumeFrom) ? value : undefined;
  } catch {
    return undefined;
  }
}

function writePending(store: SendStore, siteId: string, pending: PendingResync): Promise<void> {
  return store.putMeta(resyncKey(siteId), JSON.stringify(pending));
}
