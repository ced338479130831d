import { sql } from 'kysely';
import type { Kdb } from '../../db/database.js';

/** Attachment bytes this edge still has to send, oldest attachment first. */
export interface WaitingBlob {
  sha256: string;
  size: number;
}

/**
 * The edge's record of which attachment bytes reached the cloud (table blob_upload, migration 0004).
 * No row means never tried. Only attachments made at this edge are its to upload: their HLC origin
 * is this edge's (`<ms>-<counter>-<origin>`, so the origin starts at character 20); an attachment
 * made at the cloud or at another site came down as metadata and its bytes are fetched on demand.
 */
export class BlobUploadRepo {
  constructor(
    private readonly db: Kdb,
    private readonly origin: string,
  ) {}

  /** The next blob due at `now` (never tried, or its retry time has come). */
  async nextDue(now: number): Promise<WaitingBlob | undefined> {
    const row = await this.waiting()
      .where((eb) => eb.or([eb('b.sha256', 'is', null), eb('b.nextAttemptAt', '<=', now)]))
      .select(['a.sha256', (eb) => eb.fn.max('a.size').as('size')])
      .groupBy('a.sha256')
      .orderBy((eb) => eb.fn.min('a.createdAt'))
      .limit(1)
      .executeTakeFirst();
    return row ? { sha256: row.sha256, size: Number(row.size) } : undefined;
  }

  /** When the earliest retry is due, if any blob waits for one. */
  async nextRetryAt(): Promise<number | undefined> {
    const row = await this.waiting()
      .select((eb) => eb.fn.min('b.nextAttemptAt').as('at'))
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  /** Attachments (records, not distinct contents) whose bytes have not reached the cloud. */
  async countWaiting(): Promise<number> {
    const row = await this.waiting()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Of those, how many contents failed at least once, and the latest error. */
  async failures(): Promise<{ failing: number; lastError: string | null }> {
    const rows = await this.db
      .selectFrom('blobUpload')
      .select(['lastError'])
      .where('uploadedAt', 'is', null)
      .where('attempts', '>', 0)
      .orderBy('nextAttemptAt', 'desc')
      .execute();
    return { failing: rows.length, lastError: rows[0]?.lastError ?? null };
  }

  async markUploaded(sha256: string, now: number): Promise<void> {
    await this.db
      .insertInto('blobUpload')
      .values({ sha256, uploadedAt: now, lastError: null })
      .onConflict((oc) => oc.column('sha256').doUpdateSet({ uploadedAt: now, lastError: null }))
      .execute();
  }

  /** Counts a failed attempt; answers the attempts so far (for the backoff). */
  async markFailed(sha256: string, error: string, retryAt: (attempts: number) => number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('blobUpload')
        .select('attempts')
        .where('sha256', '=', sha256)
        .executeTakeFirst();
      const attempts = (current?.attempts ?? 0) + 1;
      const values = { attempts, nextAttemptAt: retryAt(attempts), lastError: error.slice(0, 1000) };
      await trx
        .insertInto('blobUpload')
        .values({ sha256, uploadedAt: null, ...values })
        .onConflict((oc) => oc.column('sha256').doUpdateSet(values))
        .execute();
      return attempts;
    });
  }

  private waiting() {
    return this.db
      .selectFrom('attachment as a')
      .leftJoin('blobUpload as b', 'b.sha256', 'a.sha256')
      .where('b.uploadedAt', 'is', null)
      .where(sql<string>`substr(a.hlc, 20)`, '=', this.origin);
  }
}
