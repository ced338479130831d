import { hostname } from 'node:os';
import type { CoreParts } from '../../core-parts.js';
import { JobLease } from '../../db/job-lease.js';
import { newId } from '../../ids.js';
import { DAY_MS, nextAttemptAt } from './backoff.js';
import { DeliveryRepo, type DueDelivery } from './delivery-repo.js';
import type { AttemptResult, WebhookSender } from './sender.js';
import { signedHeaders } from './signature.js';

/** A lease not renewed for this long passes to another node (docs/webhooks.md "Several cloud nodes"). */
export const LEASE_TTL_MS = 15_000;
/** How often the holder renews, and how often every node checks for due retries. */
export const TICK_MS = 5_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export type DispatcherDeps = Pick<CoreParts, 'kysely' | 'clock' | 'log' | 'changes'> & {
  sender: Pick<WebhookSender, 'send' | 'close'>;
  /** Deliveries in flight at once (at most one per stream). */
  concurrency: number;
  retentionDays: number;
  /** [0, 1): the retry waits' jitter (seeded in tests). */
  random?: () => number;
};

/**
 * Sends the outbox's deliveries (docs/webhooks.md "Delivery"): at least once, in order per
 * resource, retried with backoff for 24 hours. Runs on one cloud node at a time, the holder of the
 * 'webhook-delivery' job lease (shared/db/job-lease.ts); every result is written under the lease's
 * fence, so a node that lost the lease mid-send writes nothing (its request may have gone out: the
 * next holder sends it again with the same webhook-id, which receivers dedupe by).
 *
 * Woken when deliveries are written (their table's generation: local writes, rows from a site, and
 * on PostgreSQL other nodes' commits), and every TICK_MS for retries that come due and to renew the
 * lease. `runDue()` does one pass now (tests drive it with a ManualClock).
 */
export class WebhookDispatcher {
  private readonly repo: DeliveryRepo;
  private readonly lease: JobLease;
  readonly node = `${hostname()}/${process.pid}/${newId().slice(-8)}`;
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private running: Promise<number> | null = null;
  private again = false;
  private stopped = true;
  private lastPrune = 0;

  constructor(private readonly deps: DispatcherDeps) {
    this.repo = new DeliveryRepo(deps.kysely);
    this.lease = new JobLease({
      kysely: deps.kysely,
      clock: deps.clock,
      name: 'webhook-delivery',
      owner: this.node,
      ttlMs: LEASE_TTL_MS,
    });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.deps.changes.generations.watch(['webhookDelivery', 'appointmentEvent', 'movement'], () =>
      this.wake(),
    );
    this.timer = setInterval(() => this.wake(), TICK_MS);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    await this.running?.catch(() => undefined);
    await this.lease.release().catch(() => undefined);
    this.deps.sender.close();
  }

  /** Something may be due: a pass soon (one at a time; a wake during a pass runs another after it). */
  wake(): void {
    if (this.stopped || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.runDue().catch((err: unknown) => this.deps.log.error({ err }, 'webhook delivery pass failed'));
    }, 0);
  }

  /** One pass: while this node holds the lease, sends what is due until nothing is. Returns attempts made. */
  runDue(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.pass().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
    return this.running;
  }

  private async pass(): Promise<number> {
    // A read first: with nothing due the lease is not written (an idle gate box writes nothing every tick).
    const due = await this.repo.nextDueAt();
    if (due === null || due > this.deps.clock.now()) return 0;
    const epoch = await this.lease.hold();
    if (epoch === null) return 0;
    // Renewed while the pass runs: slow receivers (a timeout each) must not let the lease lapse.
    let held = true;
    const beat = setInterval(() => {
      this.lease.renew(epoch).then(
        (ok) => {
          held &&= ok;
        },
        () => undefined,
      );
    }, TICK_MS);
    let attempts = 0;
    try {
      while (held) {
        const due = await this.repo.dueHeads(this.deps.clock.now(), this.deps.concurrency * 2);
        if (due.length === 0) break;
        await inPool(due, this.deps.concurrency, (d) => this.attempt(epoch, d));
        attempts += due.length;
      }
      if (held) await this.pruneNowAndThen(epoch);
    } finally {
      clearInterval(beat);
    }
    return attempts;
  }

  private async attempt(epoch: number, d: DueDelivery): Promise<void> {
    const at = this.deps.clock.now();
    const result = await this.deps.sender.send(
      d.url,
      signedHeaders(d.secret, d.webhookId, at, d.payload),
      d.payload,
    );
    await this.deps.kysely.transaction().execute(async (trx) => {
      await this.lease.fence(trx, epoch);
      await this.repo.logAttempt(trx, d, at, this.node, result);
      const now = this.deps.clock.now();
      const status = result.httpStatus;
      const attempts = d.attempts + 1;
      if (status !== null && status >= 200 && status < 300) {
        await this.repo.settle(trx, d.id, {
          status: 'delivered',
          attempts,
          deliveredAt: now,
          lastStatus: status,
          lastError: null,
          replay: 0,
        });
        await this.repo.pullForward(trx, d.endpointId, now);
        return;
      }
      if (status === 410) {
        await this.repo.disableEndpoint(trx, d.endpointId, now);
        await this.repo.settle(trx, d.id, {
          status: 'failed',
          attempts,
          lastStatus: status,
          lastError: 'the endpoint answered 410 Gone: it was disabled',
          replay: 0,
        });
        return;
      }
      const next = nextAttemptAt(attempts, now, d.giveUpAt, this.deps.random ?? Math.random);
      await this.repo.settle(trx, d.id, {
        ...(next === null
          ? { status: 'failed' as const, replay: 0 }
          : { status: 'pending' as const, nextAttemptAt: next, replay: d.replay }),
        attempts,
        lastStatus: status,
        lastError: failureText(result),
      });
    });
  }

  private async pruneNowAndThen(epoch: number): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.deps.kysely.transaction().execute(async (trx) => {
      await this.lease.fence(trx, epoch);
      await this.repo.prune(trx, now - this.deps.retentionDays * DAY_MS);
    });
  }
}

function failureText(r: AttemptResult): string {
  if (r.error) return r.error;
  const answer = r.responseBody ? `: ${r.responseBody.slice(0, 200)}` : '';
  return `the endpoint answered ${r.httpStatus}${answer}`;
}

/** Runs `work` on every item, at most `size` at once. */
async function inPool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
