import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTaskWorld, type TaskWorld } from './fixture.js';

/**
 * The summary of every yard is a fixed set of grouped statements, not a few per yard, and the p90s
 * it ranks are the nearest-rank p90s of the samples: at the cloud, on each database (docs/architecture.md "Two databases, and several cloud nodes").
 */
describe.each(TEST_DIALECTS)('task summaries of many yards (%s)', (dialect) => {
  let w: TaskWorld;
  const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));
  const yards: string[] = [];
  /** Per yard, the durations (ms) of its tasks completed in the last 24 h. */
  const durations = new Map<string, number[]>();

  function p90Sec(samples: number[]): number {
    const sorted = [...samples].sort((a, b) => a - b);
    return Math.round(sorted[Math.ceil(0.9 * sorted.length) - 1]! / 100) / 10;
  }

  beforeAll(async () => {
    w = await startTaskWorld(clock, {}, { role: 'cloud', dialect });
    yards.push(w.yardId, w.otherYardId);
    for (const code of ['AUS', 'ELP', 'SAT']) yards.push(await seedRows(w.t).yard(code));
    // A different number of tasks per yard (1, 4, 7, 10, 13) with uneven durations.
    for (const [y, yardId] of yards.entries()) {
      const mine: number[] = [];
      for (let i = 0; i < 1 + 3 * y; i++) {
        const started = clock.now() - 3_600_000 * (i + 1);
        const duration = ((i * 7919 + y * 104_729) % 50) * 60_000 + 30_000;
        await query(
          w.t.db,
          `INSERT INTO yard_task (id, yard_id, type, status, created_at, updated_at, started_at, completed_at, hlc)
         VALUES (?, ?, 'move', 'COMPLETED', ?, ?, ?, ?, 'seed')`,
          newId(),
          yardId,
          started - 120_000,
          started,
          started,
          started + duration,
        );
        if (started + duration >= clock.now() - 86_400_000) mine.push(duration);
      }
      durations.set(yardId, mine);
    }
  });
  afterAll(() => w.t.close());

  describe('task summaries of many yards', () => {
    it('p90 and mean of each yard as the nearest-rank figures of its samples', async () => {
      const res = await w.admin.get('/api/yard-task/summary');
      expect(res.status).toBe(200);
      for (const yardId of yards) {
        const samples = durations.get(yardId)!;
        const item = res.body.items.find((i: any) => i.yardId === yardId);
        expect(item.duration, yardId).toEqual({
          count: samples.length,
          meanSec: Math.round(samples.reduce((s, v) => s + v, 0) / samples.length / 100) / 10,
          p90Sec: p90Sec(samples),
        });
        expect(item.wait.count, yardId).toBe(samples.length); // each started 2 min after it was created
        expect(item.wait.p90Sec).toBe(120);
      }
    });

    it('runs the same number of task statements for five yards as for one', async () => {
      const statements = async (path: string) => {
        let n = 0;
        const stop = w.t.core.reads.onQuery((sql) => {
          if (sql.includes('"yard_task"')) n++;
        });
        expect((await w.admin.get(path)).status).toBe(200);
        stop();
        return n;
      };
      const one = await statements(`/api/yard-task/summary/${w.yardId}`);
      const five = await statements('/api/yard-task/summary');
      expect(one).toBeGreaterThan(0);
      expect(five).toBe(one);
    });
  });
});
