import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { openDatabase, type SqliteDatabase } from '../../../shared/db/database.js';
import { errorHandler } from '../../../shared/http/error-handler.js';
import { StorageFullError } from '../../../shared/http/errors.js';
import { IdempotencyKeys } from '../../../shared/http/idempotency.js';
import { RouteRegistrar } from '../../../shared/http/routes.js';
import { z } from '../../../shared/http/zod.js';
import { silentLogger } from '../../../shared/log.js';
import { Client, rows } from '../../helpers/http.js';

/**
 * The Idempotency-Key mechanism on routes of its own, over real HTTP and a real SQLite file: what
 * the drivers' routes cannot show on demand (a request still running, a handler that fails).
 */
let db: SqliteDatabase;
let dir: string;
let server: Server;
let client: Client;
const clock = new ManualClock();
/** How often each route's handler ran. */
const runs = { slow: 0, fails: 0, full: 0, item: 0, empty: 0 };
/** Lets the slow handler finish. */
let release: () => void = () => {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idempotency-'));
  db = openDatabase(join(dir, 'yard.db'));
  ({ server, client } = await serve());
});
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  for (const k of Object.keys(runs)) runs[k as keyof typeof runs] = 0;
});

const servers: Server[] = [];

/**
 * The test routes on a loopback port, with an Idempotency-Key store of their own: a second call
 * stands for the next process run on the same database (another owner of rows in flight).
 */
async function serve(): Promise<{ server: Server; client: Client }> {
  const store = new IdempotencyKeys({
    kysely: db.kysely,
    clock,
    log: silentLogger(),
    retentionHours: async () => 48,
  });
  const app = express();
  // The caller, as authentication would set it.
  app.use((req, res, next) => {
    res.locals.principal = {
      kind: 'driver',
      id: req.get('x-driver') ?? 'd1',
      name: 'Jo',
      role: 'driver',
      yardIds: null,
    };
    next();
  });
  const router = express.Router();
  const r = new RouteRegistrar(router, new OpenAPIRegistry(), {
    validateResponses: true,
    jsonLimit: '100kb',
    idempotency: store,
  });
  const common = {
    method: 'post',
    tag: 'Test',
    summary: 'test',
    access: ['driver'],
    idempotent: true,
  } as const;
  const Body = z.object({ n: z.number() });
  r.add({
    ...common,
    path: '/slow',
    body: Body,
    response: { schema: z.object({ run: z.number() }) },
    handler: async () => {
      const run = ++runs.slow;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { run };
    },
  });
  r.add({
    ...common,
    path: '/fails',
    body: Body,
    handler: () => {
      runs.fails++;
      throw new Error('a bug after part of the work');
    },
  });
  r.add({
    ...common,
    path: '/full',
    body: Body,
    handler: () => {
      runs.full++;
      throw new StorageFullError();
    },
  });
  r.add({
    ...common,
    path: '/item/{id}',
    params: z.object({ id: z.string() }),
    body: Body,
    response: { schema: z.object({ id: z.string(), run: z.number() }) },
    handler: ({ params }) => ({ id: params.id, run: ++runs.item }),
  });
  r.add({
    ...common,
    path: '/empty',
    body: Body,
    handler: () => {
      runs.empty++;
      return undefined;
    },
  });
  app.use(router);
  app.use(errorHandler(silentLogger()));
  const listening = app.listen(0, '127.0.0.1');
  servers.push(listening);
  await once(listening, 'listening');
  return {
    server: listening,
    client: new Client(`http://127.0.0.1:${(listening.address() as { port: number }).port}`),
  };
}

const keyed = (key: string) => ({ 'Idempotency-Key': key });
const stateOf = (key: string) => rows(db, 'SELECT state, status FROM idempotency_key WHERE key = ?', key)[0];

