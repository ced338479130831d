import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The trailer list by ids (docs/api.md "Trailers"): the tasks screen names the trailers of every
 * task it lists in one request, not one request per task. Same scope, paging and ETag as the list.
 */
describe.each(TEST_DIALECTS)('trailer list by ids (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  const made: Array<{ id: string; number: string }> = [];

  async function trailer(number: string, yardId: string | null) {
    const res = await admin.post('/api/trailer', { number });
    expect(res.status, res.text).toBe(201);
    if (yardId) await t.core.changes.update(t.core.kysely, 'trailer', res.body.id, { yardId });
    made.push({ id: res.body.id, number: res.body.number });
    return res.body.id as string;
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    yardA = await seedRows(t).yard('IA');
    yardB = await seedRows(t).yard('IB');
    await trailer('IDS-1', yardA);
    await trailer('IDS-2', yardB);
    await trailer('IDS-3', null);
    await trailer('IDS-4', yardA);
  });
  afterAll(() => t.close());

  const idsOf = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((x) => x.id);

  it('answers exactly the trailers named (repeated or comma-separated), by id; unknown ids are left out', async () => {
    const [one, two, , four] = made.map((m) => m.id);
    const unknown = newId();
    const comma = await admin.get(`/api/trailer?ids=${four},${one},${unknown}`);
    expect(comma.status).toBe(200);
    expect(idsOf(comma)).toEqual([one, four].sort());
    expect(comma.body.items.find((x: any) => x.id === one)).toMatchObject({ number: 'IDS-1', yardId: yardA });
    const repeated = await admin.get(`/api/trailer?ids=${two}&ids=${one}`);
    expect(idsOf(repeated)).toEqual([one, two].sort());
    // With the other filters: only those of the named that match.
    expect(idsOf(await admin.get(`/api/trailer?ids=${one},${two},${four}&yardId=${yardA}`))).toEqual(
      [one, four].sort(),
    );
  });

  it('pages like the list, and answers 304 to its ETag', async () => {
    const named = made.slice(1).map((m) => m.id);
    const sorted = [...named].sort();
    const p1 = await admin.get(`/api/trailer?ids=${named.join(',')}&limit=2`);
    expect(idsOf(p1)).toEqual(sorted.slice(0, 2));
    expect(p1.body.nextCursor).not.toBeNull();
    const p2 = await admin.get(`/api/trailer?ids=${named.join(',')}&limit=2&cursor=${p1.body.nextCursor}`);
    expect(p2.body).toMatchObject({ items: [{ id: sorted[2] }], nextCursor: null });
    expect(p2.body.items).toHaveLength(1);
    const etag = p1.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await admin.get(`/api/trailer?ids=${named.join(',')}&limit=2`, { 'if-none-match': etag! });
    expect(again.status).toBe(304);
  });

  it('a yard-scoped user gets only trailers outside yards and in its yards', async () => {
    const [one, two, three] = made.map((m) => m.id);
    const scoped = await clientWithRole(admin, 'dispatcher', { yardIds: [yardA] });
    const res = await scoped.get(`/api/trailer?ids=${one},${two},${three}`);
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([one, three].sort());
  });

  it('bad input: not an id, or more than 100 ids, is 400 problem+json naming query.ids', async () => {
    const bad = await admin.get('/api/trailer?ids=abc');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(bad.body.code).toBe('validation-failed');
    expect(bad.body.errors.map((e: any) => e.path)).toContain('query.ids[0]');
    const many = Array.from({ length: 101 }, () => newId());
    const tooMany = await admin.get(`/api/trailer?ids=${many.join(',')}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.map((e: any) => e.path)).toContain('query.ids');
    const hundred = await admin.get(`/api/trailer?ids=${[made[0]!.id, ...many.slice(1, 100)].join(',')}`);
    expect([hundred.status, idsOf(hundred)]).toEqual([200, [made[0]!.id]]);
    expect((await admin.get('/api/trailer?ids=')).status).toBe(400);
  });
});
