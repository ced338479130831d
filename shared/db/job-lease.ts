import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Kdb } from './database.js';

/** The lease moved on to another holder (or a later term) while this one was still working. */
export class LeaseLost extends Error {
  constructor(name: string, epoch: number) {
    super(`the lease of ${name} (epoch ${epoch}) is no longer held`);
    this.name = 'LeaseLost';
  }
}

export interface JobLeaseOptions {
  kysely: Kdb;
  clock: Clock;
  /** The job, e.g. 'webhook-delivery': one row of job_lease. */
  name: string;
  /** This holder: one per process run, so a restarted node starts a new term. */
  owner: string;
  /** How long a hold lasts without a renewal; renew well within it (a third of it, say). */
  ttlMs: number;
}

/**
 * One holder of a background job across the cloud's nodes, on SQLite and PostgreSQL alike
 * (docs/architecture.md "Two databases, and several cloud nodes"): a row in job_lease with its
 * owner, an epoch and an expiry. A node that stops holding it (crash, pause, lost network) loses it
 * when it expires, and another node takes it with the next epoch. A holder that was paused past its
 * expiry may still be running: every result it writes goes through `fence` in the same transaction,
 * which fails when the epoch has moved on, so a stale holder's write never lands. What it did outside
 * the database before noticing (an HTTP request) can happen twice: the jobs built on it promise
 * at-least-once, not exactly-once. Each statement is a single row change, so of two nodes racing
 * for the row exactly one wins (SQLite's write lock; PostgreSQL's row lock on the conflict).
 */
export class JobLease {
  constructor(private readonly o: JobLeaseOptions) {}

  get name(): string {
    return this.o.name;
  }

  get owner(): string {
    return this.o.owner;
  }

  /**
   * Takes the lease when it is free (never held, released or expired) or extends it when this owner
   * holds it. Returns the epoch held, or null when another owner holds it. A new term (a takeover,
   * or this owner coming back after its hold expired) gets the next epoch; a renewal keeps it.
   */
  async hold(): Promise<number | null> {
    const now = this.o.clock.now();
    const row = await this.o.kysely
      .insertInto('jobLease')
      .values({ name: this.o.name, owner: this.o.owner, epoch: 1, expiresAt: now + this.o.ttlMs })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({
            owner: this.o.owner,
            epoch: sql<number>`CASE WHEN job_lease.owner = ${this.o.owner} AND job_lease.expires_at > ${now}
              THEN job_lease.epoch ELSE job_lease.epoch + 1 END`,
            expiresAt: now + this.o.ttlMs,
          })
          .where((eb) =>
            eb.or([eb('jobLease.owner', '=', this.o.owner), eb('jobLease.expiresAt', '<=', now)]),
          ),
      )
      .returning('epoch')
      .executeTakeFirst();
    return row ? Number(row.epoch) : null;
  }

  /**
   * Extends the hold of this term. False when the term is over (another owner or a later epoch took
   * the row): the caller stops its work and may try `hold()` again later. A term that expired but
   * that nobody took is still this owner's and is extended (no one else ran in between).
   */
  async renew(epoch: number): Promise<boolean> {
    const res = await this.o.kysely
      .updateTable('jobLease')
      .set({ expiresAt: this.o.clock.now() + this.o.ttlMs })
      .where('name', '=', this.o.name)
      .where('owner', '=', this.o.owner)
      .where('epoch', '=', epoch)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Gives the lease up at once (a clean stop), so another node need not wait for the expiry. */
  async release(): Promise<void> {
    await this.o.kysely
      .updateTable('jobLease')
      .set({ expiresAt: 0 })
      .where('name', '=', this.o.name)
      .where('owner', '=', this.o.owner)
      .execute();
  }

  /**
   * Checks, inside the transaction of a result write, that this term still holds the lease, and
   * throws LeaseLost (so the transaction rolls back) when not. It writes the row it checks: on
   * PostgreSQL the row stays locked until the transaction ends, so no other node can start a term
   * between the check and the commit; SQLite has one writer at a time anyway.
   */
  async fence(trx: Kdb, epoch: number): Promise<void> {
    const res = await trx
      .updateTable('jobLease')
      .set({ epoch })
      .where('name', '=', this.o.name)
      .where('owner', '=', this.o.owner)
      .where('epoch', '=', epoch)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new LeaseLost(this.o.name, epoch);
  }
}
