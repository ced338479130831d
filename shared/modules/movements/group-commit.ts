import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { recordMovement } from './record.js';

interface Pending<A extends unknown[], R> {
  args: A;
  resolve: (value: R) => void;
  reject: (reason: unknown) => void;
}

const MAX_BATCH = 64;

/**
 * Group commit: movements that arrive while one is being written share the next transaction, each
 * in its own savepoint (a refused one rolls back alone). With synchronous=FULL every commit is an
 * fsync, so one commit per batch instead of per movement is what keeps the gate rate up.
 * Every caller is answered only after the commit that holds its writes. `work` is what each call
 * does inside the transaction, given the call's arguments.
 */
export class GroupCommit<A extends unknown[], R> {
  private queue: Array<Pending<A, R>> = [];
  private running = false;

  constructor(
    private readonly db: Kdb,
    private readonly work: (trx: Kdb, ...args: A) => Promise<R>,
  ) {}

  run(...args: A): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ args, resolve, reject });
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

  private async writeBatch(batch: Array<Pending<A, R>>): Promise<void> {
    const outcomes: Array<{ ok: true; value: R } | { ok: false; error: unknown }> = [];
    let trx: Awaited<ReturnType<ReturnType<Kdb['startTransaction']>['execute']>> | undefined;
    try {
      trx = await this.db.startTransaction().execute();
      if (batch.length === 1) {
        // Alone in the batch: the transaction itself is the rollback unit, no savepoint needed.
        const item = batch[0]!;
        try {
          outcomes.push({ ok: true, value: await this.work(trx, ...item.args) });
        } catch (error) {
          await trx.rollback().execute();
          item.reject(error);
          return;
        }
      } else {
        for (const item of batch) {
          const savepoint = await trx.savepoint('movement').execute();
          try {
            const value = await this.work(savepoint, ...item.args);
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

type RecordDeps = Parameters<typeof recordMovement>[0];

/** The record step of a gate movement: recordMovement (record.ts) for each call, in shared transactions. */
export type MovementRecorder = GroupCommit<
  Parameters<typeof recordMovement> extends [RecordDeps, Kdb, ...infer A] ? A : never,
  Awaited<ReturnType<typeof recordMovement>>
>;

export function movementRecorder(deps: RecordDeps & Pick<CoreParts, 'kysely'>): MovementRecorder {
  // Bound, not wrapped: the transaction runs recordMovement itself (no closure of another file).
  return new GroupCommit(deps.kysely, recordMovement.bind(null, deps));
}
