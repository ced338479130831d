/** The idempotency_key table (migration 0005): local rows, written straight through Kysely. */

import type { WhereInterface } from 'kysely';
import type { Kdb } from '../db/database.js';
import type { DB, IdempotencyKeyTable } from '../db/tables.js';

/** Which key: the caller, the operation (method + route template) and the key the caller sent. */
export interface KeyScope {
  principal: string;
  method: string;
  route: string;
  key: string;
}

export type KeyRow = IdempotencyKeyTable;

/** A stored answer, replayed byte for byte. */
export interface StoredAnswer {
  status: number;
  contentType: string | null;
  body: string;
}

/** What a request finds for its key (see IdempotencyKeys.claim). */
export type Claim =
  | { kind: 'run' }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'reused' }
  | { kind: 'in-flight' }
  | { kind: 'orphaned' };

export class IdempotencyRepo {
  constructor(private readonly db: Kdb) {}

  /**
   * Looks the key up and, when it is free (absent or expired), takes it "in flight" for `owner`,
   * in one transaction: SQLite runs one transaction at a time on the app's connection, so of two
   * requests with one key exactly one gets `run`. A row in flight under another owner for longer
   * than `leaseMs` was left by a process run that stopped while running it (`orphaned`); the
   * caller takes it over (now owned by `owner`) to give it a final answer.
   */
  claim(
    scope: KeyScope,
    request: { fingerprint: string; owner: string; now: number; expiresAt: number; leaseMs: number },
  ): Promise<Claim> {
    return this.db.transaction().execute(async (trx): Promise<Claim> => {
      const row = await inScope(trx.selectFrom('idempotencyKey').selectAll(), scope).executeTakeFirst();
      if (!row || row.expiresAt <= request.now) {
        const fresh = {
          ...scope,
          fingerprint: request.fingerprint,
          state: 'in-flight' as const,
          owner: request.owner,
          startedAt: request.now,
          status: null,
          contentType: null,
          body: null,
          expiresAt: request.expiresAt,
        };
        await trx
          .insertInto('idempotencyKey')
          .values(fresh)
          .onConflict((oc) => oc.columns(['principal', 'method', 'route', 'key']).doUpdateSet(fresh))
          .execute();
        return { kind: 'run' };
      }
      if (row.fingerprint !== request.fingerprint) return { kind: 'reused' };
      if (row.state === 'done') {
        return {
          kind: 'replay',
          answer: { status: row.status ?? 500, contentType: row.contentType, body: row.body ?? '' },
        };
      }
      const orphaned = row.owner !== request.owner && request.now - row.startedAt >= request.leaseMs;
      if (!orphaned) return { kind: 'in-flight' };
      await inScope(
        trx.updateTable('idempotencyKey').set({ owner: request.owner, startedAt: request.now }),
        scope,
      ).execute();
      return { kind: 'orphaned' };
    });
  }

  /** Stores the final answer of a key this owner holds in flight. */
  async finish(scope: KeyScope, owner: string, answer: StoredAnswer, expiresAt: number): Promise<void> {
    await inScope(
      this.db.updateTable('idempotencyKey').set({
        state: 'done',
        status: answer.status,
        contentType: answer.contentType,
        body: answer.body,
        expiresAt,
      }),
      scope,
    )
      .where('owner', '=', owner)
      .where('state', '=', 'in-flight')
      .execute();
  }

  /** Frees a key this owner holds in flight (its request changed nothing), so a retry runs. */
  async release(scope: KeyScope, owner: string): Promise<void> {
    await inScope(this.db.deleteFrom('idempotencyKey'), scope)
      .where('owner', '=', owner)
      .where('state', '=', 'in-flight')
      .execute();
  }

  /** Deletes the keys expired at `now`; answers how many. */
  async deleteExpired(now: number): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotencyKey')
      .where('expiresAt', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The row of one key (the primary key's columns). */
function inScope<QB extends WhereInterface<DB, 'idempotencyKey'>>(qb: QB, scope: KeyScope): QB {
  return qb
    .where('principal', '=', scope.principal)
    .where('method', '=', scope.method)
    .where('route', '=', scope.route)
    .where('key', '=', scope.key) as QB;
}
