import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const UNKNOWN_ID = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';

/** The cloud's drivers on each database (docs/architecture.md "Two databases, and several cloud nodes"): one suite, SQLite and PostgreSQL. */
describe.each(TEST_DIALECTS)('drivers (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse('2026-03-10T23:30:00Z'));

  beforeAll(async () => {
    t = await startTestApp({ dialect, clock, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    // A registered site: the cloud logs organisation-wide records (drivers) for every site.
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

  const count = async (table: string) =>
    (await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

  async function carrier(name: string, status: 'active' | 'blocked' = 'active') {
    const res = await admin.post('/api/carrier', { name, status });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  async function driver(body: Record<string, unknown>) {
    const res = await admin.post('/api/driver', { kind: 'yard', firstName: 'Pat', lastName: 'Doe', ...body });
    expect(res.status, res.text).toBe(201);
    return res.body;
  }

  describe('drivers: create and read', () => {
    it('registers a yard driver with code and PIN; the PIN is stored only as a scrypt hash', async () => {
      const res = await admin.post('/api/driver', {
        kind: 'yard',
        firstName: 'Ana',
        lastName: 'Silva',
        phone: '+351912345678',
        licenseNumber: 'ab-123 456',
        licenseRegion: 'pt',
        licenseExpiresOn: '2030-01-31',
        driverCode: 'ANA01',
        pin: '4321',
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('etag')).toBe('"v1"');
      expect(res.headers.get('location')).toBe(`/api/driver/${res.body.id}`);
      expect(res.body).toMatchObject({
        kind: 'yard',
        carrierId: null,
        licenseNumber: 'AB123456',
        licenseRegion: 'PT',
        status: 'active',
        driverCode: 'ANA01',
        hasPin: true,
        version: 1,
      });
      expect(res.text).not.toMatch(/"pin(Hash)?"/);
      const [stored] = await query(t.db, 'SELECT pin_hash FROM driver WHERE id = ?', res.body.id);
      expect(stored.pin_hash).toMatch(/^scrypt\$/);
      expect(stored.pin_hash).not.toContain('4321');

      const got = await admin.get(`/api/driver/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
      expect(got.text).not.toContain('pinHash');

      const log = await query(
        t.db,
        "SELECT op, data FROM change_log WHERE peer = 'site-a' AND entity = 'driver' AND entity_id = ?",
        res.body.id,
      );
      expect(log.map((l) => l.op)).toEqual(['upsert']);
    });

    it('carrier drivers need a known carrier; yard-only fields are refused for them', async () => {
      const before = await count('driver');
      const noCarrier = await admin.post('/api/driver', { kind: 'carrier', firstName: 'A', lastName: 'B' });
      expect(noCarrier.status).toBe(400);
      expect(noCarrier.body.errors.map((e: any) => e.path)).toEqual(['body.carrierId']);
      const unknown = await admin.post('/api/driver', {
        kind: 'carrier',
        carrierId: UNKNOWN_ID,
        firstName: 'A',
        lastName: 'B',
      });
      expect(unknown.status).toBe(404);
      const carrierId = await carrier('Road Co');
      const withPin = await admin.post('/api/driver', {
        kind: 'carrier',
        carrierId,
        firstName: 'A',
        lastName: 'B',
        driverCode: 'X1',
        pin: '1234',
      });
      expect(withPin.status).toBe(400);
      expect(withPin.body.errors.map((e: any) => e.path)).toEqual(['body.driverCode', 'body.pin']);
      expect(await count('driver')).toBe(before);
      const ok = await admin.post('/api/driver', {
        kind: 'carrier',
        carrierId,
        firstName: 'A',
        lastName: 'B',
      });
      expect(ok.status).toBe(201);
      expect(ok.body.carrierId).toBe(carrierId);
    });

    it('bad input is 400 per field and writes nothing', async () => {
      const before = await count('driver');
      const bad = await admin.post('/api/driver', {
        kind: 'truck',
        firstName: '',
        lastName: 'B',
        phone: '0049 170',
        licenseExpiresOn: '31.12.2030',
        pin: '12',
        driverCode: 'a b',
        extra: true,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('validation-failed');
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining([
          'body.kind',
          'body.firstName',
          'body.phone',
          'body.licenseExpiresOn',
          'body.pin',
          'body.driverCode',
        ]),
      );
      const halfLicence = await admin.post('/api/driver', {
        kind: 'yard',
        firstName: 'A',
        lastName: 'B',
        licenseNumber: 'Z1',
      });
      expect(halfLicence.status).toBe(400);
      expect(halfLicence.body.errors[0].path).toBe('body.licenseRegion');
      const pinNoCode = await admin.post('/api/driver', {
        kind: 'yard',
        firstName: 'A',
        lastName: 'B',
        pin: '1234',
      });
      expect(pinNoCode.status).toBe(400);
      expect(pinNoCode.body.errors[0].path).toBe('body.driverCode');
      expect(await count('driver')).toBe(before);
      expect((await admin.get('/api/driver/not-a-uuid')).status).toBe(400);
      expect((await admin.get(`/api/driver/${UNKNOWN_ID}`)).status).toBe(404);
    });

    it('duplicate driver code or licence is 409 duplicate and writes nothing', async () => {
      const first = await driver({ driverCode: 'DUP1', licenseNumber: 'DL777', licenseRegion: 'US-TX' });
      const before = await count('driver');
      const code = await admin.post('/api/driver', {
        kind: 'yard',
        firstName: 'X',
        lastName: 'Y',
        driverCode: 'DUP1',
      });
      expect(code.status).toBe(409);
      expect(code.body).toMatchObject({ code: 'duplicate', existingId: first.id });
      const licence = await admin.post('/api/driver', {
        kind: 'yard',
        firstName: 'X',
        lastName: 'Y',
        licenseNumber: 'dl-777',
        licenseRegion: 'us-tx',
      });
      expect(licence.status).toBe(409);
      expect(licence.body.code).toBe('duplicate');
      expect(await count('driver')).toBe(before);
    });
  });

  describe('drivers: list, check, search', () => {
    it('lists with filters and keyset paging', async () => {
      const carrierId = await carrier('List Haulers');
      const made = [];
      for (const name of ['Lena', 'Lars', 'Lotte'])
        made.push(await driver({ kind: 'carrier', carrierId, firstName: name, lastName: 'Listed' }));
      const first = await admin.get(`/api/driver?carrierId=${carrierId}&limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.items.map((d: any) => d.id)).toEqual([made[0].id, made[1].id]);
      const second = await admin.get(
        `/api/driver?carrierId=${carrierId}&limit=2&cursor=${first.body.nextCursor}`,
      );
      expect(second.body.items.map((d: any) => d.id)).toEqual([made[2].id]);
      expect(second.body.nextCursor).toBeNull();
      const q = await admin.get('/api/driver?q=lotte%20list');
      expect(q.body.items.map((d: any) => d.firstName)).toEqual(['Lotte']);
      // Wildcards in the text are literal.
      expect((await admin.get('/api/driver?q=%25')).body.items).toEqual([]);
      expect((await admin.get('/api/driver?q=l_tte')).body.items).toEqual([]);
      const yardOnly = await admin.get('/api/driver?kind=yard&limit=500');
      expect(yardOnly.body.items.every((d: any) => d.kind === 'yard')).toBe(true);
      expect((await admin.get('/api/driver?status=gone')).status).toBe(400);
    });

    it('check: allowed, expired licence, blocked driver, blocked carrier, unknown', async () => {
      const ok = await driver({
        firstName: 'Check',
        lastName: 'Ok',
        phone: '+4917011112222',
        licenseNumber: 'CHK1',
        licenseRegion: 'DE',
        licenseExpiresOn: '2026-03-10',
      });
      // The clock says 2026-03-10T23:30Z: a licence expiring that (UTC) day is still valid.
      const byLicence = await admin.get('/api/driver/check?licenseNumber=chk-1&licenseRegion=de');
      expect(byLicence.status).toBe(200);
      expect(byLicence.body).toMatchObject({ known: true, allowed: true, reasons: [] });
      expect(byLicence.body.driver.id).toBe(ok.id);
      // "+" unencoded arrives as a space; both spellings find the driver.
      for (const phone of ['%2B4917011112222', '+4917011112222', '4917011112222']) {
        const byPhone = await admin.get(`/api/driver/check?phone=${phone}`);
        expect(byPhone.body.driver?.id, phone).toBe(ok.id);
      }

      clock.advance(60 * 60 * 1000); // now 2026-03-11 UTC
      const expired = await admin.get('/api/driver/check?licenseNumber=CHK1&licenseRegion=DE');
      expect(expired.body).toMatchObject({ known: true, allowed: false, reasons: ['license-expired'] });
      expect(await t.services.drivers.checkById(ok.id)).toEqual({
        known: true,
        allowed: false,
        reasons: ['license-expired'],
      });

      const blockedCarrier = await carrier('Bad Carrier', 'blocked');
      const cd = await driver({
        kind: 'carrier',
        carrierId: blockedCarrier,
        firstName: 'Cee',
        lastName: 'Dee',
        phone: '+4917099998888',
        status: 'blocked',
      });
      const both = await admin.get('/api/driver/check?phone=%2B4917099998888');
      expect(both.body).toMatchObject({
        known: true,
        allowed: false,
        reasons: ['driver-blocked', 'carrier-blocked'],
      });
      expect((await t.services.drivers.checkById(cd.id)).reasons).toEqual([
        'driver-blocked',
        'carrier-blocked',
      ]);

      const unknown = await admin.get('/api/driver/check?phone=%2B10000000000');
      expect(unknown.body).toEqual({ known: false, allowed: false, reasons: ['not-registered'] });
      expect(await t.services.drivers.checkById(UNKNOWN_ID)).toEqual({
        known: false,
        allowed: false,
        reasons: ['not-registered'],
      });
    });

    it('check by driverId: that very driver, even one without licence or phone, as the gate will check it', async () => {
      const blockedCarrier = await carrier('Id Check Carrier', 'blocked');
      const bare = await driver({
        kind: 'carrier',
        carrierId: blockedCarrier,
        firstName: 'No',
        lastName: 'Papers',
      });
      const byId = await admin.get(`/api/driver/check?driverId=${bare.id}`);
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({ known: true, allowed: false, reasons: ['carrier-blocked'] });
      expect(byId.body.driver.id).toBe(bare.id);
      const unknown = await admin.get(`/api/driver/check?driverId=${UNKNOWN_ID}`);
      expect(unknown.body).toEqual({ known: false, allowed: false, reasons: ['not-registered'] });
      const bad = await admin.get('/api/driver/check?driverId=nope');
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('query.driverId');
    });

    it('check needs licence number + region, or phone', async () => {
      const none = await admin.get('/api/driver/check');
      expect(none.status).toBe(400);
      expect(none.body.errors[0].path).toBe('query');
      const half = await admin.get('/api/driver/check?licenseNumber=X1');
      expect(half.status).toBe(400);
      expect(half.body.errors[0].path).toBe('query.licenseRegion');
      const badPhone = await admin.get('/api/driver/check?phone=12ab');
      expect(badPhone.status).toBe(400);
      expect(badPhone.body.errors[0].path).toBe('query.phone');
    });

    it('search ranks exact licence/phone, then name prefix, then contains', async () => {
      const exact = await driver({
        firstName: 'Zed',
        lastName: 'Other',
        licenseNumber: 'MORA',
        licenseRegion: 'FR',
      });
      const prefix = await driver({ firstName: 'Morales', lastName: 'Juan' });
      const contains = await driver({ firstName: 'Ximena', lastName: 'Amora' });
      const res = await admin.get('/api/driver/search?q=mora');
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: any) => [i.score, i.driver.id])).toEqual([
        [3, exact.id],
        [2, prefix.id],
        [1, contains.id],
      ]);
      const phone = await driver({ firstName: 'Phone', lastName: 'Person', phone: '+33612345678' });
      const byPhone = await admin.get('/api/driver/search?q=%2B33612345678');
      expect(byPhone.body.items[0]).toMatchObject({ score: 3, driver: { id: phone.id } });
      const partial = await admin.get('/api/driver/search?q=612345');
      expect(partial.body.items.map((i: any) => i.driver.id)).toEqual([phone.id]);
      expect((await admin.get('/api/driver/search?q=mora&limit=1')).body.items).toHaveLength(1);
      // Beyond ASCII, the name is found as typed (lower() changes ASCII letters only, on both databases).
      const umlaut = await driver({ firstName: 'Ömer', lastName: 'Öztürk' });
      const byName = await admin.get(`/api/driver/search?q=${encodeURIComponent('Öztü')}`);
      expect(byName.body.items.map((i: any) => [i.score, i.driver.id])).toEqual([[2, umlaut.id]]);
      expect((await admin.get('/api/driver/search')).status).toBe(400);
    });
  });

  describe('drivers: update, block, access', () => {
    it('PATCH honours If-Match, resets the PIN and signs the driver out', async () => {
      const d = await driver({ driverCode: 'PINNY', pin: '1111' });
      const login = await admin
        .as(undefined)
        .post('/api/auth/driver-login', { driverCode: 'PINNY', pin: '1111' });
      expect(login.status).toBe(200);
      const self = admin.as(login.body.token);
      expect((await self.get(`/api/driver/${d.id}`)).status).toBe(200);

      const stale = await admin.patch(`/api/driver/${d.id}`, { pin: '2222' }, { 'if-match': '"v9"' });
      expect(stale.status).toBe(412);
      const reset = await admin.patch(
        `/api/driver/${d.id}`,
        { pin: '2222', notes: 'new pin' },
        { 'if-match': '"v1"' },
      );
      expect(reset.status).toBe(200);
      expect(reset.headers.get('etag')).toBe('"v2"');
      expect(reset.body).toMatchObject({ version: 2, hasPin: true, notes: 'new pin' });
      expect((await self.get(`/api/driver/${d.id}`)).status).toBe(401);
      const relogin = await admin
        .as(undefined)
        .post('/api/auth/driver-login', { driverCode: 'PINNY', pin: '2222' });
      expect(relogin.status).toBe(200);

      const bad = await admin.patch(`/api/driver/${d.id}`, { kind: 'carrier' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual([
        'body.carrierId',
        'body.driverCode',
        'body.pin',
      ]);
      expect((await admin.patch(`/api/driver/${UNKNOWN_ID}`, { notes: 'x' })).status).toBe(404);
      const log = await query(
        t.db,
        "SELECT op FROM change_log WHERE peer = 'site-a' AND entity = 'driver' AND entity_id = ?",
        d.id,
      );
      expect(log).toHaveLength(2);
    });

    it('DELETE blocks the driver, keeps the record and revokes its sessions', async () => {
      const d = await driver({ driverCode: 'BLOCKME', pin: '5555' });
      const login = await admin
        .as(undefined)
        .post('/api/auth/driver-login', { driverCode: 'BLOCKME', pin: '5555' });
      const self = admin.as(login.body.token);
      const blocked = await admin.delete(`/api/driver/${d.id}?reason=no%20show`);
      expect(blocked.status).toBe(200);
      expect(blocked.body).toMatchObject({ status: 'blocked', blockedReason: 'no show', version: 2 });
      expect((await self.get(`/api/driver/${d.id}`)).status).toBe(401);
      expect(await query(t.db, 'SELECT status FROM driver WHERE id = ?', d.id)).toEqual([
        { status: 'blocked' },
      ]);
      const again = await admin
        .as(undefined)
        .post('/api/auth/driver-login', { driverCode: 'BLOCKME', pin: '5555' });
      expect(again.status).toBe(401);
      expect((await admin.delete(`/api/driver/${UNKNOWN_ID}`)).status).toBe(404);
      const unblocked = await admin.patch(`/api/driver/${d.id}`, { status: 'active' });
      expect(unblocked.body).toMatchObject({ status: 'active', blockedReason: null });
    });

    it('roles: staff read, admin and gate create, only admin updates and blocks, drivers see only themselves', async () => {
      const viewer = await clientWithRole(admin, 'viewer');
      const gate = await clientWithRole(admin, 'gate');
      const dispatcher = await clientWithRole(admin, 'dispatcher');
      expect((await viewer.get('/api/driver')).status).toBe(200);
      expect((await viewer.get('/api/driver/search?q=a')).status).toBe(200);
      expect((await viewer.post('/api/driver', { kind: 'yard', firstName: 'N', lastName: 'O' })).status).toBe(
        403,
      );
      const walkIn = await gate.post('/api/driver', { kind: 'yard', firstName: 'Walk', lastName: 'In' });
      expect(walkIn.status).toBe(201);
      expect((await gate.patch(`/api/driver/${walkIn.body.id}`, { notes: 'x' })).status).toBe(403);
      expect((await dispatcher.delete(`/api/driver/${walkIn.body.id}`)).status).toBe(403);

      const me = await driver({ driverCode: 'SELF1', pin: '9876' });
      const login = await admin
        .as(undefined)
        .post('/api/auth/driver-login', { driverCode: 'SELF1', pin: '9876' });
      const self = admin.as(login.body.token);
      expect((await self.get(`/api/driver/${me.id}`)).body.id).toBe(me.id);
      expect((await self.get(`/api/driver/${walkIn.body.id}`)).status).toBe(403);
      expect((await self.get('/api/driver')).status).toBe(403);
      expect((await self.get('/api/driver/check?phone=%2B4917011112222')).status).toBe(403);
    });

    it('every driver route is in the OpenAPI document; service helpers for other modules', async () => {
      const doc = (await admin.as(undefined).get('/v3/api-docs')).body;
      for (const [path, methods] of [
        ['/api/driver', ['get', 'post']],
        ['/api/driver/check', ['get']],
        ['/api/driver/search', ['get']],
        ['/api/driver/{id}', ['get', 'patch', 'delete']],
      ] as const) {
        for (const method of methods) expect(doc.paths[path][method].tags).toEqual(['Driver Controller']);
      }
      expect(doc.components.schemas.Driver.properties).not.toHaveProperty('pinHash');
      const d = await driver({ firstName: 'Row', lastName: 'Reader' });
      expect((await t.services.drivers.getRow(d.id)).firstName).toBe('Row');
      await expect(t.services.drivers.getRow(UNKNOWN_ID)).rejects.toMatchObject({ status: 404 });
    });
  });
});
