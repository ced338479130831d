import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * A location's place on the yard plan (migration 0009): the dashboard's yard map draws it. At the
 * cloud, which owns locations, on each database (docs/architecture.md "Two databases, and several cloud nodes").
 */
const PLAN = { x: 12, y: 40.5, width: 3.7, height: 16, rotation: 90 };

describe.each(TEST_DIALECTS)('location plan position (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardId: string;
  let seq = 0;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    // The yard's site (the default one) registered: the cloud logs the locations for it.
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-1',
      'Site 1',
      '$7$unused',
      Date.now(),
    );
    const yard = await admin.post('/api/yard', { code: 'MAP1', name: 'Map yard', timeZone: 'UTC' });
    yardId = yard.body.id;
  });
  afterAll(() => t.close());

  const base = () => `/api/yard/${yardId}/location`;
  const logCount = async () => (await query(t.db, 'SELECT count(*) AS n FROM change_log'))[0].n as number;
  const stored = async (id: string) =>
    (
      await query(
        t.db,
        'SELECT plan_x, plan_y, plan_width, plan_height, plan_rotation FROM location WHERE id = ?',
        id,
      )
    )[0];

  async function spot(extra: Record<string, unknown> = {}) {
    const res = await admin.post(base(), { kind: 'spot', name: `P-${++seq}`, ...extra });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; version: number; plan: unknown };
  }

  it('is null when not given; created with one, it is stored, answered and listed', async () => {
    const bare = await spot();
    expect(bare.plan).toBeNull();
    expect(await stored(bare.id)).toEqual({
      plan_x: null,
      plan_y: null,
      plan_width: null,
      plan_height: null,
      plan_rotation: null,
    });
    const placed = await spot({ plan: PLAN });
    expect(placed.plan).toEqual(PLAN);
    expect(await stored(placed.id)).toEqual({
      plan_x: 12,
      plan_y: 40.5,
      plan_width: 3.7,
      plan_height: 16,
      plan_rotation: 90,
    });
    const listed = (await admin.get(`${base()}?limit=500`)).body.items as Array<{
      id: string;
      plan: unknown;
    }>;
    expect(listed.find((l) => l.id === placed.id)?.plan).toEqual(PLAN);
    expect(listed.find((l) => l.id === bare.id)?.plan).toBeNull();
  });

  it('PATCH sets, moves and clears it with If-Match; a stale ETag is 412 and changes nothing', async () => {
    const s = await spot();
    const set = await admin.patch(`${base()}/${s.id}`, { plan: PLAN }, { 'if-match': '"v1"' });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ plan: PLAN, version: 2 });
    expect(set.headers.get('etag')).toBe('"v2"');

    const before = await logCount();
    const stale = await admin.patch(
      `${base()}/${s.id}`,
      { plan: { ...PLAN, x: 99 } },
      { 'if-match': '"v1"' },
    );
    expect(stale.status).toBe(412);
    expect((await stored(s.id)).plan_x).toBe(12);
    expect(await logCount()).toBe(before);

    // Other fields leave the position alone; the position leaves the other fields alone.
    const renamed = await admin.patch(`${base()}/${s.id}`, { name: `Q-${seq}` }, { 'if-match': '"v2"' });
    expect(renamed.body.plan).toEqual(PLAN);
    const moved = await admin.patch(`${base()}/${s.id}`, { plan: { ...PLAN, x: 0, rotation: 359.5 } });
    expect(moved.body).toMatchObject({ name: `Q-${seq}`, plan: { x: 0, rotation: 359.5 }, version: 4 });

    const cleared = await admin.patch(`${base()}/${s.id}`, { plan: null }, { 'if-match': '"v4"' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.plan).toBeNull();
    expect(Object.values(await stored(s.id))).toEqual([null, null, null, null, null]);
    // Each change is logged for sync with the position in the row's data.
    const log = (
      await query(
        t.db,
        "SELECT data FROM change_log WHERE peer = 'site-1' AND entity = 'location' AND entity_id = ? ORDER BY seq",
        s.id,
      )
    ).map((r) => JSON.parse(r.data as string));
    expect(log.map((d) => d.planX)).toEqual([null, 12, 12, 0, null]);
  });

  it('refuses a position out of bounds, incomplete or not finite: 400 validation-failed, nothing written', async () => {
    const s = await spot();
    const before = await logCount();
    const bad: Array<[unknown, string]> = [
      [{ ...PLAN, width: 0 }, 'body.plan.width'],
      [{ ...PLAN, height: -3 }, 'body.plan.height'],
      [{ ...PLAN, rotation: 360 }, 'body.plan.rotation'],
      [{ ...PLAN, rotation: -1 }, 'body.plan.rotation'],
      [{ ...PLAN, x: 10_001 }, 'body.plan.x'],
      [{ ...PLAN, y: -10_001 }, 'body.plan.y'],
      [{ ...PLAN, width: 2_001 }, 'body.plan.width'],
      [{ x: 1, y: 2, width: 3, height: 4 }, 'body.plan.rotation'],
      [{ ...PLAN, x: '12' }, 'body.plan.x'],
      [{ ...PLAN, z: 1 }, 'body.plan'],
      ['here', 'body.plan'],
    ];
    for (const [plan, path] of bad) {
      const res = await admin.patch(`${base()}/${s.id}`, { plan });
      expect(res.status, JSON.stringify(plan)).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    // JSON has no Infinity, but 1e999 parses to it: refused as not finite.
    const infinite = await admin.request(
      'PATCH',
      `${base()}/${s.id}`,
      '{"plan":{"x":1e999,"y":0,"width":4,"height":16,"rotation":0}}',
      { 'content-type': 'application/json' },
    );
    expect(infinite.status).toBe(400);
    expect(infinite.body.errors.map((e: { path: string }) => e.path)).toContain('body.plan.x');
    const created = await admin.post(base(), { kind: 'spot', name: 'never', plan: { ...PLAN, width: 0 } });
    expect(created.status).toBe(400);
    expect(await logCount()).toBe(before);
    expect(Object.values(await stored(s.id))).toEqual([null, null, null, null, null]);
    expect((await query(t.db, "SELECT count(*) AS n FROM location WHERE name = 'never'"))[0].n).toBe(0);
  });

  it('the table refuses a half position even from a writer that skips the API (a bad sync row)', async () => {
    const s = (await query(t.db, 'SELECT id FROM location LIMIT 1'))[0].id as string;
    // "CHECK constraint failed" on SQLite, "violates check constraint" on PostgreSQL.
    await expect(query(t.db, 'UPDATE location SET plan_x = 1 WHERE id = ?', s)).rejects.toThrow(/check/i);
    expect((await stored(s)).plan_x).toBeNull();
  });

  it('only roles that edit locations may place them; a viewer reads the position', async () => {
    const s = await spot({ plan: PLAN });
    const viewer = await clientWithRole(admin, 'viewer');
    expect((await viewer.patch(`${base()}/${s.id}`, { plan: null })).status).toBe(403);
    const dispatcher = await clientWithRole(admin, 'dispatcher');
    expect((await dispatcher.patch(`${base()}/${s.id}`, { plan: { ...PLAN, y: 1 } })).status).toBe(200);
    const seen = (await viewer.get(`${base()}?q=${encodeURIComponent(`P-${seq}`)}`)).body.items[0];
    expect(seen.plan).toEqual({ ...PLAN, y: 1 });
  });
});
