/** The longest wait for an ack, as a multiple of the configured ack timeout. */
const MAX_FACTOR = 8;

/**
 * How long a sender waits for an ack before it resends (docs/sync.md "Apply, ack, resume"): the
 * configured ack timeout, doubled after each wait that ended without an ack, up to 8 times it, and
 * back to it as soon as an ack moves the position. A peer that is busy (a cloud applying the
 * backlog of many sites that came back together) is not sent the same batches every ack timeout
 * while it works through the first copies; a lost batch is still resent after the first timeout.
 */
export class AckWait {
  private factor = 1;

  constructor(private readonly baseMs: () => number) {}

  /** The wait for the next ack. */
  get ms(): number {
    return this.baseMs() * this.factor;
  }

  /** A wait ended without an ack: the next one is twice as long, up to the limit. */
  timedOut(): void {
    this.factor = Math.min(MAX_FACTOR, this.factor * 2);
  }

  /** An ack moved the position: the peer keeps up again. */
  progressed(): void {
    this.factor = 1;
  }
}
