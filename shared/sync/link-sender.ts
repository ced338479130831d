import { AckWait } from './ack-wait.js';
import { AckedPosition } from './acked-position.js';
import type { SyncDeps } from './deps.js';
import { PeerEncodings } from './peer-encodings.js';
import { Ack, decode } from './protocol.js';
import type { SendStore } from './send-store.js';
import { SendWindow } from './send-window.js';
import type { SyncTransport } from './transport.js';

/** What the sending half of a link is given (PeerLinkOptions adds the receiving half's). */
export interface SenderOptions {
  /** No module service: the link moves batches, the applier applies them. */
  deps: Pick<SyncDeps, 'db' | 'clock' | 'log' | 'config'>;
  /** The peer's name in change_log / sync_cursor: 'cloud' at an edge, the site id at the cloud. */
  peer: string;
  /** The site id our batches name. */
  site: string;
  transport: SyncTransport;
  /** Where this side publishes its batches. */
  publishTo: { changes: string };
  /** Our change log, stream id and the peers' acknowledged positions, on either database. */
  store: SendStore;
  /**
   * Called before sending from any position other than the next in line (connect, ack timeout, gap,
   * regressed peer). Resolve false to hold sending: the cloud starts a resync and calls resumeAt().
   */
  beforeResend?: (from: number) => Promise<boolean>;
  /** Called when an ack moved the acknowledged position forward. */
  onProgress?: () => void;
}

/**
 * The sending half of a PeerLink (docs/sync.md "Apply, ack, resume").
 *
 * Up to sync.window batches in flight, read from our change log (send-window.ts); resend from the
 * acknowledged position (acked-position.ts) on (re)activation and when no ack came within
 * sync.ackTimeoutMs (doubled after each such resend, up to 8 times, until an ack comes:
 * ack-wait.ts). Acks only ever raise the position. A lower ack is either stale (reordered
 * delivery) or a peer that went back (restored database): it is remembered, and if no ack moves us
 * forward within the ack timeout, the peer is taken at its word and we resend from there.
 *
 * None of this trusts MQTT: duplicates, reordering and loss are absorbed by seqs, acks and resends.
 */
export class BatchSender {
  private active = false;
  private held = false;
  private stopped = false;
  private ackTimer: NodeJS.Timeout | undefined;
  private wakeScheduled = false;
  private ackChain: Promise<void> = Promise.resolve();
  private readonly acked: AckedPosition;
  /** How long to wait for the next ack: backs off while the peer does not answer. */
  private readonly ackWait: AckWait;
  /** What the peer decodes, and our batches encoded for it (compressed when it takes that). */
  private readonly encodings: PeerEncodings;
  private readonly window: SendWindow;

  constructor(private readonly o: SenderOptions) {
    this.encodings = new PeerEncodings({ deps: o.deps, store: o.store, peer: o.peer });
    this.acked = new AckedPosition(o);
    this.ackWait = new AckWait(() => o.deps.config.sync.ackTimeoutMs);
    this.window = new SendWindow({
      ...o,
      encodings: this.encodings,
      canSend: () => this.active && !this.held && !this.stopped && this.o.transport.connected,
      onSent: () => this.armAckTimer(),
    });
  }

  async start(): Promise<void> {
    await this.acked.load();
    this.window.nextFrom = this.acked.seq + 1;
    await this.encodings.load();
    this.o.store.onRotate(() => {
      this.acked.restart();
      if (this.active) void this.resendFrom(1, 'stream rotated');
    });
  }

  /** Sends nothing more from now on. */
  stop(): void {
    this.stopped = true;
    this.deactivate();
  }

  /** Resolves once the acks received are handled and the acknowledged position is saved. */
  async settled(): Promise<void> {
    await this.ackChain;
    await this.acked.flushed();
  }

  /** The peer is reachable: send from the acknowledged position. */
  activate(reason: string): void {
    if (this.stopped) return;
    this.active = true;
    this.ackWait.progressed(); // a new connection: no reason yet to wait longer than configured
    this.window.probeDue = true;
    void this.resendFrom(this.acked.seq + 1, reason);
  }

  /** The peer is not reachable: forget what is in flight (it is resent on activation). */
  deactivate(): void {
    this.active = false;
    this.reset();
  }

  get isActive(): boolean {
    return this.active;
  }

  /** After a resync: the peer's position is `from - 1` on our stream; send from `from`. */
  resumeAt(from: number): void {
    this.acked.resumedAt(from - 1);
    this.reset();
    this.window.nextFrom = from;
    this.held = false;
    this.wake();
  }

