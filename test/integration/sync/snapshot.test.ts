import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { writeSiteSnapshot } from '../../../shared/sync/snapshot.js';
import { seed } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The site snapshot (shared/sync/snapshot.ts) on both databases: what a new or resyncing site gets
 * in its log. Applying it at an edge is covered by routing.test.ts (SQLite: the applier).
 */
describe.each(TEST_DIALECTS)('site snapshot (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let api: Client;
  let yardA: string;
  let yardB: string;

  const register = (siteId: string) =>
    query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      siteId,
      `Site ${siteId}`,
      '$7$unused',
      Date.now(),
    );

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    api = new Client(t.url, t.adminToken);
    await register('site-a');
    yardA = (await seed(api).yard({ code: 'AAA', name: 'AAA', timeZone: 'Europe/Berlin', siteId: 'site-a' }))
      .id;
    yardB = (await seed(api).yard({ code: 'BBB', name: 'BBB', timeZone: 'Europe/Berlin', siteId: 'site-a' }))
      .id;
  });
  afterAll(() => t.close());

  it('puts what a new site needs into its log, in dependency order, in one seq range', async () => {
    expect((await api.post('/api/carrier', { name: 'Acme', scac: 'ACME' })).status).toBe(201);
    expect((await api.post(`/api/yard/${yardA}/location`, { kind: 'spot', name: 'A-1' })).status).toBe(201);
    const spotB = await api.post(`/api/yard/${yardB}/location`, { kind: 'spot', name: 'B-1' });
    expect(spotB.status, spotB.text).toBe(201);
    const global = await api.put('/api/settings', { settings: { 'dashboard.errorWindowMinutes': 60 } });
    expect(global.status, global.text).toBe(200);
    await register('site-new');
    expect((await api.patch(`/api/yard/${yardB}`, { siteId: 'site-new' })).status).toBe(200);

    const range = await writeSiteSnapshot(t.core, 'site-new');
    expect(range.rows).toBeGreaterThan(0);
    // The change-log order lock (PostgreSQL) or the one writer (SQLite): nothing else took a seq between.
    expect(range.to - range.from + 1).toBe(range.rows);
    const logged = await query(
      t.db,
      'SELECT entity, entity_id, data FROM change_log WHERE peer = ? AND seq BETWEEN ? AND ? ORDER BY seq',
      'site-new',
      range.from,
      range.to,
    );
    expect(logged).toHaveLength(range.rows);
    const entities = logged.map((r) => r.entity as string);
    // Yards before locations; only the site's own yard and its location; org-wide records all there.
    expect(entities.indexOf('yard')).toBeLessThan(entities.indexOf('location'));
    expect(logged.filter((r) => r.entity === 'yard').map((r) => r.entity_id)).toEqual([yardB]);
    expect(logged.filter((r) => r.entity === 'location').map((r) => r.entity_id)).toEqual([spotB.body.id]);
    const count = async (table: string) =>
      Number((await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n);
    expect(entities.filter((e) => e === 'carrier')).toHaveLength(await count('carrier'));
    expect(entities.filter((e) => e === 'user')).toHaveLength(await count('app_user'));
    expect(entities).toContain('setting');
    // The stored row as it is, synced fields only (no generated read-model columns).
    const carrier = JSON.parse(logged.find((r) => r.entity === 'carrier')!.data);
    expect(carrier).toMatchObject({ name: 'Acme', scac: 'ACME', version: 1 });
    const yard = JSON.parse(logged.find((r) => r.entity === 'yard')!.data);
    expect(yard).toMatchObject({ id: yardB, siteId: 'site-new', code: 'BBB' });
    expect(Object.keys(yard)).not.toContain('apiJson');
    // Each row names its own HLC and origin.
    const hlcs = await query(
      t.db,
      'SELECT hlc, origin FROM change_log WHERE peer = ? AND entity = ? AND entity_id = ?',
      'site-new',
      'yard',
      yardB,
    );
    expect(hlcs.at(-1)!.origin).toBe(hlcs.at(-1)!.hlc.split('-').at(-1));
  });
});
