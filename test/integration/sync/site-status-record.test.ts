import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteStatusTracker } from '../../../cloud/sync/site-status.js';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { silentLogger } from '../../../shared/log.js';
import type { SiteStatus } from '../../../shared/sync/protocol.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * A site's retained status stored at the cloud (cloud/sync/site-status.ts), on both databases. With
 * several cloud nodes each may record the same status at once: the link change is reported once.
 */
describe.each(TEST_DIALECTS)('site status records (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      clock: new ManualClock(Date.UTC(2026, 5, 1)),
      env: { YARD_ROLE: 'cloud' },
    });
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

  const status = (state: SiteStatus['state'], queued: number): SiteStatus => ({
    v: 1,
    state,
    schemaV: 11,
    version: '1.2.3',
    queued,
    at: t.core.clock.now(),
  });
  const node = () => new SiteStatusTracker({ kysely: t.db.kysely, clock: t.core.clock, log: silentLogger() });

  it('stores what the status says; the same status recorded by two nodes at once changes the link once', async () => {
    const first = await node().record('site-a', status('online', 5));
    expect(first).toEqual({ before: 'never', linkChanged: true, changed: true });
    const [site] = await query(
      t.db,
      'SELECT link_state, reported_queued, reported_version, last_seen_at FROM site WHERE id = ?',
      'site-a',
    );
    expect(site).toMatchObject({ link_state: 'online', reported_queued: 5, reported_version: '1.2.3' });
    expect(Number(site.last_seen_at)).toBe(t.core.clock.now());

    const offline = status('offline', 0);
    // PostgreSQL: a third session holds the site row, so both nodes' records are under way together
    // when it lets go (SQLite: one connection, one transaction at a time anyway).
    const holder = dialect === 'postgres' ? new pg.Client({ connectionString: t.postgresUrl }) : undefined;
    await holder?.connect();
    await holder?.query('BEGIN');
    await holder?.query("SELECT id FROM site WHERE id = 'site-a' FOR UPDATE");
    const records = Promise.all([node().record('site-a', offline), node().record('site-a', offline)]);
    await new Promise((r) => setTimeout(r, 300));
    await holder?.query('COMMIT');
    await holder?.end();
    const both = await records;
    expect(both.filter((r) => r?.linkChanged)).toHaveLength(1);
    expect(both.map((r) => r?.before).sort()).toEqual(['offline', 'online']);
    expect(await node().record('nowhere', offline)).toBeUndefined();
  });
});
