import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import type { Component } from '../../lifecycle.js';
import type { AppointmentPublicT } from '../appointments/public-view.js';
import { nextAttemptAt } from '../webhooks/backoff.js';
import { composeMail, type PassFiles } from './compose.js';
import type { EmailMessageRow, EmailRepo, EmailSettingsRow } from './repo.js';
import { type MailSender, sendError } from './sender.js';

/** One holder of the sending across the cloud's nodes (shared/db/job-lease.ts). */
export interface SendingLease {
  hold(): Promise<number | null>;
  /** Extends this term; false when it is over. */
  renew(epoch: number): Promise<boolean>;
  /** Fails the transaction (throws) when this term no longer holds the lease. */
  fence(trx: Kdb, epoch: number): Promise<void>;
  release(): Promise<void>;
}

export type EmailWorkerDeps = Pick<CoreParts, 'kysely' | 'clock' | 'log'> & {
  repo: EmailRepo;
  sender: MailSender;
  pass: PassFiles | null;
  lease: SendingLease;
  /** Calls back on each commit that may have queued a mail (table generations; commit signals on PostgreSQL). */
  onQueued: (wake: () => void) => void;
  /** In [0, 1), for the retry jitter (tests fix it). */
  random?: () => number;
};

const BATCH = 50;
/** The longest sleep between runs: the lease is renewed and settings changed on other nodes are seen. */
const MAX_SLEEP_MS = 5_000;

/**
 * Sends the email outbox (docs/configuration.md "Email to carriers"): the mails due, one at a time,
 * through the SMTP server of the settings, on the one node that holds the lease. An attempt's
 * outcome is written under the lease's fence, so a node that lost the lease mid-run writes nothing
 * (its mail may go twice: at least once, never lost). A failure waits by the retry schedule of
 * webhook deliveries (webhooks/backoff.ts: one table of delays for both) and is given up on after 24 hours (failed, shown with its error; an admin may retry
 * it). A success pulls the other waiting mails forward: the server is back. Nothing is sent while
 * email is off; the mails stay queued.
 */
export class EmailWorker implements Component {
  readonly name = 'email-sender';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | null = null;
  private again = false;
  private started = false;
  private watching = false;

  constructor(private readonly deps: EmailWorkerDeps) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Once per worker: a restarted worker keeps the one watcher (wake does nothing while stopped).
    if (!this.watching) this.deps.onQueued(() => this.wake());
    this.watching = true;
    this.wake();
  }

  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    await this.deps.lease.release().catch(() => undefined);
  }

  /** Runs soon; a wake while a run is on makes one more run after it. */
  wake(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.runDue()
      .catch((err: unknown) => this.deps.log.error({ err }, 'email sending failed'))
      .finally(() => this.scheduleNext());
  }

  /**
   * Sends every mail due now, when this node holds the lease and email is on; returns how many
   * were attempted. Runs one at a time (a call during a run waits for it and runs again).
   */
  async runDue(): Promise<number> {
    while (this.running) {
      await this.running.catch(() => undefined);
    }
    this.again = false;
    this.running = this.sendDue().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private scheduleNext(): void {
    if (!this.started) return;
    if (this.again) {
      this.again = false;
      this.wake();
      return;
    }
    clearTimeout(this.timer);
    this.deps.repo
      .nextDueAt()
      .catch(() => undefined)
      .then((at) => {
        if (!this.started) return;
        const wait = at === undefined ? MAX_SLEEP_MS : Math.max(0, at - this.deps.clock.now());
        this.timer = setTimeout(() => this.wake(), Math.min(wait, MAX_SLEEP_MS));
        this.timer.unref();
      });
  }

  private async sendDue(): Promise<number> {
    const epoch = await this.deps.lease.hold();
    if (epoch === null) return 0;
    const settings = await this.deps.repo.settings();
    if (settings?.enabled !== 1) return 0;
    let attempted = 0;
    const tried = new Set<string>();
    for (;;) {
      const due = (await this.deps.repo.due(this.deps.clock.now(), BATCH)).filter((m) => !tried.has(m.id));
      if (due.length === 0) return attempted;
      for (const message of due) {
        // A slow server must not outlast the lease unnoticed: each mail goes under a renewed term.
        if (!(await this.deps.lease.renew(epoch))) return attempted;
        tried.add(message.id);
        attempted += 1;
        if (!(await this.attempt(settings, message, epoch))) return attempted;
      }
    }
  }

  /** One attempt and its outcome; false when the lease was lost (the run stops). */
  private async attempt(settings: EmailSettingsRow, m: EmailMessageRow, epoch: number): Promise<boolean> {
    const attempts = m.attempts + 1;
    try {
      const appointment = JSON.parse(m.snapshot) as AppointmentPublicT;
      const mail = await composeMail(m.kind, m.toAddress ?? '', appointment, this.deps.pass);
      const sent = await this.deps.sender.send(settings, mail);
      const now = this.deps.clock.now();
      return await this.record(epoch, m.id, {
        status: 'sent',
        attempts,
        sentAt: now,
        lastError: null,
        smtpResponse: sent.response.slice(0, 500),
        messageId: sent.messageId,
        pullForward: now,
      });
    } catch (err) {
      const error = sendError(err);
      const now = this.deps.clock.now();
      const next = nextAttemptAt(attempts, now, m.giveUpAt, this.deps.random ?? Math.random);
      this.deps.log.warn(
        { mailId: m.id, kind: m.kind, attempts, error, gaveUp: next === null },
        'a mail to a carrier was not sent',
      );
      return this.record(epoch, m.id, {
        status: next === null ? 'failed' : 'pending',
        attempts,
        lastError: error,
        ...(next === null ? {} : { nextAttemptAt: next }),
      });
    }
  }

  private async record(
    epoch: number,
    id: string,
    outcome: Parameters<EmailRepo['recordAttempt']>[2] & { pullForward?: number },
  ): Promise<boolean> {
    const { pullForward, ...patch } = outcome;
    try {
      await this.deps.kysely.transaction().execute(async (trx) => {
        await this.deps.lease.fence(trx, epoch);
        await this.deps.repo.recordAttempt(trx, id, patch);
        if (pullForward !== undefined) await this.deps.repo.pullForward(trx, pullForward);
      });
      return true;
    } catch (err) {
      if ((err as Error).name === 'LeaseLost') return false;
      throw err;
    }
  }
}
