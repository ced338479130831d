import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { openDatabase, type SqliteDatabase } from '../../../shared/db/database.js';
import { errorHandler } from '../../../shared/http/error-handler.js';
import { IdempotencyKeys } from '../../../shared/http/idempotency.js';
import { IdempotencyRepo, type KeyScope } from '../../../shared/http/idempotency-repo.js';
import { RouteRegistrar } from '../../../shared/http/routes.js';
import { z } from '../../../shared/http/zod.js';
import { silentLogger } from '../../../shared/log.js';
import { Client, rows } from '../../helpers/http.js';

/**
 * The bound on the keys one caller keeps (idempotency-repo.ts, callerIsFull): a new key past it is
 * refused, never an old one evicted, and the rows of a caller never outnumber it. On a real
 * SQLite file.
 */
let db: SqliteDatabase;
let dir: string;
let repo: IdempotencyRepo;
const HOUR = 60 * 60 * 1000;
const T0 = Date.parse('2026-04-01T06:00:00Z');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'idempotency-bound-'));
  db = openDatabase(join(dir, 'yard.db'));
  repo = new IdempotencyRepo(db.kysely);
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const scope = (principal: string, key: string): KeyScope => ({ principal, method: 'POST', route: '/x', key });
const claim = (principal: string, key: string, now: number, maxKeys: number, expiresAt = now + 48 * HOUR) =>
  repo.claim(scope(principal, key), {
    fingerprint: 'f',
    owner: 'me',
    now,
    expiresAt,
    leaseMs: 60_000,
    maxKeys,
  });
const held = (principal: string) =>
  rows(db, 'SELECT count(*) AS n FROM idempotency_key WHERE principal = ?', principal)[0].n as number;

describe('IdempotencyRepo: keys per caller', () => {
  it('takes keys up to the bound, then refuses a new one until the oldest expires', async () => {
    expect(await claim('p1', 'a', T0, 3, T0 + 10 * HOUR)).toEqual({ kind: 'run' });
    expect(await claim('p1', 'b', T0 + 1, 3, T0 + 20 * HOUR)).toEqual({ kind: 'run' });
    expect(await claim('p1', 'c', T0 + 2, 3, T0 + 30 * HOUR)).toEqual({ kind: 'run' });
    expect(await claim('p1', 'd', T0 + HOUR, 3)).toEqual({ kind: 'full', retryAfterMs: 9 * HOUR });
    expect(held('p1')).toBe(3);
    // Its own keys are still answered, and another caller is not affected.
    expect(await claim('p1', 'a', T0 + HOUR, 3)).toEqual({ kind: 'in-flight' });
    expect(await claim('p2', 'a', T0 + HOUR, 3)).toEqual({ kind: 'run' });
    // The oldest expired: its row goes, the new key takes its place.
    expect(await claim('p1', 'd', T0 + 10 * HOUR, 3)).toEqual({ kind: 'run' });
    expect(held('p1')).toBe(3);
    expect(
      rows(db, "SELECT key FROM idempotency_key WHERE principal = 'p1' ORDER BY key").map((r) => r.key),
    ).toEqual(['b', 'c', 'd']);
  });

  it('one below the bound there is room; expired rows are only cleared at the bound, and only the caller’s own', async () => {
    await claim('q1', 'a', T0, 3, T0 + HOUR);
    await claim('q1', 'b', T0, 3, T0 + HOUR);
    await claim('q2', 'a', T0, 3, T0 + HOUR);
    // Both of q1's keys expired, but there is room: nothing is deleted.
    expect(await claim('q1', 'c', T0 + 2 * HOUR, 3)).toEqual({ kind: 'run' });
    expect(held('q1')).toBe(3);
    // At the bound, q1's expired keys go; q2's stay for the hourly prune.
    expect(await claim('q1', 'd', T0 + 2 * HOUR, 3)).toEqual({ kind: 'run' });
    expect(held('q1')).toBe(2);
    expect(held('q2')).toBe(1);
  });

  it('an expired key sent again at the bound runs again in its own row', async () => {
    await claim('r1', 'a', T0, 2, T0 + HOUR);
    await claim('r1', 'b', T0, 2, T0 + 5 * HOUR);
    expect(await claim('r1', 'a', T0 + HOUR, 2)).toEqual({ kind: 'run' });
    expect(held('r1')).toBe(2);
  });

  it('a key expiring right now counts as expired', async () => {
    await claim('s1', 'a', T0, 1, T0 + HOUR);
    expect(await claim('s1', 'b', T0 + HOUR - 1, 1)).toEqual({ kind: 'full', retryAfterMs: 1 });
    expect(await claim('s1', 'b', T0 + HOUR, 1)).toEqual({ kind: 'run' });
  });

  it('prunes expired keys and says how many', async () => {
    await claim('t1', 'a', T0, 10, T0 + HOUR);
    await claim('t1', 'b', T0, 10, T0 + 2 * HOUR);
    const before = rows(db, 'SELECT count(*) AS n FROM idempotency_key WHERE expires_at <= ?', T0 + HOUR)[0]
      .n;
    expect(await repo.deleteExpired(T0 + HOUR)).toBe(before);
    expect(held('t1')).toBe(1);
  });
});

describe('IdempotencyKeys: the caller at its bound', () => {
  let server: Server;
  let client: Client;
  let runs = 0;
  const clock = new ManualClock(T0);

  beforeAll(async () => {
    const store = new IdempotencyKeys({
      kysely: db.kysely,
      clock,
      log: silentLogger(),
      retentionHours: async () => 48,
      maxKeysPerCaller: async () => 2,
    });
    const app = express();
    app.use((_req, res, next) => {
      res.locals.principal = { kind: 'driver', id: 'bound-1', name: 'Jo', role: 'driver', yardIds: null };
      next();
    });
    const router = express.Router();
    const r = new RouteRegistrar(router, new OpenAPIRegistry(), {
      validateResponses: true,
      jsonLimit: '10kb',
      idempotency: store,
    });
    r.add({
      method: 'post',
      path: '/act',
      tag: 'T',
      summary: 's',
      access: ['driver'],
      idempotent: true,
      body: z.object({ n: z.number() }),
      response: { schema: z.object({ run: z.number() }) },
      handler: () => ({ run: ++runs }),
    });
    app.use(router);
    app.use(errorHandler(silentLogger()));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    client = new Client(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('a new key past the bound is 429 too-many-idempotency-keys with Retry-After in whole seconds; nothing runs or is stored', async () => {
    const send = (key: string) => client.post('/act', { n: 1 }, { 'Idempotency-Key': key });
    expect((await send('k1')).status).toBe(200);
    clock.advance(1500);
    expect((await send('k2')).status).toBe(200);
    clock.advance(1000);
    const refused = await send('k3');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too-many-idempotency-keys');
    // k1 expires 48 h after it was taken: 48 h - 2.5 s from now, rounded up.
    expect(refused.headers.get('retry-after')).toBe(String(48 * 60 * 60 - 2));
    expect(runs).toBe(2);
    expect(held('driver:bound-1')).toBe(2);
    // Without a key the request runs as usual.
    expect((await client.post('/act', { n: 1 })).status).toBe(200);
    // The first answer is kept: its repeat is replayed.
    const replay = await send('k1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual({ run: 1 });
  });
});
