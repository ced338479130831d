import type { SyncDeps } from './deps.js';
import { type Ack, Batch, batchOverLimits, PROTOCOL_V } from './protocol.js';

/**
 * What the link needs from the change applier (SyncApplier, sync-applier.ts): awaited, so either
 * database's applier serves (on SQLite it holds the connection itself, inside exclusive()). A
 * synchronous answer is awaited as well.
 */
export interface BatchApplier {
  apply(peer: string, batch: Batch): Promise<{ upTo: number }> | { upTo: number };
  /** Several batches in one transaction (one commit); outcomes in order. */
  applyMany?(
    peer: string,
    batches: readonly Batch[],
  ): Promise<Array<{ upTo: number }>> | Array<{ upTo: number }>;
}

export interface BatchReceiverOptions {
  deps: Pick<SyncDeps, 'db' | 'log'>;
  peer: string;
  /** The site id the peer's batches must name. */
  site: string;
  applier: BatchApplier;
  /** Publishes our ack of the peer's batch. */
  ack: (ack: Ack) => Promise<void>;
}

/** Batches from the peer waiting to be applied; beyond this they are dropped (the peer resends). */
const MAX_QUEUE = 64;
/**
 * Batches already waiting are applied together, in one transaction: one commit (one fsync with
 * synchronous=FULL) for a backlog instead of one per batch. Each batch is still applied whole, in
 * order, by the same rules; the ack names the position after the last. At most half the default
 * window (8), so an ack reaches the sender while the rest of its window is still arriving: with
 * groups of a whole window the sender idled during every apply (150k-row catch-up: 4 per group
 * 8.9 s, 16 per group 15.6 s, 1 per group 12-13 s; npx tsx test/bench/sync-catchup.ts).
 */
const MAX_GROUP = 4;
/** Apply retries while another transaction holds the database. */
const BUSY_RETRY_MS = 5;
const BUSY_RETRY_FOR_MS = 5_000;

/**
 * The receiving half of a PeerLink: batches are decoded (malformed ones logged and dropped),
 * applied one at a time in arrival order, and each is answered with an ack of the applied position
 * (which also tells the sender where to resume after a gap). Duplicates and gaps are the
 * applier's to judge; the ack always says where we are.
 */
export class BatchReceiver {
  private chain: Promise<void> = Promise.resolve();
  private readonly waiting: Batch[] = [];
  private stopped = false;

  constructor(private readonly o: BatchReceiverOptions) {}

  receive(payload: Buffer): void {
    let message: unknown;
    try {
      message = JSON.parse(payload.toString());
    } catch {
      message = undefined;
    }
    // Before the schema check and the apply: a legitimate sender never exceeds the limits (its
    // config cannot), so this is not acknowledged and costs one log line, whatever its size.
    const over = batchOverLimits(payload.length, message);
    if (over) {
      this.o.deps.log.warn(
        { peer: this.o.peer, over },
        'change batch over the protocol limits dropped unread (not applied, not acknowledged)',
      );
      return;
    }
    const parsed = message === undefined ? undefined : Batch.safeParse(message);
    const batch = parsed?.success ? parsed.data : undefined;
    // `to = from - 1` with no rows is a probe (PeerLink.sendProbe): it is answered like any batch.
    const empty = batch !== undefined && batch.rows.length === 0 && batch.to === batch.from - 1;
    if (!batch || batch.site !== this.o.site || (batch.to < batch.from && !empty)) {
      this.o.deps.log.warn({ peer: this.o.peer }, 'malformed change batch dropped');
      return;
    }
    if (this.waiting.length >= MAX_QUEUE) {
      this.o.deps.log.warn(
        { peer: this.o.peer, from: batch.from },
        'receive queue full; batch dropped (the peer resends)',
      );
      return;
    }
    this.waiting.push(batch);
    this.chain = this.chain.then(async () => {
      if (!this.stopped) await this.applyAndAck(this.takeGroup());
    });
  }

  /** The waiting batches of one stream, oldest first (at most MAX_GROUP); empty when none wait. */
  private takeGroup(): Batch[] {
    const first = this.waiting[0];
    if (!first) return [];
    let n = 1;
    while (n < this.waiting.length && n < MAX_GROUP && this.waiting[n]!.stream === first.stream) n += 1;
    return this.waiting.splice(0, n);
  }

  /**
   * Runs `work` after the batches already received (a resync's position reset must not overtake
   * them), retrying while another transaction holds the database.
   */
  runInOrder<T>(work: () => T | Promise<T>): Promise<T> {
    const run = this.chain.then(() => this.withBusyRetry(work));
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.chain;
  }

  private async applyAndAck(group: Batch[]): Promise<void> {
    const last = group.at(-1);
    if (!last) return; // an earlier drain took this batch with its group
    let upTo: number;
    try {
      upTo = await this.withBusyRetry(async () => {
        const { applier } = this.o;
        if (group.length === 1 || !applier.applyMany) {
          let position = 0;
          for (const batch of group) position = (await applier.apply(this.o.peer, batch)).upTo;
          return position;
        }
        return (await applier.applyMany(this.o.peer, group)).at(-1)!.upTo;
      });
    } catch (err) {
      // Nothing of the group was committed (one transaction): the peer resends from our last ack.
      this.o.deps.log.error(
        { peer: this.o.peer, from: group[0]!.from, batches: group.length, err: (err as Error).message },
        'batches not applied',
      );
      return;
    }
    const batch = last;
    // Not awaited: the broker's PUBACK may never come (the link died with the ack in flight), and
    // the next batch, or stop() at SIGTERM, must not wait for it. Acks carry the whole position.
    void this.o
      .ack({ v: PROTOCOL_V, stream: batch.stream, upTo })
      .catch((err: Error) => this.o.deps.log.debug({ peer: this.o.peer, err: err.message }, 'ack not sent'));
  }

  /** The applier refuses to run inside another (Kysely) transaction with BusyError: try again shortly. */
  private async withBusyRetry<T>(work: () => T | Promise<T>): Promise<T> {
    const deadline = Date.now() + BUSY_RETRY_FOR_MS;
    for (;;) {
      try {
        return await work();
      } catch (err) {
        if ((err as Error).name !== 'BusyError' || Date.now() >= deadline || this.stopped) throw err;
        await new Promise((r) => setTimeout(r, BUSY_RETRY_MS));
      }
    }
  }
}
