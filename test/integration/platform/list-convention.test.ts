import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { DriverAppWorld } from '../driver-app/fixtures.js';

/**
 * Every list takes `limit` and `cursor` and answers `{items, nextCursor}` (docs/api.md "Lists and paging", the modules
 * README): checked on the published document for every GET, and by walking the pages of the lists
 * that used to answer otherwise.
 */
let t: TestApp;
let admin: Client;
let w: DriverAppWorld;

beforeAll(async () => {
  t = await startTestApp();
  admin = new Client(t.url, t.adminToken);
  w = new DriverAppWorld(t);
});
afterAll(() => t.close());

/** Per-yard figures, not lists of records: one entry per yard in view, never paged. */
const REPORTS = new Set([
  '/api/dashboard/yard/error4xx',
  '/api/dashboard/yard/error5xx',
  '/api/dashboard/yard/movement',
  '/api/dashboard/yard/overview',
  '/api/dashboard/yard/trailer',
  '/api/dashboard/yard/truck',
  '/api/yard-task/summary',
  // A report over a period the caller bounds (at most a year, 400 range-too-long), answered whole
  // because its CSV twin is one file (docs/api.md "Appointments").
  '/api/appointment/detention',
]);
/** Ranked answers: the best `limit` matches in one page (nextCursor always null), no cursor. */
const RANKED = new Set(['/api/driver/search', '/api/search']);

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
};

describe('the document', () => {
  it('every GET that answers several records is a page and takes limit and cursor', async () => {
    const doc = (await admin.as(undefined).get('/v3/api-docs')).body;
    const resolve = (s: Schema): Schema => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
    const wrong: string[] = [];
    let lists = 0;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, any>)) {
      const op = ops.get;
      const json = op?.responses['200']?.content?.['application/json']?.schema;
      if (!json || REPORTS.has(path)) continue;
      const body = resolve(json);
      // A record may have items of its own (an inspection's checked items): it has an id.
      const isList = body.type === 'array' || (body.properties?.items && !body.properties.id);
      if (!isList) continue;
      lists++;
      const props = body.properties ?? {};
      if (!(props.items && props.nextCursor)) wrong.push(`${path}: answers ${Object.keys(props)}`);
      const params = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
      if (!params.includes('limit')) wrong.push(`${path}: no limit`);
      if (!RANKED.has(path) && !params.includes('cursor')) wrong.push(`${path}: no cursor`);
    }
    expect(wrong).toEqual([]);
    expect(lists).toBeGreaterThan(25);
  });
});

/** Follows nextCursor with `limit` from the first page to the last; answers every item seen. */
async function walk(client: Client, path: string, limit: number): Promise<any[]> {
  const sep = path.includes('?') ? '&' : '?';
  const items: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const res: { status: number; text: string; body: any } = await client.get(
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['items', 'nextCursor']));
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (cursor === null) return items;
    expect(res.body.items).toHaveLength(limit);
  }
  throw new Error(`${path}: more than 50 pages`);
}

/** The whole list in one page, then the same items page by page, in the same order. */
async function expectPaged(client: Client, path: string, key: (item: any) => string, atLeast: number) {
  const whole = await client.get(path);
  expect(whole.status, whole.text).toBe(200);
  expect(whole.body.nextCursor).toBeNull();
  expect(whole.body.items.length).toBeGreaterThanOrEqual(atLeast);
  const paged = await walk(client, path, 2);
  expect(paged.map(key)).toEqual(whole.body.items.map(key));
  expect(new Set(paged.map(key)).size).toBe(paged.length);
}

describe('the lists that answered otherwise, page by page', () => {
  it('API keys', async () => {
    for (const name of ['k1', 'k2', 'k3']) {
      expect((await admin.post('/api/auth/api-key', { name, role: 'viewer' })).status).toBe(201);
    }
    await expectPaged(admin, '/api/auth/api-key', (k) => k.id, 3);
    expect((await admin.get('/api/auth/api-key?cursor=garbage')).body.code).toBe('invalid-cursor');
  });

  it('yard drivers with their availability, and a driver’s own tasks', async () => {
    const yardId = await w.yard();
    const drivers = [await w.driver('Ana'), await w.driver('Bo'), await w.driver('Cy')];
    await expectPaged(admin, '/api/yard-task/drivers', (d) => d.driverId, 3);
    const [ana] = drivers;
    for (const priority of [0, 3, 1]) await w.task(yardId, { driverId: ana!.id, priority });
    const mine = await walk(ana!.client, '/api/yard-task/driver/tasks', 2);
    expect(mine.map((task) => task.priority)).toEqual([3, 1, 0]);
    await expectPaged(ana!.client, '/api/yard-task/driver/tasks', (task) => task.id, 3);
  });

  it('driver search: a ranked page of the best `limit` matches, nextCursor null', async () => {
    for (const lastName of ['Rankin', 'Ranke', 'Rank']) {
      const res = await admin.post('/api/driver', { kind: 'yard', firstName: 'Ray', lastName });
      expect(res.status, res.text).toBe(201);
    }
    const res = await admin.get('/api/driver/search?q=rank&limit=2');
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(2);
    expect(res.body.nextCursor).toBeNull();
  });

  it('camera provider kinds, provider cameras of an integration and of all integrations', async () => {
    await expectPaged(admin, '/api/integration/camera-provider', (k) => k.kind, 3);
    await expectPaged(admin, '/api/camera/provider', (k) => k.kind, 3);
    // Listing this kind's cameras reads its config only; the addresses (TEST-NET-1) are never asked.
    const cameras = ['c', 'a', 'b'].map((id) => ({
      id: `cam-${id}`,
      name: `Camera ${id}`,
      snapshotUrl: `http://192.0.2.10/${id}.jpg`,
    }));
    const integration = await admin.post('/api/integration', {
      kind: 'http-snapshot',
      name: 'Paged cameras',
      config: { auth: { type: 'none' }, cameras },
    });
    expect(integration.status, integration.text).toBe(201);
    await expectPaged(admin, `/api/integration/${integration.body.id}/cameras`, (c) => c.id, 3);
    await expectPaged(admin, '/api/camera/integration', (c) => `${c.integrationId}/${c.id}`, 3);
    const first = await admin.get('/api/camera/integration?limit=1');
    expect(first.body).toMatchObject({ items: [expect.anything()], failures: [] });
  });
});
