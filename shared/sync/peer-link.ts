export type { BatchApplier } from './link-receiver.js';

import { type BatchApplier, BatchReceiver } from './link-receiver.js';
import { BatchSender, type SenderOptions } from './link-sender.js';
import { jsonPublisher } from './transport.js';

/** A link's options: the sender's (link-sender.ts), and where acks go and who applies received batches. */
export interface PeerLinkOptions extends SenderOptions {
  /** Where this side publishes its batches and its acks of the peer's batches. */
  publishTo: { changes: string; ack: string };
  applier: BatchApplier;
  /** BatchReceiverOptions.parkEarlyMs: several cloud nodes share the peer's batches. */
  parkEarlyMs?: number;
}

/**
 * One peer over a SyncTransport, both directions (docs/sync.md "Apply, ack, resume").
 *
 * Sender (link-sender.ts): up to sync.window batches in flight from our change log, resent from the
 * acknowledged position on (re)activation, on a gap the peer reports and when no ack came in time.
 *
 * Receiver (link-receiver.ts): batches are applied one at a time in arrival order; each is answered
 * with an ack of the applied position, which also tells the sender where to resume after a gap.
 *
 * None of this trusts MQTT: duplicates, reordering and loss are absorbed by seqs, acks and resends.
 */
export class PeerLink {
  private readonly sender: BatchSender;
  private readonly receiver: BatchReceiver;

  constructor(private readonly o: PeerLinkOptions) {
    this.sender = new BatchSender(o);
    this.receiver = new BatchReceiver({
      deps: o.deps,
      peer: o.peer,
      site: o.site,
      applier: o.applier,
      ...(o.parkEarlyMs ? { parkEarlyMs: o.parkEarlyMs } : {}),
      ack: jsonPublisher(o.transport, o.publishTo.ack),
    });
  }

  get peer(): string {
    return this.o.peer;
  }

  start(): Promise<void> {
    return this.sender.start();
  }

  async stop(): Promise<void> {
    this.sender.stop();
    await this.receiver.stop();
    await this.sender.settled();
  }

  /** The peer is reachable: send from the acknowledged position. */
  activate(reason: string): void {
    this.sender.activate(reason);
  }

  /** The peer is not reachable: forget what is in flight (it is resent on activation). */
  deactivate(): void {
    this.sender.deactivate();
  }

  get isActive(): boolean {
    return this.sender.isActive;
  }

  /** After a resync: the peer's position is `from - 1` on our stream; send from `from`. */
  resumeAt(from: number): void {
    this.sender.resumeAt(from);
  }

  /** New rows may be in the log: send them soon. */
  wake(): void {
    this.sender.wake();
  }

  snapshot(): ReturnType<BatchSender['snapshot']> {
    return this.sender.snapshot();
  }

  receiveBatch(payload: Buffer): void {
    this.receiver.receive(payload);
  }

  /** Runs `work` after the batches already received (see BatchReceiver.runInOrder). */
  runInReceiveOrder<T>(work: () => T | Promise<T>): Promise<T> {
    return this.receiver.runInOrder(work);
  }

  receiveAck(payload: Buffer): void {
    this.sender.receiveAck(payload);
  }
}
