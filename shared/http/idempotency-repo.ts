/** The idempotency_key table (migration 0005): local rows, written straight through Kysely. */

import { sql, type WhereInterface } from 'kysely';
import type { Dialect, Kdb } from '../db/database.js';
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
  | { kind: 'orphaned' }
  /** The caller holds `maxKeys` live keys: a new one waits until the oldest expires (retryAfterMs). */
  | { kind: 'full'; retryAfterMs: number };

export class IdempotencyRepo {
  constructor(
    private readonly db: Kdb,
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  /**
   * Looks the key up and, when it is free (absent or expired), takes it "in flight" for `owner`,
   * in one transaction: SQLite runs one transaction at a time on the app's connection, and on
   * PostgreSQL the transaction first takes a lock of the caller's keys, so of two requests with one
   * key exactly one gets `run`. A row in flight under another owner for longer than `leaseMs` was
   * left by a process run that stopped while running it (`orphaned`); the caller takes it over
   * (now owned by `owner`) to give it a final answer. A new key of a caller that holds `maxKeys`
   * rows is refused (`full`): see callerIsFull.
   */
  claim(
    scope: KeyScope,
    request: {
      fingerprint: string;
      owner: string;
      now: number;
      expiresAt: number;
      leaseMs: number;
      maxKeys: number;
    },
  ): Promise<Claim> {
    return this.db.transaction().execute(async (trx): Promise<Claim> => {
      if (this.dialect === 'postgres') {
        await sql`SELECT pg_advisory_xact_lock(hashtext(${scope.principal}))`.execute(trx);
      }
      const row = await inScope(trx.selectFrom('idempotencyKey').selectAll(), scope).executeTakeFirst();
      if (!row || row.expiresAt <= request.now) {
        if (!row) {
          const wait = await callerIsFull(trx, scope.principal, request.now, request.maxKeys);
          if (wait !== undefined) return { kind: 'full', retryAfterMs: wait };
        }
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

/**
 * Whether the caller already holds `maxKeys` rows, so a new key would pass the bound: undefined
 * when there is room, else the ms until its oldest key expires. Its expired rows are deleted
 * first (they count as new keys anyway), so the rows of one caller never outnumber the bound.
 *
 * A new key is refused rather than the oldest evicted: every stored answer stays replayable for
 * its whole retention, so a client that lost an answer can never run that action a second time.
 * The refused request changed nothing, and a client keeps it and sends it again later (the
 * driver app's queue does on a 429).
 */
async function callerIsFull(trx: Kdb, principal: string, now: number, maxKeys: number) {
  const held = () =>
    trx
      .selectFrom('idempotencyKey')
      .where('principal', '=', principal)
      .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('expiresAt').as('oldest')])
      .executeTakeFirstOrThrow();
  let keys = await held();
  if (Number(keys.n) < maxKeys) return undefined;
  await trx
    .deleteFrom('idempotencyKey')
    .where('principal', '=', principal)
    .where('expiresAt', '<=', now)
    .execute();
  keys = await held();
  if (Number(keys.n) < maxKeys) return undefined;
  return Math.max(0, Number(keys.oldest) - now);
}

/** The row of one key (the primary key's columns). */
function inScope<QB extends WhereInterface<DB, 'idempotencyKey'>>(qb: QB, scope: KeyScope): QB {
  return qb
    .where('principal', '=', scope.principal)
    .where('method', '=', scope.method)
    .where('route', '=', scope.route)
    .where('key', '=', scope.key) as QB;
}
