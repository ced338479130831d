/**
 * The Idempotency-Key request header (after the IETF draft "The Idempotency-Key HTTP Header
 * Field"), for routes that opt in with `idempotent: true`. A phone that queued an action offline
 * sends it with a key of its own and may send it again after a lost answer: the first request runs,
 * every repeat gets the first answer back, and the action is applied once.
 *
 * The rules, in one place (told in route-docs.ts, docs/api.md "Idempotency-Key" and docs/using-the-api.md):
 * - The key is the caller's: scoped per principal, method and route template, kept with a
 *   fingerprint (SHA-256) of the request's path parameters, query and body.
 * - The same key and request again: the stored status and body, `Idempotent-Replayed: true`, and
 *   the handler does not run. The same key with another request: 422 `idempotency-key-reused`.
 * - A repeat while the first still runs: 409 `idempotency-key-in-flight` with Retry-After (not
 *   queued behind it: the phone retries anyway, and a held connection helps no one).
 * - Stored: every answer of a request whose handler began, 4xx and 5xx included: a handler that
 *   failed may have applied part of its work (a batch moves each task in its own transaction), so
 *   running it again could apply something twice. Not stored (the key is freed and a retry runs):
 *   answers given before the handler began (validation 400, a rate limit, 409 in flight, 422
 *   reused), and 507 storage-full, where SQLite refused the write and rolled it back.
 * - The answer is stored before it is sent, so a client that got an answer can always get it again.
 * - Order and crashes: the key row is written "in flight" in its own transaction before the handler
 *   runs, since a handler's writes are one or more transactions of its own. A process that stops
 *   while running a request leaves its row in flight; no run but the one that wrote it ever runs
 *   that key's handler. After the lease (a minute), a repeat finds the row left by a process run
 *   that is gone, and gets the final 409 `idempotency-outcome-unknown`: the action may or may not
 *   have been applied, so it is not run again; the client reloads the record and decides.
 * - Keys are kept `idempotency.retentionHours` (default 48 h, at least a shift) after their
 *   answer; an expired key counts as new. Expired rows are pruned hourly.
 * - One caller keeps at most `idempotency.maxKeysPerCaller` keys (default 1000): a new key past it
 *   is 429 `too-many-idempotency-keys` with Retry-After until its oldest key expires, and nothing
 *   runs. New keys are refused, old ones never evicted early: an evicted key's repeat would run its
 *   action again (idempotency-repo.ts, callerIsFull). The drivers' routes also limit the rate of
 *   requests per driver (driver-app/request-limit.ts), before a key is taken.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import type { Dialect, Kdb } from '../db/database.js';
import { newId } from '../ids.js';
import type { Logger } from '../log.js';
import {
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  IdempotencyKeysExhaustedError,
  IdempotencyOutcomeUnknownError,
  InvalidIdempotencyKeyError,
} from './idempotency-errors.js';
import { IdempotencyRepo, type KeyScope } from './idempotency-repo.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const HOUR_MS = 60 * 60 * 1000;
/** Printable ASCII (the draft's key is a Structured Fields string), 1 to 255 characters. */
const KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;
/** The draft's form: a Structured Fields string, `"..."` with `\"` and `\\` escapes. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
const BEGAN = 'idempotencyHandlerBegan';

export interface IdempotencyDeps {
  kysely: Kdb;
  clock: Clock;
  log: Logger;
  /** Setting idempotency.retentionHours, read when a key is taken and when its answer is stored. */
  retentionHours: () => Promise<number>;
  /** Setting idempotency.maxKeysPerCaller, read when a new key is taken (default 1000). */
  maxKeysPerCaller?: () => Promise<number>;
  /** The database's dialect (PostgreSQL takes a lock per caller; default SQLite). */
  dialect?: Dialect;
}

const DEFAULT_MAX_KEYS = 1000;

/**
 * The key of a request, or undefined without the header. Taken as sent (`abc`) or in the draft's
 * quoted form (`"abc"`, with `\"` and `\\` escapes); anything else, or the header twice, is 400
 * `invalid-idempotency-key`.
 */
export function idempotencyKeyOf(req: Request): string | undefined {
  const values = req.headersDistinct[IDEMPOTENCY_HEADER.toLowerCase()];
  if (!values || values.length === 0) return undefined;
  if (values.length > 1)
    throw new InvalidIdempotencyKeyError('Send one Idempotency-Key header, not several.');
  const raw = values[0]!;
  const quoted = SF_STRING.exec(raw);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : raw;
  // A value that opens with a quote must be a whole quoted string: `"abc` is refused, not a key.
  if (!KEY_SHAPE.test(key) || (!quoted && raw.startsWith('"'))) {
    throw new InvalidIdempotencyKeyError(
      'Idempotency-Key must be 1 to 255 printable ASCII characters, plain or as one quoted string (a UUID is a good key).',
    );
  }
  return key;
}

