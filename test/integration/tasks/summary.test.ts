import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { type Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { ADMIN } from '../../helpers/test-app.js';
import { openSession, startTaskWorld, type TaskWorld, yardDriver } from './fixture.js';

/** The task summaries at the cloud, on each database (docs/architecture.md "Two databases, and several cloud nodes"): one suite, SQLite and PostgreSQL. */
describe.each(TEST_DIALECTS)('task summaries (%s)', (dialect) => {
  let w: TaskWorld;
  let admin: Client;
  // 10:00 in Chicago (CDT, UTC-5): the yard's day began at 05:00Z.
  const clock = new ManualClock(Date.parse('2026-03-10T15:00:00Z'));
  const at = (hhmm: string, day = '2026-03-10') => Date.parse(`${day}T${hhmm}:00Z`);

  async function taskRow(fields: Record<string, unknown>) {
    await w.t.core.changes.insert(w.t.core.kysely, 'yardTask', {
      id: newId(),
      yardId: w.yardId,
      type: 'other',
      trailerId: null,
      fromLocationId: null,
      toLocationId: null,
      priority: 1,
      driverId: null,
      notes: null,
      dueAt: null,
      createdBy: null,
      updatedAt: clock.now(),
      assignedAt: null,
      startedAt: null,
      completedAt: null,
      cancelledAt: null,
      cancelReason: null,
      billedCarrierId: null,
      ...fields,
    } as never);
  }

  let busy: string;
  let assignee: string;

  beforeAll(async () => {
    w = await startTaskWorld(clock, {}, { role: 'cloud', dialect });
    admin = w.admin;
    const [a, b, c, d] = await Promise.all(
      ['Busy', 'Assigned', 'Free', 'Stale'].map((n) => yardDriver(w, n)),
    );
    busy = a!.id;
    assignee = b!.id;
    for (const driver of [a!, b!, c!]) await openSession(w, driver.id);
    clock.set(at('14:00'));
    await openSession(w, d!.id);
    clock.set(at('15:00'));
    const done = { status: 'COMPLETED' };
    await taskRow({ ...done, createdAt: at('13:00'), startedAt: at('13:01'), completedAt: at('13:11') });
    await taskRow({ ...done, createdAt: at('05:30'), startedAt: at('05:32'), completedAt: at('06:02') });
    // Yesterday in Chicago (23:30 CDT), but within the last 24 h.
    await taskRow({ ...done, createdAt: at('03:00'), startedAt: at('04:00'), completedAt: at('04:30') });
    await taskRow({
      ...done,
      createdAt: at('10:00', '2026-03-08'),
      startedAt: at('10:01', '2026-03-08'),
      completedAt: at('10:02', '2026-03-08'),
    });
    await taskRow({ status: 'IN_PROGRESS', driverId: busy, createdAt: at('14:50'), startedAt: at('14:55') });
    await taskRow({
      status: 'ASSIGNED',
      driverId: assignee,
      createdAt: at('14:00'),
      assignedAt: at('14:01'),
    });
    await taskRow({ status: 'QUEUED', createdAt: at('14:30') });
    await taskRow({ status: 'QUEUED', createdAt: at('14:40') });
    await taskRow({ status: 'CANCELLED', createdAt: at('14:00'), cancelledAt: at('14:10') });
  });
  afterAll(() => w.t.close());

  describe('task summaries', () => {
    it('one yard: open counts, completed today (yard-local), wait and duration, drivers', async () => {
      const res = await admin.get(`/api/yard-task/summary/${w.yardId}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        yardId: w.yardId,
        yardCode: 'DAL',
        timeZone: 'America/Chicago',
        at: '2026-03-10T15:00:00.000Z',
        counts: { QUEUED: 2, ASSIGNED: 1, IN_PROGRESS: 1 },
        completedToday: 2,
        // waits 60, 120, 3600, 300 s; durations 600, 1800, 1800 s
        wait: { count: 4, meanSec: 1020, p90Sec: 3600 },
        duration: { count: 3, meanSec: 1400, p90Sec: 1800 },
        drivers: { available: 1, busy: 2, offline: 1 },
      });
    });

    it('all yards in scope; a scoped user gets only its yards and 403 for another', async () => {
      const all = await admin.get('/api/yard-task/summary');
      expect(all.status).toBe(200);
      const byCode = Object.fromEntries(all.body.items.map((s: any) => [s.yardCode, s]));
      expect(Object.keys(byCode).sort()).toEqual(['DAL', 'HOU']);
      expect(byCode.DAL.completedToday).toBe(2);
      expect(byCode.DAL.drivers).toEqual({ available: 1, busy: 2, offline: 1 });
      expect(byCode.HOU).toMatchObject({
        counts: { QUEUED: 0, ASSIGNED: 0, IN_PROGRESS: 0 },
        completedToday: 0,
        wait: { count: 0, meanSec: null, p90Sec: null },
        drivers: { available: 0, busy: 0, offline: 0 },
      });
      const scoped = await clientWithRole(admin, 'billing', { yardIds: [w.otherYardId] });
      expect((await scoped.get('/api/yard-task/summary')).body.items.map((s: any) => s.yardCode)).toEqual([
        'HOU',
      ]);
      expect((await scoped.get(`/api/yard-task/summary/${w.yardId}`)).status).toBe(403);
      expect((await admin.get('/api/yard-task/summary/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f')).status).toBe(
        404,
      );
    });

    it('counts the yard-local day across midnight: after local midnight completedToday restarts', async () => {
      clock.set(Date.parse('2026-03-11T05:30:00Z')); // 00:30 CDT on the 11th
      try {
        const login = await admin.as(undefined).post('/api/auth/login', ADMIN);
        const res = await admin.as(login.body.token).get(`/api/yard-task/summary/${w.yardId}`);
        expect(res.status, res.text).toBe(200);
        expect(res.body.completedToday).toBe(0);
        expect(res.body.duration.count).toBe(2); // 13:11 and 06:02 yesterday are within 24 h
        expect(res.body.drivers).toEqual({ available: 0, busy: 0, offline: 4 });
      } finally {
        clock.set(at('15:00'));
      }
    });

    it('reads only through indexes (never a scan of the task history)', async () => {
      const seen: Array<{ sql: string; params: readonly unknown[] }> = [];
      const stop = w.t.core.reads.onQuery((sql, params) => {
        if (sql.includes('"yard_task"')) seen.push({ sql, params });
      });
      await admin.get(`/api/yard-task/summary/${w.yardId}`);
      await admin.get('/api/yard-task/summary');
      stop();
      expect(seen.length).toBeGreaterThanOrEqual(5);
      // The plans are SQLite's; PostgreSQL chooses its own from its statistics.
      if (w.t.db.dialect !== 'sqlite') return;
      for (const q of seen) {
        const plan = (await query(w.t.db, `EXPLAIN QUERY PLAN ${q.sql}`, ...q.params)) as Array<{
          detail: string;
        }>;
        const details = plan.map((p) => p.detail).join(' | ');
        expect(details, q.sql).not.toMatch(/SCAN yard_task(?! USING)/);
        expect(details, q.sql).toMatch(/yard_task USING (COVERING )?INDEX/);
      }
    });

    // How fast it stays is measured by test/bench/tasking.ts (the summary over 1,000,000 historical
    // tasks); here: a long history changes nothing but the figures of its last day.
    it('counts only the last 24 h and today out of a long history', async () => {
      const HISTORY = Number(process.env.TASK_HISTORY_ROWS ?? 100_000);
      const summary = async () => {
        const res = await admin.get(`/api/yard-task/summary/${w.yardId}`);
        expect(res.status).toBe(200);
        return res.body as { completedToday: number; wait: { count: number }; duration: { count: number } };
      };
      const before = await summary();
      // One task every 40 s up to now (about 2,000 a day, so the last 24 h hold a normal day's work),
      // straight into the table in statements of 1,000 rows.
      const now = clock.now();
      const end = now - 600_000;
      const since = now - 24 * 3_600_000;
      const dayStart = Date.parse('2026-03-10T05:00:00Z'); // midnight in Chicago (CDT)
      const expected = { started: 0, completed: 0, today: 0 };
      for (let from = 0; from < HISTORY; from += 1000) {
        const values: unknown[] = [];
        const upTo = Math.min(HISTORY, from + 1000);
        for (let i = from; i < upTo; i++) {
          const created = end - (HISTORY - i) * 40_000;
          const started = created + 60_000;
          const completed = created + 600_000;
          values.push(newId(), w.yardId, created, created, started, completed);
          if (started >= since) expected.started++;
          if (completed >= since) expected.completed++;
          if (completed >= dayStart) expected.today++;
        }
        await query(
          w.t.db,
          `INSERT INTO yard_task (id, yard_id, type, status, created_at, updated_at, started_at, completed_at, hlc)
         VALUES ${Array(upTo - from)
           .fill("(?, ?, 'move', 'COMPLETED', ?, ?, ?, ?, 'seed')")
           .join(', ')}`,
          ...values,
        );
      }
      expect(expected.completed).toBeGreaterThan(2_000);
      expect(expected.today).toBeLessThan(expected.completed);
      // The seeding may have held the event loop (SQLite runs each statement synchronously) past the
      // keep-alive timeout: start on a fresh connection.
      await admin.get('/healthz').catch(() => undefined);
      const after = await summary();
      expect(after.completedToday - before.completedToday).toBe(expected.today);
      expect(after.wait.count - before.wait.count).toBe(expected.started);
      expect(after.duration.count - before.duration.count).toBe(expected.completed);
    }, 120_000);
  });
});
