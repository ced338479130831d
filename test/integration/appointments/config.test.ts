import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const WEEKDAYS = { '1': [{ from: '06:00', to: '18:00' }], '5': [{ from: '06:00', to: '12:00' }] };

/** A yard's scheduling config over HTTP (docs/domain.md "Appointments", docs/api.md "Appointments"). */
describe.each(TEST_DIALECTS)('scheduling config (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardId: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    yardId = (await seed(admin).yard()).id;
  });
  afterAll(() => t.close());

  it('shows the defaults (version 0) until saved, then saves with If-Match and answers 412 on a stale one', async () => {
    const before = await admin.get(`/api/appointment/config/${yardId}`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      yardId,
      enabled: false,
      openHours: {},
      closedDates: [],
      slotMinutes: 15,
      leadTimeMinMinutes: 120,
      leadTimeMaxDays: 30,
      noShowAfterMinutes: 60,
      version: 0,
    });

    const body = {
      enabled: true,
      openHours: WEEKDAYS,
      closedDates: ['2027-01-01', '2026-12-25', '2027-01-01'],
    };
    const saved = await admin.put(`/api/appointment/config/${yardId}`, body, { 'if-match': '"v0"' });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.headers.get('etag')).toBe('"v1"');
    expect(saved.body).toMatchObject({ enabled: true, openHours: WEEKDAYS, slotMinutes: 15, version: 1 });
    // Closed dates are kept once each, in order.
    expect(saved.body.closedDates).toEqual(['2026-12-25', '2027-01-01']);
    const stored = await query(
      t.db,
      'SELECT enabled, slot_minutes FROM scheduling_config WHERE yard_id = ?',
      yardId,
    );
    expect(stored).toEqual([{ enabled: 1, slot_minutes: 15 }]);

    const stale = await admin.put(
      `/api/appointment/config/${yardId}`,
      { ...body, slotMinutes: 30 },
      { 'if-match': '"v0"' },
    );
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('precondition-failed');
    const next = await admin.put(
      `/api/appointment/config/${yardId}`,
      { ...body, slotMinutes: 30 },
      { 'if-match': '"v1"' },
    );
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ slotMinutes: 30, version: 2 });
    expect((await admin.get(`/api/appointment/config/${yardId}`)).body.slotMinutes).toBe(30);
  });

  it('refuses inconsistent numbers and empty spans with field codes, and changes nothing', async () => {
    const other = (await seed(admin).yard()).id;
    const bad = await admin.put(`/api/appointment/config/${other}`, {
      enabled: true,
      openHours: { '2': [{ from: '10:00', to: '09:00' }] },
      lateGraceMinutes: 30,
      noShowAfterMinutes: 20,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'noShowAfterMinutes', code: 'below-late-grace' }),
        expect.objectContaining({ path: 'openHours.2.0', code: 'empty-span' }),
      ]),
    );
    const offGrid = await admin.put(`/api/appointment/config/${other}`, {
      enabled: true,
      openHours: {},
      slotMinutes: 4,
    });
    expect(offGrid.status).toBe(400);
    expect(await query(t.db, 'SELECT yard_id FROM scheduling_config WHERE yard_id = ?', other)).toEqual([]);
  });

  it('lets staff read and only admins and dispatchers write; another yard is 404', async () => {
    const viewer = await clientWithRole(admin, 'viewer');
    expect((await viewer.get(`/api/appointment/config/${yardId}`)).status).toBe(200);
    const refused = await viewer.put(`/api/appointment/config/${yardId}`, { enabled: false, openHours: {} });
    expect(refused.status).toBe(403);
    const otherYard = (await seed(admin).yard()).id;
    const scoped = await clientWithRole(admin, 'dispatcher', { yardIds: [otherYard] });
    expect((await scoped.get(`/api/appointment/config/${yardId}`)).status).toBe(404);
    expect(
      (await scoped.put(`/api/appointment/config/${yardId}`, { enabled: false, openHours: {} })).status,
    ).toBe(404);
    expect(
      (await scoped.put(`/api/appointment/config/${otherYard}`, { enabled: false, openHours: {} })).status,
    ).toBe(200);
    expect((await admin.get('/api/appointment/config/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f')).status).toBe(
      404,
    );
  });
});
