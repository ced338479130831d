import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The locations and carriers a panel names, in one request each (docs/api.md "Lists by ids"): the
 * Yard screen's longest-dwell table names the places and carriers of twenty trailers without
 * reading every place of the yard and every carrier.
 */
describe.each(TEST_DIALECTS)('locations and carriers by ids (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  const loc: Record<string, string> = {};
  const car: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    yardA = await seedRows(t).yard('IA');
    yardB = await seedRows(t).yard('IB');
    for (const name of ['Door 2', 'door 10', 'Spot 1', 'Spot 9'])
      loc[name] = await seedRows(t).location(yardA, name, name.startsWith('S') ? 'spot' : 'door');
    loc.B = await seedRows(t).location(yardB, 'Spot 1');
    for (const name of ['Acme', 'Bolt', 'Crane']) car[name] = await seedRows(t).carrier(name);
  });
  afterAll(() => t.close());

  it("lists only the given locations of the yard, by name; another yard's are left out", async () => {
    const ids = [loc['Spot 9'], loc['Door 2'], loc.B, newId()].join(',');
    const res = await admin.get(`/api/yard/${yardA}/location?ids=${ids}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((l: any) => l.name)).toEqual(['Door 2', 'Spot 9']);
    expect(res.body.nextCursor).toBeNull();
    // Repeated parameters work as well, and the other filters still apply.
    const repeated = await admin.get(
      `/api/yard/${yardA}/location?ids=${loc['Spot 1']}&ids=${loc['door 10']}&kind=spot`,
    );
    expect(repeated.body.items.map((l: any) => l.name)).toEqual(['Spot 1']);
    // Each item is the location as the list answers it without ids.
    const all = (await admin.get(`/api/yard/${yardA}/location?limit=10`)).body.items;
    expect(res.body.items[0]).toEqual(all.find((l: any) => l.id === loc['Door 2']));
  });

  it('lists only the given carriers', async () => {
    const res = await admin.get(`/api/carrier?ids=${car.Crane},${car.Acme},${newId()}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((c: any) => c.name).sort()).toEqual(['Acme', 'Crane']);
    const page = await admin.get(`/api/carrier?ids=${car.Crane},${car.Acme},${car.Bolt}&limit=2`);
    expect(page.body.items).toHaveLength(2);
    const rest = await admin.get(
      `/api/carrier?ids=${car.Crane},${car.Acme},${car.Bolt}&limit=2&cursor=${page.body.nextCursor}`,
    );
    expect([...page.body.items, ...rest.body.items].map((c: any) => c.name).sort()).toEqual([
      'Acme',
      'Bolt',
      'Crane',
    ]);
  });

  it('more than 100 ids, a bad id or an empty list is 400 naming the field; scope as the list', async () => {
    const many = Array.from({ length: 101 }, () => newId()).join(',');
    for (const path of [`/api/yard/${yardA}/location`, '/api/carrier']) {
      for (const ids of [many, 'x', ',']) {
        const bad = await admin.get(`${path}?ids=${ids}`);
        expect([bad.status, bad.body.code, bad.body.errors?.[0]?.path], `${path} ${ids.slice(0, 8)}`).toEqual(
          [400, 'validation-failed', ids === 'x' ? 'query.ids[0]' : 'query.ids'],
        );
      }
    }
    const scoped = await clientWithRole(admin, 'viewer', { yardIds: [yardB] });
    const other = await scoped.get(`/api/yard/${yardA}/location?ids=${loc['Door 2']}`);
    expect([other.status, other.body.code]).toEqual([403, 'forbidden']);
  });
});
