import type { Kdb } from '../../db/database.js';

interface Pending<R> {
  work: (trx: Kdb) => Promise<R>;
  resolve: (value: R) => void;
  reject: (reason: unknown) => void;
}

const MAX_BATCH = 64;

/**
 * Group commit: movements that arrive while one is being written share the next transaction, each
 * in its own savepoint (a refused one rolls back alone). With synchronous=FULL every commit is an
 * fsync, so one commit per batch instead of per movement is what keeps the gate rate up.
 * Every caller is answered only after the commit that holds its writes.
 */
export class GroupCommit {
  private queue: Array<Pending<unknown>> = [];
  private running = false;

  constructor(private readonly db: Kdb) {}

  run<R>(work: (trx: Kdb) => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ work, resolve, reject } as Pending<unknown>);
      if (!this.running) {
        this.running = true;
        // Start on the next turn of the event loop, so requests read in the same I/O phase join this batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.writeBatch(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.running = false;
    }
  }

  private async writeBatch(batch: Array<Pending<unknown>>): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    let trx: Awaited<ReturnType<ReturnType<Kdb['startTransaction']>['execute']>> | undefined;
    try {
      trx = await this.db.startTransaction().execute();
      if (batch.length === 1) {
        // Alone in the batch: the transaction itself is the rollback unit, no savepoint needed.
        const item = batch[0]!;
        try {
          outcomes.push({ ok: true, value: await item.work(trx) });
        } catch (error) {
          await trx.rollback().execute();
          item.reject(error);
          return;
        }
      } else {
        for (const item of batch) {
          const savepoint = await trx.savepoint('movement').execute();
          try {
            const value = await item.work(savepoint);
            await savepoint.releaseSavepoint('movement').execute();
            outcomes.push({ ok: true, value });
          } catch (error) {
            await savepoint.rollbackToSavepoint('movement').execute();
            await savepoint.releaseSavepoint('movement').execute();
            outcomes.push({ ok: false, error });
          }
        }
      }
      await trx.commit().execute();
    } catch (error) {
      await trx
        ?.rollback()
        .execute()
        .catch(() => {});
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
