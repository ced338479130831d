import { z } from 'zod';
import { toIsoOrNull } from '../../shared/clock.js';
import type { CoreParts } from '../../shared/core-parts.js';
import { SCHEMA_VERSION } from '../../shared/db/migrate.js';
import { commandRefusal } from '../../shared/sync/commands.js';
import { PeerLink } from '../../shared/sync/peer-link.js';
import {
  Command,
  type CommandResult,
  commandResultTopic,
  decode,
  PROTOCOL_V,
  type SiteStatus,
  topicsFor,
} from '../../shared/sync/protocol.js';
import { LogPruner } from '../../shared/sync/prune.js';
import type { SyncRuntime } from '../../shared/sync/runtime.js';
import { type SendStore, sendStoreOf } from '../../shared/sync/send-store.js';
import type { SyncApplier } from '../../shared/sync/sync-applier.js';
import type { MessageMeta, SyncTransport } from '../../shared/sync/transport.js';
import { GateStates } from './gate-states.js';
import { type LinkState, LinkWatch } from './link-watch.js';

/** The edge's peer name for the cloud (change_log.peer, sync_cursor.peer). */
export const CLOUD_PEER = 'cloud';
/** Status updates for a changed queue depth are published at most this often. */
const STATUS_EVERY_MS = 3_000;

/** How long a stopping edge waits for the broker to take its offline status. */
const OFFLINE_PUBLISH_WAIT_MS = 2_000;
/** A resync command this far past its deadline (beyond any tolerated clock skew) is not applied. */
const STALE_RESYNC_MS = 5 * 60_000;

const ResyncArgs = z.object({ stream: z.string().min(1), resumeFrom: z.number().int().positive() });

export interface EdgeSyncOptions {
  transport: SyncTransport;
  applier: SyncApplier;
  /** The program version reported in the status message. */
  version: string;
  /** Milliseconds between status updates while the queue changes (tests shorten it). */
  statusEveryMs?: number;
}

export type EdgeSyncDeps = Pick<
  CoreParts,
  'config' | 'db' | 'clock' | 'log' | 'hlc' | 'changes' | 'bus' | 'gates'
>;

/**
 * The change streams of a linked edge: one PeerLink to the cloud over `yards/{siteId}/...`
 * (sends up/changes and up/ack, receives down/changes and down/ack), the retained status message
 * (online on connect and as the queue or a gate relay's state changes, offline on a clean stop, the broker's will when the
 * edge vanishes), the `resync` command, and pruning of acknowledged rows. Owns the transport: starts
 * it last and stops it last, so the other sync components can share it.
 */
export class EdgeSync implements SyncRuntime {
  private readonly topics;
  private readonly store: SendStore;
  private readonly link: PeerLink;
  private readonly pruner: LogPruner;
  private readonly linkWatch: LinkWatch;
  private readonly gateStates: GateStates;
  private listening = false;
  private everConnected = false;
  private statusTimer: NodeJS.Timeout | undefined;
  private lastStatusAt = 0;
  private warnedPruned = 0;
  /** Resync command ids carried out: MQTT delivers a command again when its PUBACK was lost. */
  private readonly resyncsDone = new Set<string>();

  constructor(
    private readonly deps: EdgeSyncDeps,
    private readonly o: EdgeSyncOptions,
  ) {
    this.topics = topicsFor(deps.config.siteId);
    this.store = sendStoreOf(deps);
    this.link = new PeerLink({
      deps,
      peer: CLOUD_PEER,
      site: deps.config.siteId,
      transport: o.transport,
      publishTo: { changes: this.topics.upChanges, ack: this.topics.upAck },
      store: this.store,
      applier: o.applier,
      beforeResend: (from) => this.warnIfPruned(from),
      onProgress: () => {
        this.statusSoon();
        this.linkWatch.changed();
      },
    });
    this.pruner = new LogPruner(deps);
    this.linkWatch = new LinkWatch(deps, { state: () => this.linkState(), queued: () => this.queued() });
    this.gateStates = new GateStates(deps.gates, () => this.statusSoon());
  }

