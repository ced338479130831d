import type { SyncDeps } from './deps.js';
import { type Ack, Batch, batchOverLimits, PROTOCOL_V } from './protocol.js';
import { ACCEPTED_ENCODINGS, decodeBatchPayload, isZlibStream } from './wire-encoding.js';

/**
 * What the link needs from the change applier (SyncApplier, sync-applier.ts): awaited, so either
 * database's applier serves (on SQLite it holds the connection itself, inside exclusive()). A
 * synchronous answer is awaited as well.
 */
export interface BatchApplier {
  apply(peer: string, batch: Batch): Promise<Applied> | Applied;
  /** Several batches together (one transaction, or on SQLite a few slices); outcomes in order. */
  applyMany?(peer: string, batches: readonly Batch[]): Promise<Applied[]> | Applied[];
}

/** The applied position after a batch; `gap`: the batch starts past it (nothing was applied). */
export interface Applied {
  upTo: number;
  gap?: boolean;
}

export interface BatchReceiverOptions {
  deps: Pick<SyncDeps, 'db' | 'log'>;
  peer: string;
  /** The site id the peer's batches must name. */
  site: string;
  applier: BatchApplier;
  /** Publishes our ack of the peer's batch. */
  ack: (ack: Ack) => Promise<void>;
  /**
   * Several cloud nodes share a site's batches (PostgreSQL, protocol.ts cloudSubscriptions): a
   * batch that arrives here before the one before it was applied at another node waits up to this
   * long for its turn instead of being answered as a gap at once (which would make the site resend
   * everything after it). 0 (one node): a gap is answered at once.
   */
  parkEarlyMs?: number;
}

/** Batches from the peer waiting to be applied; beyond this they are dropped (the peer resends). */
const MAX_QUEUE = 64;
/**
 * Batches already waiting are applied together: one transaction (on SQLite, slices of about 10 ms
 * that may span batches, sync-applier.ts), so one commit (one fsync with synchronous=FULL) for a
 * backlog of small batches instead of one per batch. Each batch is applied in order by the same
 * rules; the ack names the position after the last. At most half the default
 * window (8), so an ack reaches the sender while the rest of its window is still arriving: with
 * groups of a whole window the sender idled during every apply (150k-row catch-up: 4 per group
 * 8.9 s, 16 per group 15.6 s, 1 per group 12-13 s; npx tsx test/bench/sync-catchup.ts).
 */
