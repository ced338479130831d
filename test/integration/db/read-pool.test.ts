import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { ReadPool } from '../../../shared/db/read-pool.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The dashboard figures and task summaries run in worker threads with their own read-only
 * connections (shared/db/read-pool.ts): the same answers as on the main thread, a failed read is a
 * problem+json 500 after which the pool goes on, and stop() ends the workers.
 */

let t: TestApp;
let admin: Client;
const yards: string[] = [];
const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));

/** The routes the dashboard's pages poll, and the task summaries. */
const ROUTES = [
  '/api/dashboard/movement?bucket=day&from=2026-03-01T00:00:00Z&to=2026-03-11T00:00:00Z',
  '/api/dashboard/yard/trailer',
  '/api/dashboard/yard/truck',
  '/api/dashboard/yard/error4xx',
  '/api/yard-task/summary',
];

beforeAll(async () => {
  t = await startTestApp({ clock, readWorkers: 2 });
  admin = new Client(t.url, t.adminToken);
  const carrier = await seedRows(t).carrier('Acme');
  for (const code of ['AUS', 'KOL']) {
    yards.push(await seedRows(t).yard(code, code === 'KOL' ? { timeZone: 'Asia/Kolkata' } : {}));
  }
  for (const [i, yardId] of yards.entries()) {
    for (let n = 0; n <= i + 1; n++) {
      const res = await admin.post('/api/movement', {
        yardId,
        direction: 'in',
        at: new Date(clock.now() - (n + 1) * 3_600_000).toISOString(),
        truck: { plate: `P${i}${n}` },
        trailer: { number: `T${i}${n}`, carrierId: carrier },
        loadStatus: n % 2 ? 'loaded' : 'empty',
      });
      expect(res.status, res.text).toBe(201);
    }
  }
  const task = t.db.sqlite.prepare(
    `INSERT INTO yard_task (id, yard_id, type, status, created_at, updated_at, started_at, completed_at, hlc)
     VALUES (?, ?, 'move', 'COMPLETED', ?, ?, ?, ?, 'seed')`,
  );
  for (const [i, yardId] of yards.entries()) {
    for (let n = 0; n < 3 + i; n++) {
      const started = clock.now() - 3_600_000 * (n + 1);
      task.run(newId(), yardId, started - 60_000 * (n + 1), started, started, started + 90_000 * (n + 1));
    }
  }
  expect((await admin.get('/api/nowhere')).status).toBe(404); // one 4xx for the error figures
});
afterAll(() => t.close());

async function answers(): Promise<unknown[]> {
  const out = [];
  for (const path of ROUTES) {
    const res = await admin.get(path);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    out.push(res.body);
  }
  return out;
}

describe('the read pool', () => {
  it('answers the figures from its workers as the main thread does', async () => {
    expect(t.core.reads.workers).toBe(2);
    const inWorkers = await answers();
    // Figures that are not empty, so that equal answers say something.
    const trailers = inWorkers[1] as { items: Array<{ trailersInYard: number }> };
    expect(trailers.items.map((i) => i.trailersInYard)).toEqual([2, 3]);
    const summary = inWorkers[4] as { items: Array<{ duration: { count: number } }> };
    expect(summary.items.map((i) => i.duration.count)).toEqual([3, 4]);

    const onMainThread = new ReadPool({ db: t.db, size: 0 });
    const sql = t.core.reads.kysely
      .selectFrom('dashboardYardFigure')
      .selectAll()
      .orderBy('yardId')
      .orderBy('figure')
      .orderBy('item')
      .compile();
    expect(await t.core.reads.all(sql)).toEqual(await onMainThread.all(sql));
    expect((await t.core.reads.all(sql)).length).toBeGreaterThan(4);

    // The same app with its reads on the main thread (what a stopped pool does): the same answers.
    const pool = t.core.reads;
    await pool.stop();
    try {
      expect(pool.workers).toBe(0);
      expect(await answers()).toEqual(inWorkers);
    } finally {
      await pool.start();
    }
    expect(pool.workers).toBe(2);
  });

  it('reads on its own connection: committed rows only, never the caller’s open transaction', async () => {
    t.db.sqlite.exec('CREATE TABLE read_probe (x INTEGER)');
    const count = { sql: 'SELECT count(*) AS n FROM read_probe', parameters: [] };
    t.db.sqlite.exec('BEGIN');
    try {
      t.db.sqlite.exec('INSERT INTO read_probe VALUES (1)');
      expect(await t.core.reads.all(count)).toEqual([{ n: 0 }]);
      expect(await new ReadPool({ db: t.db, size: 0 }).all(count)).toEqual([{ n: 1 }]); // the main thread's own
    } finally {
      t.db.sqlite.exec('ROLLBACK');
    }
  });

  it('refuses writes and transactions', async () => {
    await expect(t.core.reads.all({ sql: 'DELETE FROM yard', parameters: [] })).rejects.toThrow(/reads only/);
    await expect(t.core.reads.all({ sql: 'PRAGMA user_version = 7', parameters: [] })).rejects.toThrow();
    await expect(t.core.reads.kysely.transaction().execute(async () => {})).rejects.toThrow(
      /no transactions/,
    );
    expect(Number((await t.core.reads.kysely.selectFrom('yard').selectAll().execute()).length)).toBe(2);
  });

  it('a read that fails is a problem+json 500, and the pool answers the next one', async () => {
    t.db.sqlite.exec('ALTER TABLE dashboard_yard_figure RENAME TO dashboard_yard_figure_away');
    // Behind the observers' back: the figures shared a moment ago must not be answered again.
    t.services.figureAnswers.changed();
    try {
      const res = await admin.get('/api/dashboard/yard/trailer');
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('internal-error');
      await expect(t.core.reads.all({ sql: 'SELECT * FROM nowhere', parameters: [] })).rejects.toThrow(
        /no such table: nowhere/,
      );
    } finally {
      t.db.sqlite.exec('ALTER TABLE dashboard_yard_figure_away RENAME TO dashboard_yard_figure');
    }
    expect((await admin.get('/api/dashboard/yard/trailer')).status).toBe(200);
    expect(t.core.reads.workers).toBe(2);
  });
});

describe('a worker that dies', () => {
  it('fails its read, is replaced, and stop() ends the workers even with a read in flight', async () => {
    // A worker whose heap is this small dies of a read of a few hundred thousand long rows.
    const pool = new ReadPool({ db: t.db, size: 1, maxHeapMb: 16 });
    await pool.start();
    try {
      const huge = {
        sql: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400000) SELECT i, hex(randomblob(64)) AS h FROM n',
        parameters: [],
      };
      await expect(pool.all(huge)).rejects.toThrow(/memory/i);
      const one = await pool.all<{ n: number }>({ sql: 'SELECT 1 AS n', parameters: [] });
      expect(one).toEqual([{ n: 1 }]);
      expect(pool.workers).toBe(1);

      const slow = pool.all({
        sql: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000000) SELECT count(*) FROM n',
        parameters: [],
      });
      const settled = slow.then(
        () => 'answered',
        () => 'failed',
      );
      await pool.stop();
      expect(pool.workers).toBe(0);
      expect(await settled).toBe('failed');
      // After stop a read runs on the main thread.
      expect(await pool.all({ sql: 'SELECT 2 AS n', parameters: [] })).toEqual([{ n: 2 }]);
    } finally {
      await pool.stop();
    }
  });
});
