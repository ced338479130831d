import type { SyncDeps } from './deps.js';
import { AckWriter } from './outbox.js';
import type { SendStore } from './send-store.js';

/** What an ack asks of the sender (AckedPosition.judge). */
export type AckVerdict = 'forward' | 'gap' | 'same' | 'low';

/**
 * What one peer has acknowledged of our stream (docs/sync.md "Apply, ack, resume"), as the sender
 * knows it, saved in sync_cursor by an AckWriter. Acks only ever raise it. A lower ack is either
 * stale (reordered delivery) or a peer that went back (restored database): it is remembered as
 * `low`, and the sender judges it at the ack timeout.
 */
export class AckedPosition {
  seq = 0;
  at: number | null = null;
  everAcked = false;
  /** The last ack lower than `seq`, until an ack moves us forward or the ack timeout judges it. */
  low: number | undefined;
  /** The position a gap was last resent from (once per position; the ack timeout covers the rest). */
  private gapResentAt: number | undefined;
  private readonly writer: AckWriter;

  constructor(private readonly o: { deps: Pick<SyncDeps, 'clock' | 'log'>; store: SendStore; peer: string }) {
    this.writer = new AckWriter(
      o.deps.log,
      (cursor, exact) => o.store.saveCursor(o.peer, cursor, exact),
      o.peer,
      () => ({
        ackedSeq: this.seq,
        ackedAt: this.at,
      }),
    );
  }

  /** Reads the stored position. */
  async load(): Promise<void> {
    const cursor = await this.o.store.cursor(this.o.peer);
    this.seq = cursor?.ackedSeq ?? 0;
    this.at = cursor?.ackedAt ?? null;
    this.everAcked = this.at !== null;
  }

  /** Our log starts over for every peer (SendStore.rotateStream reset the stored positions). */
  restart(): void {
    this.seq = 0;
    this.at = null;
    this.low = undefined;
  }

  /** An ack moved the position forward to `upTo`. */
  acknowledged(upTo: number): void {
    this.gapResentAt = undefined;
    this.moveTo(upTo, false);
  }

  /** After a resync the peer holds our stream up to `seq`: stored even if lower than before. */
  resumedAt(seq: number): void {
    this.moveTo(seq, true);
  }

  private moveTo(seq: number, exact: boolean): void {
    this.seq = seq;
    this.at = this.o.deps.clock.now();
    this.everAcked = true;
    this.low = undefined;
    this.writer.save(exact);
  }

  /**
   * An ack of `upTo` (no higher than our log's last seq), with `nextInFlight` the first seq of the
   * batches in flight: forward; a gap the peer saw (no progress while the batch after it is in
   * flight: resend, once per position); the same position again (a duplicate); or lower.
   */
  judge(upTo: number, nextInFlight: number | undefined): AckVerdict {
    if (upTo > this.seq) return 'forward';
    if (upTo === this.seq) {
      if (nextInFlight !== upTo + 1 || this.gapResentAt === upTo) return 'same';
      this.gapResentAt = upTo;
      return 'gap';
    }
    this.low = upTo;
    return 'low';
  }

  /** Takes the peer at its lower word (the `low` ack outlived the ack timeout). */
  fallBackToLow(): void {
    if (this.low === undefined) return;
    this.seq = this.low;
    this.low = undefined;
    this.writer.save(true);
  }

  /** Resolves once the position is saved. */
  flushed(): Promise<void> {
    return this.writer.flushed();
  }
}
