import type { SyncDeps } from './deps.js';
import { AckWriter } from './outbox.js';
import { PeerEncodings } from './peer-encodings.js';
import { Ack, decode } from './protocol.js';
import type { SendStore } from './send-store.js';
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

interface InFlight {
  from: number;
  to: number;
}

/**
 * The sending half of a PeerLink (docs/sync.md "Apply, ack, resume").
 *
 * Up to sync.window batches in flight, read from our change log; resend from the
 * acknowledged position on (re)activation and when no ack came within sync.ackTimeoutMs. Acks only
 * ever raise the position. A lower ack is either stale (reordered delivery) or a peer that went back
 * (restored database): it is remembered, and if no ack moves us forward within the ack timeout, the
 * peer is taken at its word and we resend from there.
 *
 * None of this trusts MQTT: duplicates, reordering and loss are absorbed by seqs, acks and resends.
 */
export class BatchSender {
  private active = false;
  private held = false;
  private stopped = false;
  private ackedSeq = 0;
  private ackedAt: number | null = null;
  private everAcked = false;
  private inFlight: InFlight[] = [];
  private nextFrom = 1;
  /** Bumped by every reset: a pump that read the log before it does not publish what it read. */
  private epoch = 0;
  private lowAck: number | undefined;
  private gapResentAt: number | undefined;
  private ackTimer: NodeJS.Timeout | undefined;
  private wakeScheduled = false;
  /** Set on activation: if there is nothing to send, send an empty batch (sendProbe). */
  private probeDue = false;
  private pumping = false;
  private pumpAgain = false;
  private ackChain: Promise<void> = Promise.resolve();
  private readonly ackWriter: AckWriter;
  /** Highest seq known to exist in our log (refreshed when an ack claims more). */
  private knownTop = 0;
  /** What the peer decodes, and our batches encoded for it (compressed when it takes that). */
  private readonly encodings: PeerEncodings;

  constructor(private readonly o: SenderOptions) {
    this.encodings = new PeerEncodings({ deps: o.deps, store: o.store, peer: o.peer });
    this.ackWriter = new AckWriter(
      o.deps.log,
      (cursor, exact) => o.store.saveCursor(o.peer, cursor, exact),
      o.peer,
      () => ({
        ackedSeq: this.ackedSeq,
        ackedAt: this.ackedAt,
      }),
    );
  }

