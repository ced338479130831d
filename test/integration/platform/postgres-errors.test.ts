import express from 'express';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../../shared/http/error-handler.js';
import { silentLogger } from '../../../shared/log.js';
import { createTestDatabase, postgresAvailable } from '../../helpers/postgres.js';
import { freePort } from '../../helpers/sync-processes.js';

/**
 * What PostgreSQL refuses answers as SQLite's refusals do (409 duplicate / in-use /
 * constraint-violated), and what retrying fixes (a statement past its timeout, a database that
 * cannot be reached) answers 503 with Retry-After: real errors from a real server, through the one
 * error middleware.
 */
describe.skipIf(!postgresAvailable())('PostgreSQL errors as problems', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let unreachable: pg.Pool;
  let base: string;
  let server: import('node:http').Server;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    await pool.query(`
      CREATE TABLE parent (id text PRIMARY KEY, n bigint CHECK (n >= 0));
      CREATE TABLE child (id text PRIMARY KEY, parent_id text NOT NULL REFERENCES parent (id));
      INSERT INTO parent (id, n) VALUES ('p1', 1);`);
    // A port nothing listens on.
    unreachable = new pg.Pool({ host: '127.0.0.1', port: await freePort(), connectionTimeoutMillis: 2000 });
    const app = express();
    const run = (text: string, on: pg.Pool = pool) =>
      (async (_req, res) => {
        await on.query(text);
        res.json({ ok: true });
      }) satisfies express.RequestHandler;
    app.post('/duplicate', run("INSERT INTO parent (id, n) VALUES ('p1', 2)"));
    app.post('/orphan', run("INSERT INTO child (id, parent_id) VALUES ('c1', 'nobody')"));
    app.post('/negative', run("INSERT INTO parent (id, n) VALUES ('p2', -1)"));
    app.post('/slow', run('SET statement_timeout = 100; SELECT pg_sleep(1)'));
    app.post('/unreachable', run('SELECT 1', unreachable));
    app.use(errorHandler(silentLogger()));
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await unreachable?.end();
    await pool?.end();
    await database?.drop();
  });

  const post = async (path: string) => {
    const res = await fetch(`${base}${path}`, { method: 'POST' });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as any,
    };
  };

  it('a unique violation is 409 duplicate, naming the constraint', async () => {
    const res = await post('/duplicate');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'duplicate', status: 409 });
    expect(res.body.detail).toContain('parent_pkey');
  });

  it('a foreign key violation is 409 in-use; a CHECK is 409 constraint-violated', async () => {
    expect((await post('/orphan')).body).toMatchObject({ status: 409, code: 'in-use' });
    const check = await post('/negative');
    expect(check.body).toMatchObject({ status: 409, code: 'constraint-violated' });
    expect(check.body.detail).toContain('parent_n_check');
  });

  it('a statement cancelled by its timeout is 503 database-busy with Retry-After', async () => {
    const res = await post('/slow');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('database-busy');
    expect(res.retryAfter).toBe('1');
  });

  it('a database that cannot be reached is 503 database-unavailable with Retry-After', async () => {
    const res = await post('/unreachable');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('database-unavailable');
    expect(res.retryAfter).toBe('5');
  });
});
