import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { copyEdgeRows, recountDashboardRollups } from '../../helpers/edge-rows.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS, type TestDialect } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The dashboard reads its rollups, never the history: a yard half an hour off whole UTC hours still
 * gets exact local days, and rows written with plain SQL count once the rollups are rebuilt. At an
 * edge, and at the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes"), where the edge's movements arrive as rows.
 */
type Side = { role: 'edge' } | { role: 'cloud'; dialect: TestDialect };
const SIDES: Array<[string, Side]> = [
  ['edge', { role: 'edge' }],
  ...TEST_DIALECTS.map((dialect): [string, Side] => [`cloud, ${dialect}`, { role: 'cloud', dialect }]),
];

describe.each(SIDES)('dashboard rollup reads (%s)', (_name, side) => {
  let edge: TestApp;
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let kolkata: string;
  let utcYard: string;
  const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));

  /** A movement recorded at the edge. */
  async function move(body: Record<string, unknown>) {
    const res = await new Client(edge.url, edge.adminToken).post('/api/movement', body);
    expect(res.status, res.text).toBe(201);
  }

  beforeAll(async () => {
    edge = await startTestApp({ clock });
    t =
      side.role === 'edge'
        ? edge
        : await startTestApp({ clock, dialect: side.dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    kolkata = await seedRows(edge).yard('KOL', { timeZone: 'Asia/Kolkata' }); // UTC+05:30
    utcYard = await seedRows(edge).yard('UTC', { timeZone: 'UTC' });
    // 23:50 on the 9th and 00:10 on the 10th in Kolkata: the same UTC hour (18:00-19:00).
    await move({ yardId: kolkata, direction: 'in', at: '2026-03-09T18:20:00Z', truck: { plate: 'K1' } });
    await move({ yardId: kolkata, direction: 'in', at: '2026-03-09T18:40:00Z', truck: { plate: 'K2' } });
    await move({ yardId: utcYard, direction: 'in', at: '2026-03-09T23:59:00Z', truck: { plate: 'U1' } });
    if (side.role === 'cloud') {
      // The edge's rows arrived at the cloud; its rollups recounted from them.
      await copyEdgeRows(edge.db, t.db, ['yard', 'truck', 'movement', 'visit']);
      await recountDashboardRollups(t);
    }
  });
  afterAll(async () => {
    if (t !== edge) await t?.close();
    await edge?.close();
  });

  describe('dashboard reads from the rollups', () => {
    it('a yard 5:30 from UTC gets its own days and hours (quarter-hour counts)', async () => {
      const days = await admin.get(
        `/api/dashboard/movement?yardId=${kolkata}&bucket=day&from=2026-03-09T00:00:00Z&to=2026-03-10T12:00:00Z`,
      );
      expect(days.status).toBe(200);
      expect(days.body.buckets.map((b: any) => [b.label, b.in])).toEqual([
        ['2026-03-09', 1],
        ['2026-03-10', 1],
      ]);
      const hours = await admin.get(
        `/api/dashboard/movement?yardId=${kolkata}&from=2026-03-09T18:00:00Z&to=2026-03-09T19:00:00Z`,
      );
      expect(hours.body.buckets.map((b: any) => [b.label, b.in])).toEqual([
        ['2026-03-09T23:00', 1],
        ['2026-03-10T00:00', 1],
      ]);
      const everyYard = await admin.get(
        '/api/dashboard/movement?bucket=day&from=2026-03-09T00:00:00Z&to=2026-03-10T12:00:00Z',
      );
      expect(everyYard.body.buckets.map((b: any) => [b.label, b.in])).toEqual([
        ['2026-03-09', 3],
        ['2026-03-10', 0],
      ]);
    });

    it('reads only rollup rows (and error minutes), each through its key: never the movements, trailers or visits', async () => {
      const seen: Array<{ sql: string; params: readonly unknown[] }> = [];
      // The figures read through the read pool; anything else would go through the main builder.
      const watch = (sql: string, params: readonly unknown[]) => seen.push({ sql, params });
      const stops = [t.db.onQuery(watch), t.core.reads.onQuery(watch)];
      const stop = () => {
        for (const s of stops) s();
      };
      for (const path of [
        '/api/dashboard/movement?bucket=day&from=2025-03-11T00:00:00Z&to=2026-03-10T00:00:00Z',
        `/api/dashboard/movement?yardId=${kolkata}&bucket=day&from=2025-03-11T00:00:00Z&to=2026-03-10T00:00:00Z`,
        `/api/dashboard/movement?yardId=${utcYard}&bucket=hour`,
        '/api/dashboard/yard/trailer',
        '/api/dashboard/yard/truck',
        '/api/dashboard/yard/error4xx',
      ]) {
        expect((await admin.get(path)).status, path).toBe(200);
      }
      stop();
      const figures = seen.filter((q) => /^select .*"(dashboard_\w+|http_error_stat)"/is.test(q.sql));
      expect(figures.length).toBeGreaterThanOrEqual(6);
      for (const q of seen) expect(q.sql, q.sql).not.toMatch(/from "(movement|trailer|truck|visit)"/);
      // The plans are SQLite's; PostgreSQL chooses its own from its statistics.
      if (t.db.dialect !== 'sqlite') return;
      for (const q of figures) {
        const plan = (await query(t.db, `EXPLAIN QUERY PLAN ${q.sql}`, ...q.params)) as Array<{
          detail: string;
        }>;
        const details = plan.map((p) => p.detail).join(' | ');
        expect(details, q.sql).toMatch(
          /SEARCH (dashboard_\w+|http_error_stat) USING (COVERING INDEX|PRIMARY KEY|INDEX)/,
        );
        expect(details, q.sql).not.toMatch(/SCAN (dashboard_|http_error_stat)/);
      }
    });

    it('rows inserted with plain SQL count once rebuildDashboardRollups has run', async () => {
      const figure = async () => {
        const res = await admin.get(
          `/api/dashboard/movement?yardId=${utcYard}&bucket=day&from=2026-03-08T00:00:00Z&to=2026-03-09T00:00:00Z`,
        );
        return res.body.totals;
      };
      for (const at of ['2026-03-08T01:00:00Z', '2026-03-08T13:15:00Z']) {
        await query(
          t.db,
          "INSERT INTO movement (id, yard_id, direction, at, created_at, hlc) VALUES (?, ?, 'out', ?, ?, 'seed')",
          newId(),
          utcYard,
          Date.parse(at),
          Date.parse(at),
        );
      }
      expect(await figure()).toEqual({ in: 0, out: 0 }); // no observer saw them
      // Written behind the observers' back: recounted, and the shared answers told (http/shared-answers.ts).
      await recountDashboardRollups(t);
      expect(await figure()).toEqual({ in: 0, out: 2 });
      const trucks = await admin.get(`/api/dashboard/yard/truck?yardId=${kolkata}`);
      expect(trucks.body.items[0]).toMatchObject({ trucksInYard: 2 }); // what the writes kept is recounted alike
    });
  });
});