/** SHA-256 of the request's path parameters, query and body, with object keys in a fixed order. */
export function requestFingerprint(req: Pick<Request, 'params' | 'query' | 'body'>): string {
  const request = { params: req.params ?? {}, query: req.query ?? {}, body: req.body ?? null };
  return createHash('sha256')
    .update(JSON.stringify(sortedKeys(request)))
    .digest('hex');
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((k) => [k, sortedKeys(object[k])]),
  );
}

/** Set by the route registrar just before a route's handler runs: from then on its answer is final. */
export function markHandlerBegan(res: Response): void {
  res.locals[BEGAN] = true;
}

export class IdempotencyKeys {
  private readonly repo: IdempotencyRepo;
  /** This process run: rows in flight under another owner were left by a run that stopped. */
  private readonly owner = newId();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: IdempotencyDeps,
    private readonly options: { inFlightLeaseMs: number } = { inFlightLeaseMs: 60_000 },
  ) {
    this.repo = new IdempotencyRepo(deps.kysely, deps.dialect);
  }

  /** The step a route with `idempotent: true` runs after authentication and its JSON body. */
  step(route: { method: string; path: string }): RequestHandler {
    return async (req, res, next) => {
      const key = idempotencyKeyOf(req);
      if (key === undefined) {
        next();
        return;
      }
      const principal = res.locals.principal as Principal | null | undefined;
      const scope: KeyScope = {
        principal: principal ? `${principal.kind}:${principal.id}` : 'public',
        method: route.method.toUpperCase(),
        route: route.path,
        key,
      };
      const now = this.deps.clock.now();
      const claim = await this.repo.claim(scope, {
        fingerprint: requestFingerprint(req),
        owner: this.owner,
        now,
        expiresAt: now + (await this.retentionMs()),
        leaseMs: this.options.inFlightLeaseMs,
        maxKeys: (await this.deps.maxKeysPerCaller?.()) ?? DEFAULT_MAX_KEYS,
      });
      switch (claim.kind) {
        case 'full':
          throw new IdempotencyKeysExhaustedError(Math.max(1, Math.ceil(claim.retryAfterMs / 1000)));
        case 'reused':
          throw new IdempotencyKeyReusedError();
        case 'in-flight':
          res.setHeader('Retry-After', '1');
          throw new IdempotencyKeyInFlightError(1);
        case 'replay': {
          res.setHeader(REPLAYED_HEADER, 'true');
          if (claim.answer.contentType) res.setHeader('Content-Type', claim.answer.contentType);
          res.status(claim.answer.status).end(claim.answer.body === '' ? undefined : claim.answer.body);
          return;
        }
        case 'orphaned':
          this.storeAnswerOf(res, scope);
          markHandlerBegan(res);
          throw new IdempotencyOutcomeUnknownError();
        case 'run':
          this.storeAnswerOf(res, scope);
          next();
      }
    };
  }

  /** Deletes expired keys; answers how many. */
  prune(): Promise<number> {
    return this.repo.deleteExpired(this.deps.clock.now());
  }

  /** Prunes now and hourly. */
  start(): void {
    if (this.timer) return;
    const prune = () => {
      this.prune().then(
        (n) => n > 0 && this.deps.log.info({ deleted: n }, 'pruned expired idempotency keys'),
        (err: unknown) => this.deps.log.error({ err }, 'pruning idempotency keys failed'),
      );
    };
    prune();
    this.timer = setInterval(prune, HOUR_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async retentionMs(): Promise<number> {
    return (await this.deps.retentionHours()) * HOUR_MS;
  }

  /**
   * Collects the answer as it is written and, when it ends, stores it (or frees the key) before
   * the last bytes go out. Idempotent routes answer JSON or text in one piece (res.json/send/end).
   */
  private storeAnswerOf(res: Response, scope: KeyScope): void {
    const chunks: Buffer[] = [];
    const collect = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : chunk instanceof Uint8Array
            ? Buffer.from(chunk)
            : Buffer.from(
                String(chunk),
                typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
              ),
      );
    };
    const write = res.write;
    const end = res.end;
    res.write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
      collect(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as Response['write'];
    res.end = function (this: Response, ...args: unknown[]) {
      res.write = write;
      res.end = end;
      collect(args[0], args[1]);
      void settle(Buffer.concat(chunks)).finally(() =>
        (end as (...a: unknown[]) => Response).apply(res, args),
      );
      return res;
    } as Response['end'];
    const settle = async (body: Buffer) => {
      try {
        if (res.locals[BEGAN] !== true || res.statusCode === 507) {
          await this.repo.release(scope, this.owner);
          return;
        }
        const contentType = res.getHeader('content-type');
        await this.repo.finish(
          scope,
          this.owner,
          {
            status: res.statusCode,
            contentType: typeof contentType === 'string' ? contentType : null,
            body: body.toString('utf8'),
          },
          this.deps.clock.now() + (await this.retentionMs()),
        );
      } catch (err) {
        // The key stays in flight: never run again by this process; after a restart, outcome unknown.
        this.deps.log.error({ err, route: scope.route, key: scope.key }, 'idempotency answer not stored');
      }
    };
  }
}
