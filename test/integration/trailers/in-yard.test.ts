import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The trailers of one yard by place and the longest there, in one request (docs/web-apps.md
 * "Yard"): the Yard screen's occupancy and longest-dwell panels without reading every trailer.
 */
describe.each(TEST_DIALECTS)('trailers in a yard (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  let spot: string;
  const ids: Record<string, string> = {};

  async function trailer(number: string, yardId: string, at: number | null, locationId: string | null) {
    const res = await admin.post('/api/trailer', { number });
    expect(res.status, res.text).toBe(201);
    await t.core.changes.update(t.core.kysely, 'trailer', res.body.id, { yardId, locationId, arrivedAt: at });
    ids[number] = res.body.id;
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    yardA = await seedRows(t).yard('YA');
    yardB = await seedRows(t).yard('YB');
    spot = await seedRows(t).location(yardA, 'S1');
    const day = Date.parse('2026-03-01T00:00:00Z');
    await trailer('IY-NEW', yardA, day + 3_000, spot);
    await trailer('IY-OLD', yardA, day + 1_000, spot);
    await trailer('IY-MID', yardA, day + 2_000, null);
    await trailer('IY-NONE', yardA, null, null);
    await trailer('IY-OTHER', yardB, day, null);
  });
  afterAll(() => t.close());

  it('counts per place and in all, and lists the earliest arrivals first (no arrival last)', async () => {
    const res = await admin.get(`/api/trailer/in-yard?yardId=${yardA}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.yardId).toBe(yardA);
    expect(res.body.trailers).toBe(4);
    expect(res.body.byLocation).toEqual([
      { locationId: spot, trailers: 2 },
      { locationId: null, trailers: 2 },
    ]);
    expect(res.body.longest.map((x: any) => x.number)).toEqual(['IY-OLD', 'IY-MID', 'IY-NEW', 'IY-NONE']);
    // Each item is the trailer as the API answers it anywhere else.
    expect(res.body.longest[0]).toEqual((await admin.get(`/api/trailer/${ids['IY-OLD']}`)).body);
    const two = await admin.get(`/api/trailer/in-yard?yardId=${yardA}&longest=2`);
    expect(two.body.longest.map((x: any) => x.number)).toEqual(['IY-OLD', 'IY-MID']);
    expect(two.body.trailers).toBe(4);
    const none = await admin.get(`/api/trailer/in-yard?yardId=${yardB}&longest=0`);
    expect(none.body).toEqual({
      yardId: yardB,
      trailers: 1,
      byLocation: [{ locationId: null, trailers: 1 }],
      longest: [],
    });
  });

  it('byLocation=false leaves the per-place counts out and keeps the rest', async () => {
    const full = await admin.get(`/api/trailer/in-yard?yardId=${yardA}&longest=3`);
    const lean = await admin.get(`/api/trailer/in-yard?yardId=${yardA}&longest=3&byLocation=false`);
    expect(lean.status, lean.text).toBe(200);
    const { byLocation: _, ...rest } = full.body;
    expect(lean.body).toEqual(rest);
    expect(lean.body.trailers).toBe(4);
    expect('byLocation' in lean.body).toBe(false);
    const empty = await admin.get(`/api/trailer/in-yard?yardId=${newId()}&byLocation=false`);
    expect(empty.status).toBe(404);
    const bad = await admin.get(`/api/trailer/in-yard?yardId=${yardA}&byLocation=no`);
    expect([bad.status, bad.body.errors?.[0]?.path]).toEqual([400, 'query.byLocation']);
  });

  it('a yard outside the scope is 403, an unknown one 404, bad input 400 naming the field', async () => {
    const scoped = await clientWithRole(admin, 'viewer', { yardIds: [yardB] });
    expect((await scoped.get(`/api/trailer/in-yard?yardId=${yardB}`)).status).toBe(200);
    const other = await scoped.get(`/api/trailer/in-yard?yardId=${yardA}`);
    expect([other.status, other.body.code]).toEqual([403, 'forbidden']);
    expect((await admin.get(`/api/trailer/in-yard?yardId=${newId()}`)).status).toBe(404);
    const bad = await admin.get('/api/trailer/in-yard?yardId=x&longest=101');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation-failed');
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['query.yardId', 'query.longest']),
    );
    expect((await admin.get('/api/trailer/in-yard')).status).toBe(400);
  });
});
