import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { SETTING_NAMES } from '../../../shared/modules/settings/registry.js';
import { Client, clientWithRole, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

let t: TestApp;
let admin: Client;

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock() });
  admin = new Client(t.url, t.adminToken);
});
afterAll(() => t.close());

const settingRows = () =>
  rows(t.db, 'SELECT name, value, scope, updated_by, version FROM setting ORDER BY name');
const logCount = () => rows(t.db, 'SELECT count(*) AS n FROM change_log')[0].n as number;

describe('settings', () => {
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
    const before = logCount();
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

    const stored = Object.fromEntries(settingRows().map((r) => [r.name, r]));
    expect(JSON.parse(stored['tasks.driverTimeoutSec'].value)).toBe(90);
    expect(stored['attachments.allowedTypes'].scope).toBe('global');
    expect(stored['ui.siteName'].scope).toBe('site');
    const log = rows(t.db, "SELECT entity_id, op FROM change_log WHERE entity = 'setting' ORDER BY seq");
    expect(log.map((l) => l.entity_id)).toEqual([
      'tasks.autoAssign',
      'tasks.driverTimeoutSec',
      'attachments.allowedTypes',
      'ui.siteName',
    ]);
    expect(logCount()).toBe(before + 4);

    // The cache sees the write; the service answers typed values.
    expect(await t.services.settings.get('tasks.autoAssign')).toBe(false);
    expect(await t.services.settings.get('tasks.driverTimeoutSec')).toBe(90);
    expect(await t.services.settings.get('gate.maxActuationsPerMinute')).toBe(12);

    const one = await admin.get('/api/settings/tasks.driverTimeoutSec');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ value: 90, default: 120, isDefault: false });

    // Same value again: nothing to log. A change updates the row in place.
    await admin.put('/api/settings', { settings: { 'tasks.driverTimeoutSec': 90 } });
    expect(logCount()).toBe(before + 4);
    await admin.put('/api/settings', { settings: { 'tasks.driverTimeoutSec': 300 } });
    expect(rows(t.db, "SELECT value, version FROM setting WHERE name = 'tasks.driverTimeoutSec'")[0]).toEqual(
      {
        value: '300',
        version: 2,
      },
    );
    expect(await t.services.settings.get('tasks.driverTimeoutSec')).toBe(300);
  });

  it('null resets a setting to its default (the stored row is deleted, with a tombstone)', async () => {
    await admin.put('/api/settings', { settings: { 'locations.retentionDays': 7 } });
    expect(await t.services.settings.get('locations.retentionDays')).toBe(7);
    const reset = await admin.put('/api/settings', { settings: { 'locations.retentionDays': null } });
    expect(reset.status).toBe(200);
    expect(reset.body.items[0]).toMatchObject({ value: 30, isDefault: true, updatedAt: null });
    expect(rows(t.db, "SELECT name FROM setting WHERE name = 'locations.retentionDays'")).toHaveLength(0);
    const log = rows(
      t.db,
      "SELECT op FROM change_log WHERE entity = 'setting' AND entity_id = 'locations.retentionDays' ORDER BY seq",
    );
    expect(log.map((l) => l.op)).toEqual(['upsert', 'delete']);
    expect(await t.services.settings.get('locations.retentionDays')).toBe(30);
  });

  it('any unknown name or bad value is 400 listing each, and nothing is stored', async () => {
    const beforeRows = settingRows();
    const beforeLog = logCount();
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
    expect(settingRows()).toEqual(beforeRows);
    expect(logCount()).toBe(beforeLog);
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
    expect(settingRows()).toEqual(beforeRows);
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
    const before = logCount();
    expect((await viewer.put('/api/settings', { settings: { 'ui.siteName': 'X' } })).status).toBe(403);
    expect((await dispatcher.put('/api/settings', { settings: { 'ui.siteName': 'X' } })).status).toBe(403);
    expect(logCount()).toBe(before);
    expect((await admin.as(undefined).get('/api/settings')).status).toBe(401);
  });

  it('a stored value the registry no longer accepts falls back to the default', async () => {
    t.db.sqlite
      .prepare(
        "INSERT INTO setting (name, value, scope, created_at, updated_at, hlc) VALUES ('gate.maxActuationsPerMinute', '9999', 'site', 0, 0, 'x')",
      )
      .run();
    t.services.settings.invalidate();
    expect(await t.services.settings.get('gate.maxActuationsPerMinute')).toBe(12);
    const one = await admin.get('/api/settings/gate.maxActuationsPerMinute');
    expect(one.body).toMatchObject({ value: 12, isDefault: true });
  });
});
