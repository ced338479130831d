import type { SyncDeps } from './deps.js';
import type { PeerEncodings } from './peer-encodings.js';
import type { SendStore } from './send-store.js';
import type { SyncTransport } from './transport.js';

interface InFlight {
  from: number;
  to: number;
}

export interface SendWindowOptions {
  deps: Pick<SyncDeps, 'log' | 'config'>;
  peer: string;
  site: string;
  transport: SyncTransport;
  publishTo: { changes: string };
  store: SendStore;
  encodings: PeerEncodings;
  /** Whether the sender may publish now (active, not held, not stopped, connected). */
  canSend: () => boolean;
  /** A batch went out: the sender arms its ack timer. */
  onSent: () => void;
}

/**
 * The batches in flight to one peer (at most sync.window), and the reading, encoding and
 * publishing of the next ones from our change log (BatchSender decides from where).
 */
export class SendWindow {
  private inFlight: InFlight[] = [];
  /** The seq the next batch starts at. */
  nextFrom = 1;
  /** Highest seq known to exist in our log (refreshed when an ack claims more). */
  knownTop = 0;
  /** Set on activation: if there is nothing to send, send an empty batch (sendProbe). */
  probeDue = false;
  /** Bumped by every reset: a pump that read the log before it does not publish what it read. */
  private epoch_ = 0;
  private pumping = false;
  private pumpAgain = false;

  constructor(private readonly o: SendWindowOptions) {}

  get epoch(): number {
    return this.epoch_;
  }

  get size(): number {
    return this.inFlight.length;
  }

  /** The first batch in flight. */
  get first(): InFlight | undefined {
    return this.inFlight[0];
  }

  /** Forgets what is in flight (it is sent again from `nextFrom`). */
  reset(): void {
    this.epoch_ += 1;
    this.inFlight = [];
  }

  /** The peer holds everything up to `upTo`: those batches leave the window. */
  acknowledged(upTo: number): void {
    this.inFlight = this.inFlight.filter((b) => b.to > upTo);
    if (this.inFlight.length === 0) this.nextFrom = Math.max(this.nextFrom, upTo + 1);
  }

  /** Fills the window; one pump at a time (a call during one makes it go round again). */
  async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        await this.fill();
      } while (this.pumpAgain);
    } catch (err) {
      this.o.deps.log.error({ peer: this.o.peer, err: (err as Error).message }, 'sending failed');
    } finally {
      this.pumping = false;
    }
  }

  private async fill(): Promise<void> {
    const { canSend } = this.o;
    const window = this.o.deps.config.sync.window;
    while (canSend() && this.inFlight.length < window) {
      const epoch = this.epoch_;
      const from = this.nextFrom;
      const batch = await this.o.store.read(this.o.peer, this.o.site, from);
      if (epoch !== this.epoch_) continue; // reset while reading: read again from the new position
      if (!canSend()) return;
      if (!batch) {
        if (this.probeDue && this.inFlight.length === 0 && from > 1) await this.sendProbe(from, epoch);
        return;
      }
      this.probeDue = false;
      const payload = await this.o.encodings.encode(batch.json);
      if (epoch !== this.epoch_) continue;
      if (!canSend()) return;
      this.inFlight.push({ from: batch.from, to: batch.to });
      this.nextFrom = batch.to + 1;
      if (batch.to > this.knownTop) this.knownTop = batch.to;
      this.o.onSent();
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
    if (epoch !== this.epoch_ || !this.o.canSend()) return;
    this.o.transport
      .publish(this.o.publishTo.changes, json, { qos: 1 })
      .catch((err: Error) =>
        this.o.deps.log.debug({ peer: this.o.peer, err: err.message }, 'probe not sent'),
      );
  }
}