  async start(): Promise<void> {
    if (!this.listening) {
      this.listening = true;
      this.o.transport.onMessage((topic, payload, meta) => this.onMessage(topic, payload, meta));
      this.o.transport.onConnect(() => {
        this.everConnected = true;
        this.link.activate('connected');
        this.linkWatch.changed();
        void this.publishStatus();
      });
      this.o.transport.onDisconnect(() => {
        this.link.deactivate();
        this.linkWatch.changed();
      });
      this.deps.changes.onLogged((peers) => {
        if (!peers.has(CLOUD_PEER)) return;
        this.link.wake();
        this.statusSoon();
        this.linkWatch.changed();
      });
    }
    await this.link.start();
    this.linkWatch.start();
    this.gateStates.start();
    // Rows kept from a newer schema than the one we had: this program may understand them now.
    const pending = await this.o.applier.applyPending();
    if (pending > 0) this.deps.log.info({ rows: pending }, 'applied rows kept for a newer schema');
    await this.pruner.start();
    await this.o.transport.start();
  }

  async stop(): Promise<void> {
    this.linkWatch.stop();
    this.gateStates.stop();
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.statusTimer = undefined;
    if (this.o.transport.connected) {
      // A clean stop says so itself; the will covers the other cases. Bounded: a half-open link
      // may never answer the publish.
      await withTimeout(this.publish('offline'), OFFLINE_PUBLISH_WAIT_MS).catch(() => undefined);
    }
    await this.link.stop();
    await this.pruner.stop();
    await this.o.transport.stop();
  }

  /** Rows for the cloud it has not acknowledged (as stored: AckWriter stores each ack at once). */
  async queued(): Promise<number> {
    return (await this.store.peerFigures(CLOUD_PEER)).queued;
  }

  async status() {
    const link = this.link.snapshot();
    const [figures, totals] = [await this.store.peerFigures(CLOUD_PEER), await this.store.totalFigures()];
    // The edge's own figures, in one statement (one snapshot of the three tables).
    const own = await this.deps.db.kysely
      .selectNoFrom((eb) => [
        eb
          .selectFrom('changeLog')
          .select((e) => e.fn.max('seq').as('n'))
          .where('peer', '=', CLOUD_PEER)
          .as('lastSeq'),
        eb
          .selectFrom('syncCursor')
          .select('appliedRemoteSeq')
          .where('peer', '=', CLOUD_PEER)
          .as('appliedRemoteSeq'),
        eb
          .selectFrom('syncPending')
          .select((e) => e.fn.countAll().as('n'))
          .as('pending'),
      ])
      .executeTakeFirstOrThrow();
    return {
      mode: 'linked' as const,
      role: 'edge' as const,
      siteId: this.deps.config.siteId,
      link: this.linkState(),
      linkSince: this.linkWatch.linkSince(),
      lastSeq: Number(own.lastSeq ?? 0),
      ackedSeq: link.ackedSeq,
      lastAckAt: toIsoOrNull(link.ackedAt),
      queued: figures.queued,
      appliedRemoteSeq: Number(own.appliedRemoteSeq ?? 0),
      pending: Number(own.pending ?? 0),
      deadLetters: totals.deadLetters,
      clockSkewMs: Math.round(this.deps.hlc.maxSkewMs),
    };
  }

  /** Connected, else offline once the link was ever up (in this process, or an ack on record), else never. */
  private linkState(): LinkState {
    if (this.o.transport.connected) return 'online';
    return this.everConnected || this.link.snapshot().everAcked ? 'offline' : 'never';
  }

  private onMessage(topic: string, payload: Buffer, meta: MessageMeta | undefined): void {
    if (topic === this.topics.downChanges) this.link.receiveBatch(payload);
    else if (topic === this.topics.downAck) this.link.receiveAck(payload);
    else if (topic === this.topics.downCmd) void this.onCommand(payload, meta);
  }