  async start(): Promise<void> {
    const cursor = await this.o.store.cursor(this.o.peer);
    this.ackedSeq = cursor?.ackedSeq ?? 0;
    this.ackedAt = cursor?.ackedAt ?? null;
    this.everAcked = this.ackedAt !== null;
    this.nextFrom = this.ackedSeq + 1;
    await this.encodings.load();
    this.o.store.onRotate(() => {
      // Our log starts over for every peer (SendStore.rotateStream reset the stored positions).
      this.ackedSeq = 0;
      this.ackedAt = null;
      this.lowAck = undefined;
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
    await this.ackWriter.flushed();
  }

  /** The peer is reachable: send from the acknowledged position. */
  activate(reason: string): void {
    if (this.stopped) return;
    this.active = true;
    this.probeDue = true;
    void this.resendFrom(this.ackedSeq + 1, reason);
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
    this.ackedSeq = from - 1;
    this.ackedAt = this.o.deps.clock.now();
    this.everAcked = true;
    this.lowAck = undefined;
    this.ackWriter.save(true);
    this.reset();
    this.nextFrom = from;
    this.held = false;
    this.wake();
  }

  /** New rows may be in the log: send them soon. */
  wake(): void {
    if (this.wakeScheduled || !this.active) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      void this.pump();
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
      ackedSeq: this.ackedSeq,
      ackedAt: this.ackedAt,
      inFlight: this.inFlight.length,
      held: this.held,
      everAcked: this.everAcked,
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
    if (upTo > this.knownTop) {
      this.knownTop = await this.o.store.topSeq();
      if (upTo > this.knownTop) return this.wentBackInTime(upTo);
    }
    if (upTo > this.ackedSeq) return this.progress(upTo);
    if (upTo === this.ackedSeq) {
      // No progress while the batch after it is in flight: the peer saw a gap (or this is a
      // duplicate ack). Resend once per position; the ack timeout covers the rest.
      const first = this.inFlight[0];
      if (first && first.from === upTo + 1 && this.gapResentAt !== upTo) {
        this.gapResentAt = upTo;
        await this.resendFrom(upTo + 1, 'gap reported by peer');
      }
      return;
    }
    // Lower than acknowledged before: stale, or the peer went back. Judged at the ack timeout.
    this.lowAck = upTo;
    this.armAckTimer();
  }

  private progress(upTo: number): void {
    this.ackedSeq = upTo;
    this.ackedAt = this.o.deps.clock.now();
    this.everAcked = true;
    this.lowAck = undefined;
    this.gapResentAt = undefined;
    this.ackWriter.save(false);
    this.o.onProgress?.();
    this.inFlight = this.inFlight.filter((b) => b.to > upTo);
    this.clearAckTimer();
    const first = this.inFlight[0];
    if (!first) {
      this.nextFrom = Math.max(this.nextFrom, upTo + 1);
    } else if (first.from > upTo + 1) {
      void this.resendFrom(upTo + 1, 'hole after ack');
      return;
    } else {
      this.armAckTimer();
    }
    this.wake();
  }

  private async wentBackInTime(upTo: number): Promise<void> {
    this.o.deps.log.error(
      { peer: this.o.peer, ackedUpTo: upTo, ourLastSeq: this.knownTop },
      'peer acknowledged changes this database does not have (restored from a backup?); starting a new stream and resending everything',
    );
    // rotate() resets every link's position (onRotate) and resends from the start.
    await this.o.store.rotateStream();
  }

  private onAckTimeout(): void {
    this.ackTimer = undefined;
    if (!this.active || this.stopped) return;
    if (this.lowAck !== undefined) {
      const low = this.lowAck;
      this.o.deps.log.warn(
        { peer: this.o.peer, ackedSeq: this.ackedSeq, peerAt: low },
        'peer is behind what it acknowledged before (restored or replaced database); resending from its position',
      );
      this.lowAck = undefined;
      this.ackedSeq = low;
      this.ackWriter.save(true);
      void this.resendFrom(low + 1, 'peer went back');
      return;
    }
    if (this.inFlight.length > 0) void this.resendFrom(this.ackedSeq + 1, 'ack timeout');
  }

  private reset(): void {
    this.epoch += 1;
    this.inFlight = [];
    this.clearAckTimer();
  }

  private async resendFrom(from: number, reason: string): Promise<void> {
    this.reset();
    this.nextFrom = from;
    if (!this.active) return;
    this.o.deps.log.debug({ peer: this.o.peer, from, reason }, 'sending from');
    if (this.o.beforeResend) {
      const epoch = this.epoch;
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
          if (epoch === this.epoch && this.active) void this.resendFrom(from, reason);
        }, this.o.deps.config.sync.ackTimeoutMs);
        retry.unref();
        return;
      }
      if (epoch !== this.epoch || !go) return;
      this.held = false;
    }
    this.wake();
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        await this.fillWindow();
      } while (this.pumpAgain);
    } catch (err) {
      this.o.deps.log.error({ peer: this.o.peer, err: (err as Error).message }, 'sending failed');
    } finally {
      this.pumping = false;
    }
  }

  private canSend(): boolean {
    return this.active && !this.held && !this.stopped && this.o.transport.connected;
  }

  private async fillWindow(): Promise<void> {
    const window = this.o.deps.config.sync.window;
    while (this.canSend() && this.inFlight.length < window) {
      const epoch = this.epoch;
      const from = this.nextFrom;
      const batch = await this.o.store.read(this.o.peer, this.o.site, from);
      if (epoch !== this.epoch) continue; // reset while reading: read again from the new position
      if (!this.canSend()) return;
      if (!batch) {
        if (this.probeDue && this.inFlight.length === 0 && from > 1) await this.sendProbe(from, epoch);
        return;
      }
      this.probeDue = false;
      const payload = await this.encodings.encode(batch.json);
      if (epoch !== this.epoch) continue;
      if (!this.canSend()) return;
      this.inFlight.push({ from: batch.from, to: batch.to });
      this.nextFrom = batch.to + 1;
      if (batch.to > this.knownTop) this.knownTop = batch.to;
      this.armAckTimer();
      this.o.transport
        .publish(this.o.publishTo.changes, payload, { qos: 1 })
        .catch((err: Error) =>
          this.o.deps.log.debug({ peer: this.o.peer, err: err.message }, 'batch not sent'),
        );
    }
  }

  /**
   * Nothing to resend after (re)activation: an empty batch still asks the peer where it is. Its
   * ack finds a peer that went back (a new or restored database: a lower ack, judged at the ack
   * timeout) or ahead of us (our database went back). Not tracked as in flight.
   */
  private async sendProbe(from: number, epoch: number): Promise<void> {
    this.probeDue = false;
    const json = await this.o.store.probe(this.o.site, from);
    if (epoch !== this.epoch || !this.canSend()) return;
    this.o.transport
      .publish(this.o.publishTo.changes, json, { qos: 1 })
      .catch((err: Error) =>
        this.o.deps.log.debug({ peer: this.o.peer, err: err.message }, 'probe not sent'),
      );
  }

  private armAckTimer(): void {
    if (this.ackTimer || this.stopped) return;
    this.ackTimer = setTimeout(() => this.onAckTimeout(), this.o.deps.config.sync.ackTimeoutMs);
    this.ackTimer.unref();
  }

  private clearAckTimer(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
  }
}
