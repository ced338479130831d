import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Location retention at the cloud, which holds every site's pings (applied by sync), on either
 * database: old pings go in chunks, recent ones stay, and nothing is logged for the sites.
 */
describe.each(TEST_DIALECTS)('location retention at the cloud (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('deletes the pings older than locations.retentionDays, without change-log rows', async () => {
    const api = new Client(t.url, t.adminToken);
    const yard = await seed(api).yard();
    const driver = await seed(api).driver();
    const now = Date.now();
    const day = 86_400_000;
    await query(
      t.db,
      `INSERT INTO driver_session (id, driver_id, yard_id, started_at, created_at, updated_at, hlc)
       VALUES ('s1', ?, ?, ?, ?, ?, 'h')`,
      driver.id,
      yard.id,
      now - 400 * day,
      now - 400 * day,
      now,
    );
    // A site setting: the cloud keeps its default (each edge sets its own).
    const days = (await api.get('/api/settings/locations.retentionDays')).body.value as number;
    expect(days).toBeGreaterThan(0);
    const ats = [now - (days + 1) * day, now - days * day - 60_000, now - days * day + 60_000, now - 1000];
    for (const [i, at] of ats.entries()) {
      await query(
        t.db,
        `INSERT INTO session_location (id, session_id, at, lat, lon, created_at, hlc) VALUES (?, 's1', ?, 38, -9, ?, 'h')`,
        `p${i}`,
        at,
        at,
      );
    }
    const logged = async () => (await query(t.db, 'SELECT count(*) AS n FROM change_log'))[0]!.n;
    const before = await logged();
    expect(await t.services.driverApp.pruneLocations()).toBe(2);
    expect((await query(t.db, 'SELECT at FROM session_location ORDER BY at')).map((r) => r.at)).toEqual(
      ats.slice(2),
    );
    expect(await logged()).toBe(before);
    expect(await t.services.driverApp.pruneLocations()).toBe(0);
  });
});