  /** New rows may be in the log: send them soon. */
  wake(): void {
    if (this.wakeScheduled || !this.active) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      void this.window.pump();
    });
  }

  snapshot(): {
    ackedSeq: number;
    ackedAt: number | null;
    inFlight: number;
    held: boolean;
    everAcked: boolean;
  } {
    return {
      ackedSeq: this.acked.seq,
      ackedAt: this.acked.at,
      inFlight: this.window.size,
      held: this.held,
      everAcked: this.acked.everAcked,
    };
  }

  receiveAck(payload: Buffer): void {
    const ack = decode(Ack, payload);
    if (!ack) {
      this.o.deps.log.warn({ peer: this.o.peer }, 'malformed ack dropped');
      return;
    }
    this.ackChain = this.ackChain.then(() =>
      this.handleAck(ack).catch((err: Error) =>
        this.o.deps.log.error({ peer: this.o.peer, err: err.message }, 'ack handling failed'),
      ),
    );
  }

  private async handleAck(ack: Ack): Promise<void> {
    if (this.stopped) return;
    this.encodings.learn(ack.accept);
    const stream = await this.o.store.stream();
    if (ack.stream !== stream) return; // an ack of a stream we no longer send
    const { upTo } = ack;
    if (upTo > this.window.knownTop) {
      this.window.knownTop = await this.o.store.topSeq();
      if (upTo > this.window.knownTop) return this.wentBackInTime(upTo);
    }
    switch (this.acked.judge(upTo, this.window.first?.from)) {
      case 'forward':
        return this.progress(upTo);
      case 'gap':
        return this.resendFrom(upTo + 1, 'gap reported by peer');
      case 'low':
        // Stale, or the peer went back: judged at the ack timeout.
        return this.armAckTimer();
      case 'same':
        return;
    }
  }

  private progress(upTo: number): void {
    this.acked.acknowledged(upTo);
    this.ackWait.progressed();
    this.o.onProgress?.();
    this.window.acknowledged(upTo);
    this.clearAckTimer();
    const first = this.window.first;
    if (first && first.from > upTo + 1) {
      void this.resendFrom(upTo + 1, 'hole after ack');
      return;
    }
    if (first) this.armAckTimer();
    this.wake();
  }

  private async wentBackInTime(upTo: number): Promise<void> {
    this.o.deps.log.error(
      { peer: this.o.peer, ackedUpTo: upTo, ourLastSeq: this.window.knownTop },
      'peer acknowledged changes this database does not have (restored from a backup?); starting a new stream and resending everything',
    );
    // rotate() resets every link's position (onRotate) and resends from the start.
    await this.o.store.rotateStream();
  }

  private onAckTimeout(): void {
    this.ackTimer = undefined;
    if (!this.active || this.stopped) return;
    const low = this.acked.low;
    if (low !== undefined) {
      this.o.deps.log.warn(
        { peer: this.o.peer, ackedSeq: this.acked.seq, peerAt: low },
        'peer is behind what it acknowledged before (restored or replaced database); resending from its position',
      );
      this.acked.fallBackToLow();
      void this.resendFrom(low + 1, 'peer went back');
      return;
    }
    if (this.window.size === 0) return;
    this.ackWait.timedOut();
    void this.resendFrom(this.acked.seq + 1, 'ack timeout');
  }

  private reset(): void {
    this.window.reset();
    this.clearAckTimer();
  }

  private async resendFrom(from: number, reason: string): Promise<void> {
    this.reset();
    this.window.nextFrom = from;
    if (!this.active) return;
    this.o.deps.log.debug({ peer: this.o.peer, from, reason }, 'sending from');
    if (this.o.beforeResend) {
      const epoch = this.window.epoch;
      this.held = true;
      let go: boolean;
      try {
        go = await this.o.beforeResend(from);
      } catch (err) {
        this.o.deps.log.error(
          { peer: this.o.peer, from, err: (err as Error).message },
          'cannot prepare sending; retrying',
        );
        const retry = setTimeout(() => {
          if (epoch === this.window.epoch && this.active) void this.resendFrom(from, reason);
        }, this.o.deps.config.sync.ackTimeoutMs);
        retry.unref();
        return;
      }
      if (epoch !== this.window.epoch || !go) return;
      this.held = false;
    }
    this.wake();
  }

  private armAckTimer(): void {
    if (this.ackTimer || this.stopped) return;
    this.ackTimer = setTimeout(() => this.onAckTimeout(), this.ackWait.ms);
    this.ackTimer.unref();
  }

  private clearAckTimer(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
  }
}
