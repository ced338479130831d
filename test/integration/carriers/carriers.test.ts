import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** The cloud's carriers on each database (docs/architecture.md "Two databases, and several cloud nodes"): one suite, SQLite and PostgreSQL. */
describe.each(TEST_DIALECTS)('carriers (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    // A registered site: the cloud logs organisation-wide records for every site.
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-a',
      'Site A',
      '$7$unused',
      Date.now(),
    );
  });
  afterAll(() => t.close());

  it('creates, reads, lists with paging and filters, updates with If-Match, deletes', async () => {
    const a = await admin.post('/api/carrier', { name: 'Acme Freight', scac: 'acme', usdot: '123456' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ name: 'Acme Freight', scac: 'ACME', status: 'active', version: 1 });
    expect(a.headers.get('etag')).toBe('"v1"');
    for (const name of ['Beta Lines', 'Gamma Haul'])
      expect((await admin.post('/api/carrier', { name })).status).toBe(201);

    const first = await admin.get('/api/carrier?limit=2');
    expect(first.body.items).toHaveLength(2);
    const second = await admin.get(`/api/carrier?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    expect((await admin.get('/api/carrier?q=haul')).body.items.map((c: any) => c.name)).toEqual([
      'Gamma Haul',
    ]);
    // Wildcards in the text are literal.
    expect((await admin.get('/api/carrier?q=%25')).body.items).toEqual([]);
    // Case is ignored for A-Z; other letters match as typed (SQL lower() folds A-Z only, on both databases).
    const uber = await admin.post('/api/carrier', { name: 'Überland Cargo' });
    expect(
      (await admin.get(`/api/carrier?q=${encodeURIComponent('Über')}`)).body.items.map((c: any) => c.name),
    ).toEqual(['Überland Cargo']);
    expect(
      (await admin.get(`/api/carrier?q=${encodeURIComponent('ÜBERLAND cargo')}`)).body.items,
    ).toHaveLength(1);
    expect((await admin.delete(`/api/carrier/${uber.body.id}`)).status).toBe(204);

    const stale = await admin.patch(
      `/api/carrier/${a.body.id}`,
      { status: 'blocked' },
      { 'if-match': '"v0"' },
    );
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('precondition-failed');
    const ok = await admin.patch(
      `/api/carrier/${a.body.id}`,
      { status: 'blocked', blockedReason: 'insurance lapsed' },
      { 'if-match': '"v1"' },
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'blocked', version: 2 });
    expect((await admin.get('/api/carrier?status=blocked')).body.items).toHaveLength(1);

    expect((await admin.delete(`/api/carrier/${a.body.id}`)).status).toBe(204);
    expect((await admin.get(`/api/carrier/${a.body.id}`)).status).toBe(404);
  });

  it('duplicate SCAC is 409 and writes nothing', async () => {
    await admin.post('/api/carrier', { name: 'Delta', scac: 'DLTA' });
    const before = (await query(t.db, 'SELECT count(*) AS n FROM carrier'))[0].n;
    const dup = await admin.post('/api/carrier', { name: 'Delta Two', scac: 'dlta' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate');
    expect((await query(t.db, 'SELECT count(*) AS n FROM carrier'))[0].n).toBe(before);
  });

  it('bad input: 400 per field; malformed id 400; unknown id 404; bad cursor 400', async () => {
    const bad = await admin.post('/api/carrier', { name: '', scac: 'TOOLONG', usdot: 'x', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['body.name', 'body.scac', 'body.usdot']),
    );
    expect((await admin.get('/api/carrier/not-a-uuid')).status).toBe(400);
    expect((await admin.get('/api/carrier/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f')).status).toBe(404);
    const cur = await admin.get('/api/carrier?cursor=garbage');
    expect(cur.status).toBe(400);
    expect(cur.body.code).toBe('invalid-cursor');
  });

  it('only admins write carriers; staff read', async () => {
    const viewer = await clientWithRole(admin, 'viewer');
    expect((await viewer.get('/api/carrier')).status).toBe(200);
    expect((await viewer.post('/api/carrier', { name: 'Nope' })).status).toBe(403);
  });

  it('every write leaves its change_log row', async () => {
    const c = await admin.post('/api/carrier', { name: 'Logged Co' });
    await admin.patch(`/api/carrier/${c.body.id}`, { name: 'Logged Company' });
    const log = await query(
      t.db,
      "SELECT op, data FROM change_log WHERE peer = 'site-a' AND entity = 'carrier' AND entity_id = ? ORDER BY seq",
      c.body.id,
    );
    expect(log.map((l) => l.op)).toEqual(['upsert', 'upsert']);
    expect(JSON.parse(log[1].data).name).toBe('Logged Company');
  });
});