const MAX_GROUP = 4;
/** How often a parked batch tries again (doubling up to the last). */
const PARK_RETRY_MS = [5, 10, 20, 50, 100, 200];
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
  /** Received batches being decoded, handed to `chain` in arrival order. */
  private intake: Promise<void> = Promise.resolve();
  private intakePending = 0;
  private readonly waiting: Batch[] = [];
  private stopped = false;

  constructor(private readonly o: BatchReceiverOptions) {}

  /**
   * Takes a batch off the wire: a compressed one is inflated on the thread pool (several at once),
   * and each is handed over for applying in the order it arrived (the intake chain only queues,
   * never waits for an apply).
   */
  receive(payload: Buffer): void {
    // Plain JSON with nothing ahead of it being decoded is taken at once: batches that arrive
    // together then wait together and are applied as one group.
    if (this.intakePending === 0 && !isZlibStream(payload)) {
      this.take(payload.toString());
      return;
    }
    if (this.intakePending >= MAX_QUEUE) {
      this.o.deps.log.warn({ peer: this.o.peer }, 'receive queue full; batch dropped (the peer resends)');
      return;
    }
    this.intakePending += 1;
    const decoded = decodeBatchPayload(payload);
    this.intake = this.intake
      .then(async () => {
        const result = await decoded;
        // A turn of the event loop per batch: a resent window of many sites, inflated at once, is
        // otherwise parsed batch after batch (JSON and schema, tens of ms each) with nothing between.
        await new Promise((r) => setImmediate(r));
        this.intakePending -= 1;
        if (result.ok) this.take(result.text);
        else {
          this.o.deps.log.warn(
            { peer: this.o.peer, bytes: payload.length, reason: result.reason },
            'compressed change batch dropped unread (not applied, not acknowledged)',
          );
        }
      })
      .catch((err: Error) =>
        this.o.deps.log.error({ peer: this.o.peer, err: err.message }, 'batch not taken in'),
      );
  }

  private take(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    // Before the schema check and the apply: a legitimate sender never exceeds the limits (its
    // config cannot), so this is not acknowledged and costs one log line, whatever its size.
    const over = batchOverLimits(Buffer.byteLength(text), message);
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
      if (!this.stopped) await this.applyAndAck(await this.nextGroup());
    });
  }

  /**
   * The waiting batches of one stream (at most MAX_GROUP), in the order of their positions: MQTT
   * may hand them over out of order, and a batch applied before the one it follows would be a gap
   * that throws its predecessor, already here, away. Empty when none wait.
   */
  private takeGroup(): Batch[] {
    const first = this.waiting[0];
    if (!first) return [];
    let n = 1;
    while (n < this.waiting.length && n < MAX_GROUP && this.waiting[n]!.stream === first.stream) n += 1;
    return byPosition(this.waiting.splice(0, n));
  }

  /** `rest` with the batches of its stream that arrived meanwhile (one may be the missing one). */
  private withArrivals(rest: Batch[]): Batch[] {
    const stream = rest[0]!.stream;
    const arrived: Batch[] = [];
    for (let i = 0; i < this.waiting.length; ) {
      if (this.waiting[i]!.stream === stream) arrived.push(...this.waiting.splice(i, 1));
      else i += 1;
    }
    return arrived.length === 0 ? rest : byPosition([...rest, ...arrived]);
  }

  /**
   * Runs `work` after the batches already received (a resync's position reset must not overtake
   * them), retrying while another transaction holds the database.
   */
  runInOrder<T>(work: () => T | Promise<T>): Promise<T> {
    const schedule = (): Promise<T> => {
      const run = this.chain.then(() => this.withBusyRetry(work));
      this.chain = run.then(
        () => undefined,
        () => undefined,
      );
      return run;
    };
    // Nothing being inflated: queued at once, so a batch received after this call cannot pass it.
    if (this.intakePending === 0) return schedule();
    // Behind the batches still being inflated (counted as intake, so a plain batch received
    // meanwhile queues behind this too), then behind their applies.
    this.intakePending += 1;
    return new Promise<T>((resolve, reject) => {
      this.intake = this.intake.then(() => {
        this.intakePending -= 1;
        schedule().then(resolve, reject);
      });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.intake;
    await this.chain;
  }

  /**
   * The next group, once the batches still being inflated have had a turn to join it (a backlog
   * arrives compressed, several at a time; one transaction for all of them is one commit).
   */
  private async nextGroup(): Promise<Batch[]> {
    if (this.intakePending > 0 && this.waiting.length < MAX_GROUP) {
      await new Promise((r) => setImmediate(r));
    }
    return this.takeGroup();
  }

  private async applyAndAck(group: Batch[]): Promise<void> {
    const last = group.at(-1);
    if (!last) return; // an earlier drain took this batch with its group
    let upTo: number;
    try {
      upTo = await this.applyInTurn(group);
    } catch (err) {
      // Not acknowledged: the peer resends from our last ack. Nothing of the group was committed,
      // or on SQLite the slices before the failure were, with the cursor at their last row: their
      // rows are skipped as duplicates when they come again.
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
      .ack({ v: PROTOCOL_V, stream: batch.stream, upTo, accept: [...ACCEPTED_ENCODINGS] })
      .catch((err: Error) => this.o.deps.log.debug({ peer: this.o.peer, err: err.message }, 'ack not sent'));
  }

  /**
   * Applies the group and answers the position after it. With parking on, batches that start past
   * the applied position wait (a while) for another node to apply the batches before them.
   */
  private async applyInTurn(group: Batch[]): Promise<number> {
    const deadline = Date.now() + (this.o.parkEarlyMs ?? 0);
    let rest = group;
    for (let attempt = 0; ; attempt++) {
      const { upTo, applied } = await this.withBusyRetry(() => this.applyGroup(rest));
      rest = rest.slice(applied);
      if (rest.length === 0 || Date.now() >= deadline || this.stopped) return upTo;
      if (applied > 0) attempt = 0;
      await new Promise((r) => setTimeout(r, PARK_RETRY_MS[Math.min(attempt, PARK_RETRY_MS.length - 1)]));
      rest = this.withArrivals(rest);
    }
  }

  /**
   * The group together when the applier can (applyMany): the position after it, and how many of its
   * batches came before the first that starts past the position (that one and the rest applied nothing).
   */
  private async applyGroup(group: Batch[]): Promise<{ upTo: number; applied: number }> {
    const { applier } = this.o;
    const outcomes: Applied[] = [];
    if (group.length === 1 || !applier.applyMany) {
      for (const batch of group) {
        const outcome = await applier.apply(this.o.peer, batch);
        outcomes.push(outcome);
        if (outcome.gap) break;
      }
    } else outcomes.push(...(await applier.applyMany(this.o.peer, group)));
    const firstGap = outcomes.findIndex((o) => o.gap);
    const applied = firstGap === -1 ? outcomes.length : firstGap;
    return { upTo: outcomes[Math.max(0, applied - 1)]!.upTo, applied };
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

/** Oldest position first; a sort is stable, so duplicates keep their arrival order. */
function byPosition(batches: Batch[]): Batch[] {
  return batches.sort((a, b) => a.from - b.from);
}
