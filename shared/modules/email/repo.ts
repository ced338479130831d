import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { EmailMessageTable, EmailSettingsTable, EmailStatus } from '../../db/tables.js';

export type EmailSettingsRow = Selectable<EmailSettingsTable>;
export type EmailMessageRow = Selectable<EmailMessageTable>;

/** SQL of the email module: its settings row and its outbox (local tables, never synced). */
export class EmailRepo {
  constructor(private readonly db: Kdb) {}

  settings(db: Kdb = this.db): Promise<EmailSettingsRow | undefined> {
    return db.selectFrom('emailSettings').selectAll().where('name', '=', 'smtp').executeTakeFirst();
  }

  async insertSettings(db: Kdb, row: Insertable<EmailSettingsTable>): Promise<void> {
    await db.insertInto('emailSettings').values(row).execute();
  }

  /** Writes the next version when the stored one is `version`; false when it moved on meanwhile. */
  async updateSettings(db: Kdb, version: number, patch: Updateable<EmailSettingsTable>): Promise<boolean> {
    const res = await db
      .updateTable('emailSettings')
      .set({ ...patch, version: version + 1 })
      .where('name', '=', 'smtp')
      .where('version', '=', version)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  message(id: string): Promise<EmailMessageRow | undefined> {
    return this.db.selectFrom('emailMessage').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest first (ids are time-ordered), `limit + 1` rows for toPage. */
  messages(opts: {
    limit: number;
    beforeId?: string | undefined;
    status?: EmailStatus[] | undefined;
    appointmentId?: string | undefined;
  }): Promise<EmailMessageRow[]> {
    let q = this.db.selectFrom('emailMessage').selectAll();
    if (opts.beforeId) q = q.where('id', '<', opts.beforeId);
    if (opts.status) q = q.where('status', 'in', opts.status);
    if (opts.appointmentId) q = q.where('appointmentId', '=', opts.appointmentId);
    return q
      .orderBy('id', 'desc')
      .limit(opts.limit + 1)
      .execute();
  }

  /** Pending mails due at `now`, oldest due first. */
  due(now: number, limit: number): Promise<EmailMessageRow[]> {
    return this.db
      .selectFrom('emailMessage')
      .selectAll()
      .where('status', '=', 'pending')
      .where('nextAttemptAt', '<=', now)
      .orderBy('nextAttemptAt')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** When the next pending mail is due, or undefined when none is pending. */
  async nextDueAt(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('emailMessage')
      .select((eb) => eb.fn.min('nextAttemptAt').as('at'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  /** The outcome of one attempt, written only while the mail is still pending (a retry raced it otherwise). */
  async recordAttempt(db: Kdb, id: string, patch: Updateable<EmailMessageTable>): Promise<boolean> {
    const res = await db
      .updateTable('emailMessage')
      .set(patch)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Every waiting mail due now: after a success the server is back, so nothing waits out its backoff. */
  async pullForward(db: Kdb, now: number): Promise<void> {
    await db
      .updateTable('emailMessage')
      .set({ nextAttemptAt: now })
      .where('status', '=', 'pending')
      .where('nextAttemptAt', '>', now)
      .execute();
  }

  /** A failed mail back in the queue, due now, with a new day of retries. */
  async requeue(id: string, now: number, giveUpAt: number): Promise<boolean> {
    const res = await this.db
      .updateTable('emailMessage')
      .set({ status: 'pending', nextAttemptAt: now, giveUpAt })
      .where('id', '=', id)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async queue(): Promise<{
    pending: number;
    failed: number;
    lastSentAt: number | null;
    lastError: string | null;
  }> {
    const counts = await this.db
      .selectFrom('emailMessage')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .where('status', 'in', ['pending', 'failed'])
      .groupBy('status')
      .execute();
    const n = (status: string) => Number(counts.find((c) => c.status === status)?.n ?? 0);
    const sent = await this.db
      .selectFrom('emailMessage')
      .select((eb) => eb.fn.max('sentAt').as('at'))
      .where('status', '=', 'sent')
      .executeTakeFirst();
    const error = await this.db
      .selectFrom('emailMessage')
      .select('lastError')
      .where('status', 'in', ['pending', 'failed'])
      .where('lastError', 'is not', null)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return {
      pending: n('pending'),
      failed: n('failed'),
      lastSentAt: sent?.at === null || sent?.at === undefined ? null : Number(sent.at),
      lastError: error?.lastError ?? null,
    };
  }
}