describe('Idempotency-Key', () => {
  it('a repeat while the first still runs is 409 idempotency-key-in-flight with Retry-After; then it gets the answer', async () => {
    const first = client.post('/slow', { n: 1 }, keyed('slow-1'));
    await waitFor(() => runs.slow === 1);
    const busy = await client.post('/slow', { n: 1 }, keyed('slow-1'));
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('idempotency-key-in-flight');
    expect(busy.headers.get('retry-after')).toBe('1');
    // Another body with the key in flight is still a reuse.
    expect((await client.post('/slow', { n: 2 }, keyed('slow-1'))).status).toBe(422);
    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ run: 1 });
    const replay = await client.post('/slow', { n: 1 }, keyed('slow-1'));
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(done.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(runs.slow).toBe(1);
  });

  it('the answer is stored before it is sent', async () => {
    const res = await client.post('/item/a', { n: 1 }, keyed('stored-first'));
    expect(res.status).toBe(200);
    // Read at once, with no wait: the row was written before the client had its answer.
    expect(stateOf('stored-first')).toEqual({ state: 'done', status: 200 });
  });

  it('an unexpected failure in the handler is kept (it may have applied part of its work): no second run', async () => {
    const first = await client.post('/fails', { n: 1 }, keyed('fails-1'));
    expect(first.status).toBe(500);
    const replay = await client.post('/fails', { n: 1 }, keyed('fails-1'));
    expect(replay.status).toBe(500);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(runs.fails).toBe(1);
  });

  it('507 storage-full is not kept (the write was refused): the retry runs', async () => {
    expect((await client.post('/full', { n: 1 }, keyed('full-1'))).status).toBe(507);
    expect(stateOf('full-1')).toBeUndefined();
    expect(
      (await client.post('/full', { n: 1 }, keyed('full-1'))).headers.get('idempotent-replayed'),
    ).toBeNull();
    expect(runs.full).toBe(2);
  });

  it('path parameters are part of the request: the key on another item is a reuse', async () => {
    expect((await client.post('/item/a', { n: 1 }, keyed('item-1'))).status).toBe(200);
    const other = await client.post('/item/b', { n: 1 }, keyed('item-1'));
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency-key-reused');
    expect(runs.item).toBe(1);
  });

  it('object keys in another order are the same body', async () => {
    expect((await client.post('/item/c', { n: 1 }, keyed('order-1'))).status).toBe(200);
    const again = await client.request('POST', '/item/c', '{ "n" : 1 }', {
      'content-type': 'application/json',
      ...keyed('order-1'),
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(runs.item).toBe(1);
  });

  it('a 204 answer is replayed as 204 without a body', async () => {
    expect((await client.post('/empty', { n: 1 }, keyed('empty-1'))).status).toBe(204);
    const replay = await client.post('/empty', { n: 1 }, keyed('empty-1'));
    expect(replay.status).toBe(204);
    expect(replay.text).toBe('');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(runs.empty).toBe(1);
  });

  it('each driver has keys of its own', async () => {
    await client.post('/item/d', { n: 1 }, { ...keyed('shared-key'), 'x-driver': 'd1' });
    const other = await client.post('/item/d', { n: 1 }, { ...keyed('shared-key'), 'x-driver': 'd2' });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(runs.item).toBe(2);
  });

  it('a key a stopped run left in flight is never run by the next run: in flight for a minute, then outcome unknown', async () => {
    // This run takes the key and its handler never ends, as if the process stopped there.
    const stopped = client.post('/slow', { n: 7 }, keyed('left-in-flight'));
    await waitFor(() => runs.slow === 1);
    const endStopped = release;
    const next = (await serve()).client;
    const busy = await next.post('/slow', { n: 7 }, keyed('left-in-flight'));
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('idempotency-key-in-flight');
    clock.advance(60_000);
    const unknown = await next.post('/slow', { n: 7 }, keyed('left-in-flight'));
    expect(unknown.status).toBe(409);
    expect(unknown.body.code).toBe('idempotency-outcome-unknown');
    expect(stateOf('left-in-flight')).toEqual({ state: 'done', status: 409 });
    const again = await next.post('/slow', { n: 7 }, keyed('left-in-flight'));
    expect(again.text).toBe(unknown.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(runs.slow).toBe(1);
    // Within its own run a key in flight stays in flight, however long it runs.
    const longRunner = client.post('/slow', { n: 8 }, keyed('long-runner'));
    await waitFor(() => runs.slow === 2);
    clock.advance(10 * 60_000);
    expect((await client.post('/slow', { n: 8 }, keyed('long-runner'))).body.code).toBe(
      'idempotency-key-in-flight',
    );
    release();
    expect((await longRunner).status).toBe(200);
    // Should the first run's handler end after all, its answer does not replace the final one.
    endStopped();
    expect((await stopped).status).toBe(200);
    expect(stateOf('left-in-flight')).toEqual({ state: 'done', status: 409 });
    expect((await next.post('/slow', { n: 7 }, keyed('left-in-flight'))).text).toBe(unknown.text);
  });

  it('the header twice is 400 invalid-idempotency-key', async () => {
    const { port } = server.address() as { port: number };
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/item/e',
        headers: [
          'host',
          `127.0.0.1:${port}`,
          'content-type',
          'application/json',
          'Idempotency-Key',
          'one',
          'Idempotency-Key',
          'two',
        ],
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end('{"n":1}');
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).code).toBe('invalid-idempotency-key');
    expect(runs.item).toBe(0);
  });

  it('a route that asks for keys without a store is refused when registered', () => {
    const r = new RouteRegistrar(express.Router(), new OpenAPIRegistry(), {
      validateResponses: false,
      jsonLimit: '1kb',
    });
    expect(() =>
      r.add({
        method: 'post',
        path: '/x',
        tag: 'T',
        summary: 's',
        access: 'any',
        idempotent: true,
        handler: () => undefined,
      }),
    ).toThrow(/no Idempotency-Key store/);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
