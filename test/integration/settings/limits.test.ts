import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { SETTINGS, type SettingName } from '../../../shared/modules/settings/registry.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS, type TestDialect } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The range of each numeric setting, as the domain needs it (written out here, not read from the
 * registry, so a loosened bound fails this test). Below the minimum a setting silently breaks its
 * feature: tasks.maxAssignedPerDriver 0 makes every driver busy and stops dispatch, a 0 s driver
 * timeout makes every driver offline, 0 actuations a minute locks every gate.
 */
const LIMITS: Record<string, { min: number; max: number }> = {
  'attachments.maxBytes': { min: 1024, max: 50 * 1024 * 1024 },
  'billing.autoDraftDay': { min: 0, max: 28 },
  'camera.movementSnapshotTimeoutMs': { min: 200, max: 10_000 },
  'camera.snapshotTimeoutMs': { min: 500, max: 30_000 },
  'dashboard.errorWindowMinutes': { min: 1, max: 10_080 },
  'gate.maxActuationsPerMinute': { min: 1, max: 600 },
  'idempotency.maxKeysPerCaller': { min: 100, max: 100_000 },
  'idempotency.retentionHours': { min: 12, max: 720 },
  'locations.retentionDays': { min: 1, max: 3650 },
  'tasks.driverTimeoutSec': { min: 10, max: 3600 },
  'tasks.maxAssignedPerDriver': { min: 1, max: 20 },
};

/**
 * Where each setting is written: the organisation's (global) ones at the cloud, on each database
 * (docs/architecture.md "Two databases, and several cloud nodes"); a site's own at its edge (SQLite; the cloud answers 409 edge-owned to them). Each
 * range is tried where its setting is written.
 */
const WHERE: Array<{
  where: string;
  dialect: TestDialect;
  role: 'cloud' | 'edge';
  scope: 'global' | 'site';
}> = [
  ...TEST_DIALECTS.map((dialect) => ({
    where: `cloud, ${dialect}`,
    dialect,
    role: 'cloud' as const,
    scope: 'global' as const,
  })),
  { where: 'edge, sqlite', dialect: 'sqlite', role: 'edge', scope: 'site' },
];

describe.each(WHERE)('numeric settings have a range ($where)', ({ dialect, role, scope }) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp({ dialect, clock: new ManualClock(), env: { YARD_ROLE: role } });
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(() => t.close());

  const settingRows = () => query(t.db, 'SELECT name, value, version FROM setting ORDER BY name');
  const logCount = async () => (await query(t.db, 'SELECT count(*) AS n FROM change_log'))[0].n as number;

  async function allSettings(): Promise<Array<{ name: string; value: unknown; default: unknown }>> {
    const res = await admin.get('/api/settings?limit=100');
    expect(res.status).toBe(200);
    return res.body.items;
  }

  it('every numeric setting has its range listed here', async () => {
    const numeric = (await allSettings()).filter((s) => typeof s.default === 'number').map((s) => s.name);
    expect(numeric.sort()).toEqual(Object.keys(LIMITS).sort());
  });

  it('tasks.maxAssignedPerDriver 0 is 400 validation-failed on its path, and nothing changes', async () => {
    const beforeRows = await settingRows();
    const beforeLog = await logCount();
    const res = await admin.put('/api/settings', {
      settings: { 'tasks.maxAssignedPerDriver': 0, 'ui.siteName': 'North yard' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('validation-failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'body.settings.tasks.maxAssignedPerDriver',
    ]);
    expect(await settingRows()).toEqual(beforeRows);
    expect(await logCount()).toBe(beforeLog);
    const one = await admin.get('/api/settings/tasks.maxAssignedPerDriver');
    expect(one.body).toMatchObject({ value: 1, isDefault: true });
    expect((await admin.get('/api/settings/ui.siteName')).body).toMatchObject({ isDefault: true });
  });

  const writtenHere = Object.entries(LIMITS).filter(
    ([name]) => SETTINGS[name as SettingName].scope === scope,
  );
  for (const [name, { min, max }] of writtenHere) {
    it(`${name}: ${min} and ${max} are accepted; ${min - 1}, ${max + 1} and a fraction are 400`, async () => {
      const path = `body.settings.${name}`;
      const beforeRows = await settingRows();
      const beforeLog = await logCount();
      for (const value of [min - 1, max + 1, min + 0.5, -1]) {
        const res = await admin.put('/api/settings', { settings: { [name]: value } });
        expect(res.status, `${name} = ${value}`).toBe(400);
        expect(res.body.code).toBe('validation-failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
      }
      expect(await settingRows()).toEqual(beforeRows);
      expect(await logCount()).toBe(beforeLog);

      for (const value of [min, max]) {
        const res = await admin.put('/api/settings', { settings: { [name]: value } });
        expect(res.status, `${name} = ${value}: ${res.text}`).toBe(200);
        expect((await admin.get(`/api/settings/${name}`)).body.value).toBe(value);
      }
      expect((await admin.put('/api/settings', { settings: { [name]: null } })).status).toBe(200);
    });
  }

  it('a value below the minimum that arrives another way (sync) is not in force: the default is', async () => {
    await query(
      t.db,
      "INSERT INTO setting (name, value, scope, created_at, updated_at, hlc) VALUES ('tasks.maxAssignedPerDriver', '0', 'site', 0, 0, 'x')",
    );
    t.services.settings.invalidate();
    expect(await t.services.settings.get('tasks.maxAssignedPerDriver')).toBe(1);
    const one = await admin.get('/api/settings/tasks.maxAssignedPerDriver');
    expect(one.body).toMatchObject({ value: 1, isDefault: true });
  });
});
