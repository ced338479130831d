import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { summaryFigures } from '../../../shared/modules/tasks/summary-repo.js';
import { seedRows } from '../../helpers/builders.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTaskWorld, type TaskWorld } from './fixture.js';

const DAY_MS = 86_400_000;

/**
 * The summary's wait and duration figures, read from the index alone and ranked in the service
 * (shared/modules/tasks/summary-repo.ts), are the figures the summary answered when SQL ranked them
 * with window functions: the same count, sum and nearest-rank p90 per yard, on the same rows, on
 * each database. The rows sit on both edges of the 24 h window, tie, start before they were created
 * (a site's clock), and some yards have one sample or none.
 */
describe.each(TEST_DIALECTS)('task summary figures (%s)', (dialect) => {
  let w: TaskWorld;
  const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));
  const since = clock.now() - DAY_MS;
  const yards: string[] = [];

  /** The statement the summary ranked samples with until it read them from the index. */
  const ranked = (samples: string) => `
    SELECT yard_id, count(*) AS n, sum(ms) AS total,
      max(CASE WHEN rn = (9 * cnt + 9) / 10 THEN ms END) AS p90
    FROM (SELECT yard_id, ms, row_number() OVER (PARTITION BY yard_id ORDER BY ms) AS rn,
            count(*) OVER (PARTITION BY yard_id) AS cnt
          FROM (${samples}) samples) ranked
    GROUP BY yard_id ORDER BY yard_id`;
  const oldWait = ranked(
    'SELECT yard_id, started_at - created_at AS ms FROM yard_task WHERE started_at >= ?',
  );
  const oldDuration = ranked(
    'SELECT yard_id, completed_at - started_at AS ms FROM yard_task WHERE completed_at >= ? AND started_at IS NOT NULL',
  );

  const numbers = (
    rows: Array<{ yardId?: string; yard_id?: string; n: unknown; total: unknown; p90: unknown }>,
  ) =>
    rows
      .map((r) => ({
        yardId: r.yardId ?? r.yard_id,
        n: Number(r.n),
        total: Number(r.total),
        p90: r.p90 === null ? null : Number(r.p90),
      }))
      .sort((a, b) => (a.yardId! < b.yardId! ? -1 : 1));

  async function task(yardId: string, t: { created: number; started?: number; completed?: number }) {
    await query(
      w.t.db,
      `INSERT INTO yard_task (id, yard_id, type, status, created_at, updated_at, started_at, completed_at, hlc)
       VALUES (?, ?, 'move', ?, ?, ?, ?, ?, 'seed')`,
      newId(),
      yardId,
      t.completed !== undefined ? 'COMPLETED' : t.started !== undefined ? 'IN_PROGRESS' : 'QUEUED',
      t.created,
      t.completed ?? t.started ?? t.created,
      t.started ?? null,
      t.completed ?? null,
    );
  }

  beforeAll(async () => {
    w = await startTaskWorld(clock, {}, { role: 'cloud', dialect });
    yards.push(w.yardId, w.otherYardId);
    for (const code of ['AUS', 'ELP', 'SAT', 'LRD']) yards.push(await seedRows(w.t).yard(code));
    // A fixed pseudo-random spread, the same on every run.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed % n;
    };
    // Yards 0-3: 1, 9, 23 and 40 tasks over the last 30 hours; yard 4 none; yard 5 only old ones.
    for (const [y, count] of [1, 9, 23, 40].entries()) {
      for (let i = 0; i < count; i++) {
        const started = clock.now() - next(30 * 3_600_000);
        const wait = next(5) === 0 ? 90_000 : next(40 * 60_000); // ties at 90 s
        const duration = next(4) === 0 ? 120_000 : next(3_600_000);
        await task(yards[y]!, {
          created: started - wait,
          started,
          ...(next(5) > 0 ? { completed: started + duration } : {}),
        });
      }
    }
    await task(yards[5]!, {
      created: since - 3 * DAY_MS,
      started: since - 2 * DAY_MS,
      completed: since - DAY_MS,
    });
    // The window's edges: started or completed at `since` exactly counts, a millisecond before does not.
    await task(yards[1]!, { created: since - 5_000, started: since, completed: since + 60_000 });
    await task(yards[1]!, { created: since - 7_000, started: since - 1, completed: since - 1 + 61_000 });
    await task(yards[2]!, { created: since - 9_000, started: since - 4_000, completed: since });
    await task(yards[2]!, { created: since - 9_000, started: since - 4_000, completed: since - 1 });
    // Started before it was created (a site's clock behind the cloud's): a negative wait.
    await task(yards[3]!, { created: clock.now() - 1_000, started: clock.now() - 31_000 });
    // Completed without a start (seeded so): no duration.
    await task(yards[3]!, { created: clock.now() - 10_000, completed: clock.now() - 5_000 });
    // Queued, not started: no sample at all.
    await task(yards[0]!, { created: clock.now() - 10_000 });
  });
  afterAll(() => w.t.close());

  it('counts, sums and ranks each yard’s wait and duration as the window-function statements did', async () => {
    const figures = await summaryFigures(
      w.t.db.kysely,
      yards.map((id) => ({ id, dayStart: clock.now() - 15 * 3_600_000 })),
      since,
    );
    const wait = numbers(await query(w.t.db, oldWait, since));
    const duration = numbers(await query(w.t.db, oldDuration, since));
    // The rows cover what they should: four yards with samples, the edges counted once.
    // The rows cover what they should: four yards with samples (one with a single one), the
    // edges of the window counted once.
    const sizes = (rows: Array<{ n: number }>) => rows.map((r) => r.n).sort((a, b) => a - b);
    expect(sizes(wait)).toEqual([1, 9, 19, 32]);
    expect(sizes(duration)).toEqual([1, 10, 18, 26]);
    expect(numbers(figures.wait)).toEqual(wait);
    expect(numbers(figures.duration)).toEqual(duration);
  });

  it('answers the same figures over HTTP, in seconds, for every yard (none for a yard without samples)', async () => {
    const res = await w.admin.get('/api/yard-task/summary');
    expect(res.status).toBe(200);
    const wait = new Map(numbers(await query(w.t.db, oldWait, since)).map((r) => [r.yardId, r]));
    const duration = new Map(numbers(await query(w.t.db, oldDuration, since)).map((r) => [r.yardId, r]));
    const sec = (ms: number) => Math.round(ms / 100) / 10;
    const stat = (r: { n: number; total: number; p90: number | null } | undefined) =>
      r
        ? { count: r.n, meanSec: sec(r.total / r.n), p90Sec: sec(r.p90!) }
        : { count: 0, meanSec: null, p90Sec: null };
    for (const yardId of yards) {
      const item = res.body.items.find((i: { yardId: string }) => i.yardId === yardId);
      expect(item.wait, yardId).toEqual(stat(wait.get(yardId)));
      expect(item.duration, yardId).toEqual(stat(duration.get(yardId)));
    }
    expect(res.body.items.find((i: { yardId: string }) => i.yardId === yards[4]).wait.count).toBe(0);
  });

  it('ten dashboards asking at once get the same answer, and a task completed since is in the next one', async () => {
    const one = await w.admin.get('/api/yard-task/summary');
    const ten = await Promise.all(Array.from({ length: 10 }, () => w.admin.get('/api/yard-task/summary')));
    expect(ten.map((a) => a.status)).toEqual(Array(10).fill(200));
    for (const a of ten) expect(a.body).toEqual(one.body);
    // No answer is kept past its build: the write is in the next one.
    await task(yards[4]!, {
      created: clock.now() - 60_000,
      started: clock.now() - 50_000,
      completed: clock.now(),
    });
    const after = await w.admin.get('/api/yard-task/summary');
    expect(after.body.items.find((i: { yardId: string }) => i.yardId === yards[4]).duration.count).toBe(1);
  });

  it('reads the samples from an index range per yard, with no sort and no table row', async () => {
    const statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const stop = w.t.db.onQuery((sql, parameters) => {
      if (sql.includes(' - ')) statements.push({ sql, parameters });
    });
    await summaryFigures(
      w.t.db.kysely,
      yards.map((id) => ({ id, dayStart: clock.now() })),
      since,
    );
    stop();
    expect(statements).toHaveLength(2); // wait, duration
    for (const s of statements) {
      const plan = await explain(s.sql, s.parameters);
      if (dialect === 'sqlite') {
        expect(plan).toMatch(/COVERING INDEX yard_task_(started|completed)/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
      } else {
        // A handful of unanalysed rows: PostgreSQL's choice of index is its guess (seqscan off, so
        // that it takes one); whichever it takes, the yards' samples are grouped without a sort.
        expect(plan).not.toMatch(/Sort|WindowAgg/);
      }
    }
  });

  async function explain(text: string, parameters: readonly unknown[]): Promise<string> {
    if (w.t.db.dialect === 'sqlite') {
      const rows = w.t.db.sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...parameters) as Array<{
        detail: string;
      }>;
      return rows.map((r) => r.detail).join('\n');
    }
    const client = await w.t.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_bitmapscan = off');
      const rows = (await client.query(`EXPLAIN ${text}`, [...parameters])).rows as Array<
        Record<string, string>
      >;
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }
});
