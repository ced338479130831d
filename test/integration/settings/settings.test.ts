import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { SETTING_NAMES } from '../../../shared/modules/settings/registry.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const SITE = 'site-a';

/** The settings at the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes"): the organisation's (global) ones are written there. */
describe.each(TEST_DIALECTS)('settings at the cloud (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp({ dialect, clock: new ManualClock(), env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    // A registered site: the cloud logs its global settings for every site.
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      SITE,
      'Site A',
      '$7$unused',
      Date.now(),
    );
  });
  afterAll(() => t.close());

  const settingRows = () =>
    query(t.db, 'SELECT name, value, scope, updated_by, version FROM setting ORDER BY name');
  const logCount = async () => (await query(t.db, 'SELECT count(*) AS n FROM change_log'))[0].n as number;

  it('lists every registered setting with its default, paged by name', async () => {
    const all = await admin.get('/api/settings?limit=500');
    expect(all.status).toBe(200);
    const names = all.body.items.map((s: any) => s.name);
    expect(names).toEqual(SETTING_NAMES);
    expect(names).toEqual(
      expect.arrayContaining([
        'tasks.autoAssign',
        'tasks.driverTimeoutSec',
        'tasks.maxAssignedPerDriver',
        'locations.retentionDays',
        'gate.maxActuationsPerMinute',
        'gate.requireDriverCheck',
        'attachments.maxBytes',
        'attachments.allowedTypes',
        'dashboard.errorWindowMinutes',
        'ui.siteName',
      ]),
    );
    const byName = Object.fromEntries(all.body.items.map((s: any) => [s.name, s]));
    expect(byName['tasks.driverTimeoutSec']).toMatchObject({
      value: 120,
      default: 120,
      isDefault: true,
      scope: 'site',
      updatedAt: null,
      updatedBy: null,
    });
    expect(byName['attachments.maxBytes'].value).toBe(10 * 1024 * 1024);
    expect(byName['attachments.allowedTypes'].value).toEqual([
      'image/jpeg',
      'image/png',
      'image/webp',
      'application/pdf',
    ]);
    expect(byName['ui.siteName'].value).toBe('Yard');
    expect(typeof byName['gate.requireDriverCheck'].description).toBe('string');

    const first = await admin.get('/api/settings?limit=4');
    expect(first.body.items).toHaveLength(4);
    const rest = await admin.get(`/api/settings?limit=100&cursor=${first.body.nextCursor}`);
    expect([...first.body.items, ...rest.body.items].map((s: any) => s.name)).toEqual(SETTING_NAMES);
    expect(rest.body.nextCursor).toBeNull();
  });

  it('PUT stores several values in one go, each through change capture', async () => {
    // The organisation's (global) settings: a site's own are written at its edge (below).
    const before = await logCount();
    const put = await admin.put('/api/settings', {
      settings: {
        'attachments.maxBytes': 2048,
        'dashboard.errorWindowMinutes': 90,
        'attachments.allowedTypes': ['IMAGE/PNG', 'application/pdf'],
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.items.map((s: any) => [s.name, s.value, s.isDefault])).toEqual([
      ['attachments.maxBytes', 2048, false],
      ['dashboard.errorWindowMinutes', 90, false],
      ['attachments.allowedTypes', ['image/png', 'application/pdf'], false],
    ]);
    expect(put.body.items[0].updatedBy).toBeTruthy();
    expect(put.body.items[0].updatedAt).toBe('2026-01-15T12:00:00.000Z');

    const stored = Object.fromEntries((await settingRows()).map((r) => [r.name, r]));
    expect(JSON.parse(stored['dashboard.errorWindowMinutes'].value)).toBe(90);
    expect(stored['attachments.allowedTypes'].scope).toBe('global');
    const log = await query(
      t.db,
      "SELECT entity_id, op FROM change_log WHERE peer = ? AND entity = 'setting' ORDER BY seq",
      SITE,
    );
    expect(log.map((l) => l.entity_id)).toEqual([
      'attachments.maxBytes',
      'dashboard.errorWindowMinutes',
      'attachments.allowedTypes',
    ]);
    expect(await logCount()).toBe(before + 3);

    // The cache sees the write; the service answers typed values.
    expect(await t.services.settings.get('attachments.maxBytes')).toBe(2048);
    expect(await t.services.settings.get('dashboard.errorWindowMinutes')).toBe(90);
    expect(await t.services.settings.get('billing.autoDraftDay')).toBe(0);

    const one = await admin.get('/api/settings/dashboard.errorWindowMinutes');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ value: 90, default: 1440, isDefault: false });

    // Same value again: nothing to log. A change updates the row in place.
    await admin.put('/api/settings', { settings: { 'dashboard.errorWindowMinutes': 90 } });
    expect(await logCount()).toBe(before + 3);
    await admin.put('/api/settings', { settings: { 'dashboard.errorWindowMinutes': 300 } });
    expect(
      (
        await query(t.db, "SELECT value, version FROM setting WHERE name = 'dashboard.errorWindowMinutes'")
      )[0],
    ).toEqual({ value: '300', version: 2 });
    expect(await t.services.settings.get('dashboard.errorWindowMinutes')).toBe(300);
  });

  it('null resets a setting to its default (the stored row is deleted, with a tombstone)', async () => {
    await admin.put('/api/settings', { settings: { 'billing.autoDraftDay': 7 } });
    expect(await t.services.settings.get('billing.autoDraftDay')).toBe(7);
    const reset = await admin.put('/api/settings', { settings: { 'billing.autoDraftDay': null } });
    expect(reset.status).toBe(200);
    expect(reset.body.items[0]).toMatchObject({ value: 0, isDefault: true, updatedAt: null });
    expect(await query(t.db, "SELECT name FROM setting WHERE name = 'billing.autoDraftDay'")).toHaveLength(0);
    const log = await query(
      t.db,
      "SELECT op FROM change_log WHERE peer = ? AND entity = 'setting' AND entity_id = 'billing.autoDraftDay' ORDER BY seq",
      SITE,
    );
    expect(log.map((l) => l.op)).toEqual(['upsert', 'delete']);
    expect(await t.services.settings.get('billing.autoDraftDay')).toBe(0);
  });

  it('any unknown name or bad value is 400 listing each, and nothing is stored', async () => {
    const beforeRows = await settingRows();
    const beforeLog = await logCount();
    const bad = await admin.put('/api/settings', {
      settings: {
        'gate.requireDriverCheck': false, // valid, but must not be stored with the bad ones
        'tasks.autoAssign': 'yes',
        'tasks.maxAssignedPerDriver': 21,
        'attachments.maxBytes': 512,
        'attachments.allowedTypes': ['image/png', 'not a type'],
        'dashboard.errorWindowMinutes': 1.5,
        'ui.siteName': '',
        'no.suchSetting': 1,
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation-failed');
    expect(bad.body.errors.map((e: any) => e.path)).toEqual([
      'body.settings.tasks.autoAssign',
      'body.settings.tasks.maxAssignedPerDriver',
      'body.settings.attachments.maxBytes',
      'body.settings.attachments.allowedTypes[1]',
      'body.settings.dashboard.errorWindowMinutes',
      'body.settings.ui.siteName',
      'body.settings.no.suchSetting',
    ]);
    expect(bad.body.errors.at(-1)).toMatchObject({ message: 'unknown setting', code: 'unknown-setting' });
    expect(await settingRows()).toEqual(beforeRows);
    expect(await logCount()).toBe(beforeLog);
    expect(await t.services.settings.get('gate.requireDriverCheck')).toBe(true);

    for (const body of [
      {},
      { settings: {} },
      { settings: [] },
      { settings: { 'ui.siteName': 'x' }, extra: 1 },
    ]) {
      const res = await admin.put('/api/settings', body);
      expect(res.status).toBe(400);
    }
    const limits = await admin.put('/api/settings', {
      settings: { 'attachments.maxBytes': 50 * 1024 * 1024 + 1, 'tasks.driverTimeoutSec': 9 },
    });
    expect(limits.body.errors.map((e: any) => e.path)).toEqual([
      'body.settings.attachments.maxBytes',
      'body.settings.tasks.driverTimeoutSec',
    ]);
    expect(await settingRows()).toEqual(beforeRows);
  });

  it('one setting: unknown well-formed name 404, malformed name 400', async () => {
    const one = await admin.get('/api/settings/gate.maxActuationsPerMinute');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: 'gate.maxActuationsPerMinute', value: 12, isDefault: true });
    const unknown = await admin.get('/api/settings/gate.noSuchThing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not-found');
    for (const name of ['Bad Name', 'nodots', 'tasks..x', '.tasks', 'tasks.auto-assign']) {
      const res = await admin.get(`/api/settings/${encodeURIComponent(name)}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('params.name');
    }
    expect((await admin.get('/api/settings?cursor=garbage')).body.code).toBe('invalid-cursor');
  });

  it('the routes are in the OpenAPI document under Settings Controller', async () => {
    const doc = (await admin.as(undefined).get('/v3/api-docs')).body;
    expect(doc.paths['/api/settings'].get.tags).toEqual(['Settings Controller']);
    expect(doc.paths['/api/settings'].put.tags).toEqual(['Settings Controller']);
    expect(doc.paths['/api/settings/{name}'].get.tags).toEqual(['Settings Controller']);
    expect(doc.components.schemas).toHaveProperty('SettingsUpdate');
  });

  it('roles: staff read, only admins write', async () => {
    const viewer = await clientWithRole(admin, 'viewer');
    const dispatcher = await clientWithRole(admin, 'dispatcher');
    expect((await viewer.get('/api/settings')).status).toBe(200);
    expect((await viewer.get('/api/settings/ui.siteName')).status).toBe(200);
    const before = await logCount();
    expect((await viewer.put('/api/settings', { settings: { 'ui.siteName': 'X' } })).status).toBe(403);
    expect((await dispatcher.put('/api/settings', { settings: { 'ui.siteName': 'X' } })).status).toBe(403);
    expect(await logCount()).toBe(before);
    expect((await admin.as(undefined).get('/api/settings')).status).toBe(401);
  });

  it('a stored value the registry no longer accepts falls back to the default', async () => {
    await query(
      t.db,
      "INSERT INTO setting (name, value, scope, created_at, updated_at, hlc) VALUES ('gate.maxActuationsPerMinute', '9999', 'site', 0, 0, 'x')",
    );
    t.services.settings.invalidate();
    expect(await t.services.settings.get('gate.maxActuationsPerMinute')).toBe(12);
    const one = await admin.get('/api/settings/gate.maxActuationsPerMinute');
    expect(one.body).toMatchObject({ value: 12, isDefault: true });
  });
});

/**
 * A site's own settings are written at its edge (the cloud answers 409 edge-owned); a standalone
 * edge writes both kinds in one request. SQLite: the edge's database.
 */
describe('settings at a standalone edge (sqlite)', () => {
  let t: TestApp<AppDatabase>;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp({ clock: new ManualClock() });
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(() => t.close());

  const settingRows = () =>
    query(t.db, 'SELECT name, value, scope, updated_by, version FROM setting ORDER BY name');
  const logCount = async () => (await query(t.db, 'SELECT count(*) AS n FROM change_log'))[0].n as number;

  it('PUT stores several values in one go, each through change capture', async () => {
    const before = await logCount();
    const put = await admin.put('/api/settings', {
      settings: {
        'tasks.autoAssign': false,
        'tasks.driverTimeoutSec': 90,
        'attachments.allowedTypes': ['IMAGE/PNG', 'application/pdf'],
        'ui.siteName': '  North Yard ',
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.items.map((s: any) => [s.name, s.value, s.isDefault])).toEqual([
      ['tasks.autoAssign', false, false],
      ['tasks.driverTimeoutSec', 90, false],
      ['attachments.allowedTypes', ['image/png', 'application/pdf'], false],
      ['ui.siteName', 'North Yard', false],
    ]);
    expect(put.body.items[0].updatedBy).toBeTruthy();
    expect(put.body.items[0].updatedAt).toBe('2026-01-15T12:00:00.000Z');

    const stored = Object.fromEntries((await settingRows()).map((r) => [r.name, r]));
    expect(JSON.parse(stored['tasks.driverTimeoutSec'].value)).toBe(90);
    expect(stored['attachments.allowedTypes'].scope).toBe('global');
    expect(stored['ui.siteName'].scope).toBe('site');
    const log = await query(
      t.db,
      "SELECT entity_id, op FROM change_log WHERE entity = 'setting' ORDER BY seq",
    );
    expect(log.map((l) => l.entity_id)).toEqual([
      'tasks.autoAssign',
      'tasks.driverTimeoutSec',
      'attachments.allowedTypes',
      'ui.siteName',
    ]);
    expect(await logCount()).toBe(before + 4);

    // The cache sees the write; the service answers typed values.
    expect(await t.services.settings.get('tasks.autoAssign')).toBe(false);
    expect(await t.services.settings.get('tasks.driverTimeoutSec')).toBe(90);
    expect(await t.services.settings.get('gate.maxActuationsPerMinute')).toBe(12);

    const one = await admin.get('/api/settings/tasks.driverTimeoutSec');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ value: 90, default: 120, isDefault: false });

    // Same value again: nothing to log. A change updates the row in place.
    await admin.put('/api/settings', { settings: { 'tasks.driverTimeoutSec': 90 } });
    expect(await logCount()).toBe(before + 4);
    await admin.put('/api/settings', { settings: { 'tasks.driverTimeoutSec': 300 } });
    expect(
      (await query(t.db, "SELECT value, version FROM setting WHERE name = 'tasks.driverTimeoutSec'"))[0],
    ).toEqual({
      value: '300',
      version: 2,
    });
    expect(await t.services.settings.get('tasks.driverTimeoutSec')).toBe(300);
  });
});