  /** Only `resync`; actuate and snapshot are the command handler's (same topic). */
  private async onCommand(payload: Buffer, meta: MessageMeta | undefined): Promise<void> {
    const command = decode(Command, payload);
    if (command?.kind !== 'resync') return;
    const refusal = commandRefusal(command, meta, this.deps.clock.now());
    if (refusal) {
      this.deps.log.warn({ commandId: command.id, refusal }, 'resync command refused (not from the cloud)');
      return;
    }
    if (this.deps.clock.now() > command.deadline + STALE_RESYNC_MS) {
      // Queued for us by the broker while we were away; the cloud repeats a resync it still wants.
      this.deps.log.info({ commandId: command.id }, 'old resync command ignored');
      return;
    }
    const args = ResyncArgs.safeParse(command.args);
    let result: CommandResult;
    if (!args.success) {
      result = {
        v: PROTOCOL_V,
        id: command.id,
        ok: false,
        error: { status: 400, code: 'validation-failed', detail: 'resync needs {stream, resumeFrom}' },
      };
    } else if (this.resyncsDone.has(command.id)) {
      // Done already: resetting again would send the position back behind the batches since.
      result = { v: PROTOCOL_V, id: command.id, ok: true };
    } else {
      const { stream, resumeFrom } = args.data;
      this.resyncsDone.add(command.id);
      // In receive order: batches that arrived before the command are applied first.
      await this.link.runInReceiveOrder(() =>
        this.o.applier.resetPosition(CLOUD_PEER, stream, resumeFrom - 1),
      );
      this.deps.log.info({ resumeFrom }, 'resync from the cloud: position reset to its snapshot');
      result = { v: PROTOCOL_V, id: command.id, ok: true };
    }
    await this.o.transport
      .publish(commandResultTopic(this.deps.config.siteId, command.replyTo), JSON.stringify(result), {
        qos: 1,
      })
      .catch((err: Error) => this.deps.log.debug({ err: err.message }, 'resync answer not sent'));
  }

  /** The cloud needs rows we pruned (its database went back): they are gone; say so loudly. */
  private async warnIfPruned(from: number): Promise<boolean> {
    const pruned = await this.store.prunedUpTo(CLOUD_PEER);
    if (from <= pruned && this.warnedPruned !== from) {
      this.warnedPruned = from;
      this.deps.log.error(
        { from, prunedUpTo: pruned },
        'the cloud needs changes this edge already pruned (cloud database restored?); sending what is left',
      );
    }
    return true;
  }

  private statusSoon(): void {
    if (this.statusTimer || !this.o.transport.connected) return;
    const every = this.o.statusEveryMs ?? STATUS_EVERY_MS;
    const delay = Math.max(0, this.lastStatusAt + every - Date.now());
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.publishStatus();
    }, delay);
    this.statusTimer.unref();
  }

  private async publishStatus(): Promise<void> {
    await this.publish('online').catch((err: Error) =>
      this.deps.log.debug({ err: err.message }, 'status not published'),
    );
  }

  private async publish(state: SiteStatus['state']): Promise<void> {
    this.lastStatusAt = Date.now();
    const status: SiteStatus = {
      v: PROTOCOL_V,
      state,
      schemaV: SCHEMA_VERSION,
      version: this.o.version,
      queued: await this.queued(),
      at: this.deps.clock.now(),
      // The cloud shows an offline site's gates as unknown: a stop says nothing about them.
      ...(state === 'online' ? { gates: this.gateStates.report() } : {}),
    };
    await this.o.transport.publish(this.topics.status, JSON.stringify(status), { qos: 1, retain: true });
  }
}

/** The status the broker publishes for us when we vanish (the MQTT will). */
export function offlineStatus(version: string, at: number): SiteStatus {
  return { v: PROTOCOL_V, state: 'offline', schemaV: SCHEMA_VERSION, version, queued: 0, at };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
