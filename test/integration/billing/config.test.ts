import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { effectiveRates } from '../../../shared/modules/billing/config/rates.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { serveLinkedEdge } from './fixture.js';

/**
 * Billing configs over real HTTP (DOMAIN.md "Billing"): a yard's config (currency, tax, grace,
 * default rates) and carrier configs that override rates (null = inherit the yard's).
 */
describe.each(TEST_DIALECTS)('billing config (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let billing: Client;
  let yard: any;
  let otherYard: any;
  let bareYard: any;
  let carrierA: any;
  let carrierB: any;

  const DALLAS = {
    currency: 'USD',
    taxRateBp: 825,
    graceMinutes: 30,
    bookedSpaces: 5,
    spaceMonthlyRate: 15_000,
    overageDailyRate: 2_500,
    moveFee: 1_500,
    gateFee: 500,
    minimumMonthly: 40_000,
  };

  /** Both config tables, whole: what "nothing changed" compares. */
  async function configRows() {
    return {
      yards: await query(t.db, 'SELECT * FROM billing_yard_config ORDER BY yard_id'),
      carriers: await query(t.db, 'SELECT * FROM billing_carrier_config ORDER BY id'),
    };
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    billing = await clientWithRole(admin, 'billing');
    const api = seed(admin);
    yard = await api.yard({ timeZone: 'America/Chicago' });
    otherYard = await api.yard();
    bareYard = await api.yard();
    carrierA = await api.carrier({ scac: 'LSLG' });
    carrierB = await api.carrier();
  });
  afterAll(() => t.close());

  describe('yard billing config', () => {
    it('POST creates it (201, defaults for what is left out), GET reads it; a second POST is 409 and changes nothing', async () => {
      const created = await billing.post('/api/billing/config', { yardId: yard.id, ...DALLAS });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get('location')).toBe(`/api/billing/config/${yard.id}`);
      expect(created.body).toMatchObject({
        yardId: yard.id,
        ...DALLAS,
        issuerName: null,
        paymentTermsDays: 30,
      });
      expect(
        await query(t.db, 'SELECT currency, tax_rate_bp, grace_minutes FROM billing_yard_config'),
      ).toEqual([{ currency: 'USD', tax_rate_bp: 825, grace_minutes: 30 }]);
      expect((await billing.get(`/api/billing/config/${yard.id}`)).body).toEqual(created.body);

      const before = await configRows();
      const again = await admin.post('/api/billing/config', {
        yardId: yard.id,
        currency: 'EUR',
        taxRateBp: 1900,
      });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('billing-config-exists');
      expect(await configRows()).toEqual(before);
    });

    it('bad input is 400 per field and stores nothing: negative or decimal money, unknown or lower-case currency', async () => {
      const before = await configRows();
      const bad = await billing.post('/api/billing/config', {
        yardId: otherYard.id,
        currency: 'ABC',
        taxRateBp: -1,
        graceMinutes: -5,
        bookedSpaces: -1,
        spaceMonthlyRate: 150.5,
        moveFee: -100,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('validation-failed');
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining([
          'body.currency',
          'body.taxRateBp',
          'body.graceMinutes',
          'body.bookedSpaces',
          'body.spaceMonthlyRate',
          'body.moveFee',
        ]),
      );
      const lower = await billing.post('/api/billing/config', {
        yardId: otherYard.id,
        currency: 'usd',
        taxRateBp: 0,
      });
      expect(lower.status).toBe(400);
      expect(lower.body.errors[0].path).toBe('body.currency');
      const missing = await billing.post('/api/billing/config', { yardId: otherYard.id });
      expect(missing.body.errors.map((e: any) => e.path).sort()).toEqual(['body.currency', 'body.taxRateBp']);
      const put = await billing.put(`/api/billing/config/${otherYard.id}`, {
        currency: 'USD',
        taxRateBp: 0,
        gateFee: -1,
      });
      expect(put.status).toBe(400);
      expect(await configRows()).toEqual(before);
    });

    it('an unknown yard is 404 (nothing stored); a malformed id 400; a yard without config 404', async () => {
      const before = await configRows();
      const unknown = newId();
      const post = await billing.post('/api/billing/config', {
        yardId: unknown,
        currency: 'USD',
        taxRateBp: 0,
      });
      expect(post.status).toBe(404);
      expect(post.body.code).toBe('not-found');
      expect(
        (await billing.put(`/api/billing/config/${unknown}`, { currency: 'USD', taxRateBp: 0 })).status,
      ).toBe(404);
      expect((await billing.get(`/api/billing/config/${unknown}`)).status).toBe(404);
      expect((await billing.get(`/api/billing/config/${unknown}/yard`)).status).toBe(404);
      expect((await billing.delete(`/api/billing/config/${unknown}`)).status).toBe(404);
      expect((await billing.get('/api/billing/config/not-a-uuid')).status).toBe(400);
      const none = await billing.get(`/api/billing/config/${bareYard.id}`);
      expect(none.status).toBe(404);
      expect(none.body.detail).toContain('Billing config of yard');
      expect((await billing.delete(`/api/billing/config/${bareYard.id}`)).status).toBe(404);
      expect(await configRows()).toEqual(before);
    });

    it('PUT creates (201) then replaces (200) the whole config, keeping createdAt', async () => {
      const first = await billing.put(`/api/billing/config/${otherYard.id}`, {
        currency: 'EUR',
        taxRateBp: 1900,
        moveFee: 900,
        issuerName: 'Rhein Yard GmbH',
      });
      expect(first.status, first.text).toBe(201);
      expect(first.headers.get('location')).toBe(`/api/billing/config/${otherYard.id}`);
      expect(first.body).toMatchObject({ currency: 'EUR', taxRateBp: 1900, moveFee: 900, gateFee: 0 });

      const second = await billing.put(`/api/billing/config/${otherYard.id}`, {
        currency: 'EUR',
        taxRateBp: 700,
        gateFee: 300,
      });
      expect(second.status).toBe(200);
      // Replaced whole: what was left out is back to its default.
      expect(second.body).toMatchObject({ taxRateBp: 700, gateFee: 300, moveFee: 0, issuerName: null });
      expect(second.body.createdAt).toBe(first.body.createdAt);
      expect(
        await query(
          t.db,
          'SELECT tax_rate_bp, move_fee FROM billing_yard_config WHERE yard_id = ?',
          otherYard.id,
        ),
      ).toEqual([{ tax_rate_bp: 700, move_fee: 0 }]);
    });

    it('the yard with its billing status', async () => {
      const configured = await billing.get(`/api/billing/config/${yard.id}/yard`);
      expect(configured.status).toBe(200);
      expect(configured.body).toMatchObject({
        yard: { id: yard.id, code: yard.code, timeZone: 'America/Chicago' },
        configured: true,
        config: { currency: 'USD' },
      });
      expect(configured.body.carriers).toBeTypeOf('number');
      const bare = await billing.get(`/api/billing/config/${bareYard.id}/yard`);
      expect(bare.body).toMatchObject({
        yard: { id: bareYard.id },
        configured: false,
        config: null,
        carriers: 0,
      });
    });
  });

  describe('carrier billing config', () => {
    it('needs the yard’s config first: 409 yard-config-missing, nothing stored', async () => {
      const before = await configRows();
      const post = await billing.post(`/api/billing/config/${bareYard.id}/carrier`, {
        carrierId: carrierA.id,
      });
      expect(post.status).toBe(409);
      expect(post.body.code).toBe('yard-config-missing');
      const put = await billing.put(`/api/billing/config/${bareYard.id}/carrier/${carrierA.id}`, {});
      expect(put.status).toBe(409);
      expect(put.body.code).toBe('yard-config-missing');
      expect(await configRows()).toEqual(before);
    });

    it('POST creates it; its own values are null to inherit and `effective` has what is billed', async () => {
      const created = await billing.post(`/api/billing/config/${yard.id}/carrier`, {
        carrierId: carrierA.id,
        bookedSpaces: 10,
        moveFee: 0,
        billToName: 'Lone Star Logistics AP',
        billToEmail: 'ap@lonestar.example',
      });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get('location')).toBe(`/api/billing/carrier-config/${created.body.id}`);
      expect(created.body).toMatchObject({
        yardId: yard.id,
        carrierId: carrierA.id,
        bookedSpaces: 10,
        spaceMonthlyRate: null,
        moveFee: 0,
        minimumMonthly: null,
        billToEmail: 'ap@lonestar.example',
        // 0 is the carrier's own rate (no move fee), null inherits the yard's.
        effective: {
          currency: 'USD',
          bookedSpaces: 10,
          spaceMonthlyRate: 15_000,
          overageDailyRate: 2_500,
          moveFee: 0,
          gateFee: 500,
          minimumMonthly: 40_000,
        },
      });
      expect(
        await query(
          t.db,
          'SELECT booked_spaces, move_fee, gate_fee FROM billing_carrier_config WHERE id = ?',
          created.body.id,
        ),
      ).toEqual([{ booked_spaces: 10, move_fee: 0, gate_fee: null }]);

      const read = await billing.get(`/api/billing/config/${yard.id}/carrier/${carrierA.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
      expect((await billing.get(`/api/billing/carrier-config/${created.body.id}`)).body).toEqual(
        created.body,
      );
    });

    it('a second config for the carrier in the yard is 409; unknown carrier 404; bad rates 400; nothing changed', async () => {
      const before = await configRows();
      const dup = await billing.post(`/api/billing/config/${yard.id}/carrier`, {
        carrierId: carrierA.id,
        moveFee: 1,
      });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('billing-config-exists');
      const unknown = newId();
      const noCarrier = await billing.post(`/api/billing/config/${yard.id}/carrier`, { carrierId: unknown });
      expect(noCarrier.status).toBe(404);
      expect(noCarrier.body.detail).toContain(`Carrier ${unknown}`);
      expect((await billing.put(`/api/billing/config/${yard.id}/carrier/${unknown}`, {})).status).toBe(404);
      expect((await billing.get(`/api/billing/config/${yard.id}/carrier/${unknown}`)).status).toBe(404);
      // A known carrier without a config in the yard.
      expect((await billing.get(`/api/billing/config/${yard.id}/carrier/${carrierB.id}`)).status).toBe(404);
      expect(
        (await billing.patch(`/api/billing/config/${yard.id}/carrier/${carrierB.id}`, { moveFee: 1 })).status,
      ).toBe(404);
      expect((await billing.delete(`/api/billing/config/${yard.id}/carrier/${carrierB.id}`)).status).toBe(
        404,
      );
      expect((await billing.get(`/api/billing/carrier-config/${unknown}`)).status).toBe(404);
      expect((await billing.patch(`/api/billing/carrier-config/${unknown}`, { moveFee: 1 })).status).toBe(
        404,
      );
      expect((await billing.delete(`/api/billing/carrier-config/${unknown}`)).status).toBe(404);
      const bad = await billing.patch(`/api/billing/config/${yard.id}/carrier/${carrierA.id}`, {
        bookedSpaces: -1,
        overageDailyRate: 12.5,
        gateFee: -3,
        currency: 'USD',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining(['body.bookedSpaces', 'body.overageDailyRate', 'body.gateFee']),
      );
      // The currency is the yard's: a carrier config has none of its own.
      expect(bad.body.errors.some((e: any) => e.message.includes('currency'))).toBe(true);
      expect(await configRows()).toEqual(before);
    });

    it('PATCH changes only what it names (null inherits again); PUT replaces whole, creating (201) when absent', async () => {
      const patched = await billing.patch(`/api/billing/config/${yard.id}/carrier/${carrierA.id}`, {
        gateFee: 250,
        bookedSpaces: null,
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        bookedSpaces: null,
        moveFee: 0,
        gateFee: 250,
        billToName: 'Lone Star Logistics AP',
        effective: { bookedSpaces: 5, moveFee: 0, gateFee: 250 },
      });

      const replaced = await billing.put(`/api/billing/config/${yard.id}/carrier/${carrierA.id}`, {
        spaceMonthlyRate: 14_000,
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({
        id: patched.body.id,
        spaceMonthlyRate: 14_000,
        moveFee: null,
        gateFee: null,
        billToName: null,
        effective: { spaceMonthlyRate: 14_000, moveFee: 1_500, gateFee: 500 },
      });

      const createdB = await billing.put(`/api/billing/config/${yard.id}/carrier/${carrierB.id}`, {
        minimumMonthly: 0,
      });
      expect(createdB.status).toBe(201);
      expect(createdB.body).toMatchObject({
        carrierId: carrierB.id,
        minimumMonthly: 0,
        effective: { minimumMonthly: 0 },
      });
      expect(createdB.headers.get('location')).toBe(`/api/billing/carrier-config/${createdB.body.id}`);

      const byId = await billing.patch(`/api/billing/carrier-config/${createdB.body.id}`, { moveFee: 1_200 });
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({ moveFee: 1_200, minimumMonthly: 0, effective: { moveFee: 1_200 } });
    });

    it('lists: every yard config, with its carrier configs or their carrier ids, paged by yard', async () => {
      const all = await billing.get('/api/billing/config');
      expect(all.status).toBe(200);
      expect(all.body.items.map((c: any) => c.yardId).sort()).toEqual([yard.id, otherYard.id].sort());
      const firstPage = await billing.get('/api/billing/config?limit=1');
      expect(firstPage.body.items).toHaveLength(1);
      const secondPage = await billing.get(`/api/billing/config?limit=1&cursor=${firstPage.body.nextCursor}`);
      expect(secondPage.body.items).toHaveLength(1);
      expect(secondPage.body.nextCursor).toBeNull();

      const withCarriers = await billing.get('/api/billing/config/with-carriers');
      const dallas = withCarriers.body.items.find((c: any) => c.yardId === yard.id);
      expect(dallas.carriers.map((c: any) => c.carrierId).sort()).toEqual([carrierA.id, carrierB.id].sort());
      expect(dallas.carriers[0].effective.currency).toBe('USD');
      expect(withCarriers.body.items.find((c: any) => c.yardId === otherYard.id).carriers).toEqual([]);

      const withIds = await billing.get('/api/billing/config/with-carrier-ids');
      expect(withIds.body.items.find((c: any) => c.yardId === yard.id).carrierIds.sort()).toEqual(
        [carrierA.id, carrierB.id].sort(),
      );
      const one = await billing.get(`/api/billing/config/${yard.id}/with-carriers`);
      expect(one.body).toMatchObject({ yardId: yard.id, currency: 'USD' });
      expect(one.body.carriers).toHaveLength(2);
      expect((await billing.get(`/api/billing/config/${yard.id}/yard`)).body.carriers).toBe(2);
    });

    it('DELETE of a carrier config (by yard and carrier, or by id) removes its row', async () => {
      const b = (await billing.get(`/api/billing/config/${yard.id}/carrier/${carrierB.id}`)).body;
      expect((await billing.delete(`/api/billing/carrier-config/${b.id}`)).status).toBe(204);
      expect(await query(t.db, 'SELECT id FROM billing_carrier_config WHERE id = ?', b.id)).toEqual([]);
      expect((await billing.get(`/api/billing/carrier-config/${b.id}`)).status).toBe(404);
      await billing.post(`/api/billing/config/${yard.id}/carrier`, { carrierId: carrierB.id });
      expect((await billing.delete(`/api/billing/config/${yard.id}/carrier/${carrierB.id}`)).status).toBe(
        204,
      );
      expect(
        await query(t.db, 'SELECT carrier_id FROM billing_carrier_config WHERE yard_id = ?', yard.id),
      ).toEqual([{ carrier_id: carrierA.id }]);
    });
  });

  describe('who sees what', () => {
    it('a billing user scoped to one yard sees and writes only its yards’ configs', async () => {
      const scoped = await clientWithRole(admin, 'billing', { yardIds: [otherYard.id] });
      const list = await scoped.get('/api/billing/config/with-carriers');
      expect(list.body.items.map((c: any) => c.yardId)).toEqual([otherYard.id]);
      expect((await scoped.get(`/api/billing/config/${otherYard.id}`)).status).toBe(200);

      const before = await configRows();
      const outside = await scoped.get(`/api/billing/config/${yard.id}`);
      expect(outside.status).toBe(403);
      expect(outside.body.code).toBe('forbidden');
      expect((await scoped.get(`/api/billing/config/${yard.id}/yard`)).status).toBe(403);
      expect(
        (await scoped.put(`/api/billing/config/${yard.id}`, { currency: 'USD', taxRateBp: 0 })).status,
      ).toBe(403);
      expect((await scoped.delete(`/api/billing/config/${yard.id}`)).status).toBe(403);
      expect(
        (await scoped.post('/api/billing/config', { yardId: bareYard.id, currency: 'USD', taxRateBp: 0 }))
          .status,
      ).toBe(403);
      expect(
        (await scoped.patch(`/api/billing/config/${yard.id}/carrier/${carrierA.id}`, { moveFee: 1 })).status,
      ).toBe(403);
      // By its id, a carrier config of a yard outside the scope does not exist for this user.
      const a = (await billing.get(`/api/billing/config/${yard.id}/carrier/${carrierA.id}`)).body;
      expect((await scoped.get(`/api/billing/carrier-config/${a.id}`)).status).toBe(404);
      expect((await scoped.patch(`/api/billing/carrier-config/${a.id}`, { moveFee: 1 })).status).toBe(404);
      expect((await scoped.delete(`/api/billing/carrier-config/${a.id}`)).status).toBe(404);
      expect(await configRows()).toEqual(before);
    });

    it('other staff roles may not read or write billing configs', async () => {
      for (const role of ['dispatcher', 'gate', 'viewer'] as const) {
        const c = await clientWithRole(admin, role);
        expect((await c.get('/api/billing/config')).status, role).toBe(403);
        expect(
          (await c.put(`/api/billing/config/${bareYard.id}`, { currency: 'USD', taxRateBp: 0 })).status,
        ).toBe(403);
      }
    });
  });

  describe('deleting a yard config', () => {
    it('deletes its carrier configs too (foreign key cascade)', async () => {
      // SQLite enforces foreign keys only when the connection turns them on (PostgreSQL always does).
      if (dialect === 'sqlite')
        expect(await query(t.db, 'PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
      const c = await billing.post(`/api/billing/config/${otherYard.id}/carrier`, { carrierId: carrierB.id });
      expect(c.status).toBe(201);
      expect((await billing.delete(`/api/billing/config/${otherYard.id}`)).status).toBe(204);
      expect(await query(t.db, 'SELECT * FROM billing_yard_config WHERE yard_id = ?', otherYard.id)).toEqual(
        [],
      );
      expect(
        await query(t.db, 'SELECT * FROM billing_carrier_config WHERE yard_id = ?', otherYard.id),
      ).toEqual([]);
      expect((await billing.get(`/api/billing/carrier-config/${c.body.id}`)).status).toBe(404);
      // The other yard's configs are untouched.
      expect(
        (await query(t.db, 'SELECT count(*) AS n FROM billing_carrier_config WHERE yard_id = ?', yard.id))[0]
          .n,
      ).toBe(1);
    });
  });

  describe('where billing lives', () => {
    // A linked edge is an edge (SQLite): it refuses billing as the cloud's.
    it.skipIf(dialect === 'postgres')(
      'a linked edge answers every billing config route with 409 cloud-owned and changes nothing',
      async () => {
        const edge = await serveLinkedEdge(t);
        try {
          const a = (await billing.get(`/api/billing/config/${yard.id}/carrier/${carrierA.id}`)).body;
          const y = yard.id;
          const c = carrierA.id;
          const calls: Array<[string, string, unknown?]> = [
            ['GET', '/api/billing/config'],
            ['GET', '/api/billing/config/with-carriers'],
            ['GET', '/api/billing/config/with-carrier-ids'],
            ['POST', '/api/billing/config', { yardId: bareYard.id, currency: 'USD', taxRateBp: 0 }],
            ['GET', `/api/billing/config/${y}`],
            ['PUT', `/api/billing/config/${y}`, { currency: 'USD', taxRateBp: 0 }],
            ['DELETE', `/api/billing/config/${y}`],
            ['GET', `/api/billing/config/${y}/with-carriers`],
            ['GET', `/api/billing/config/${y}/yard`],
            ['POST', `/api/billing/config/${y}/carrier`, { carrierId: carrierB.id }],
            ['GET', `/api/billing/config/${y}/carrier/${c}`],
            ['PUT', `/api/billing/config/${y}/carrier/${c}`, {}],
            ['PATCH', `/api/billing/config/${y}/carrier/${c}`, { moveFee: 1 }],
            ['DELETE', `/api/billing/config/${y}/carrier/${c}`],
            ['GET', `/api/billing/carrier-config/${a.id}`],
            ['PATCH', `/api/billing/carrier-config/${a.id}`, { moveFee: 1 }],
            ['DELETE', `/api/billing/carrier-config/${a.id}`],
          ];
          const before = await configRows();
          for (const [method, path, body] of calls) {
            const res = await edge.admin.request(method, path, body);
            expect(res.status, `${method} ${path}: ${res.text}`).toBe(409);
            expect(res.body.code, `${method} ${path}`).toBe('cloud-owned');
          }
          expect(await configRows()).toEqual(before);
        } finally {
          await edge.close();
        }
      },
    );

    it('documents money as minor units with the currency, and the 409 cloud-owned, in OpenAPI', () => {
      const doc = t.openapi() as any;
      const yardConfig = doc.components.schemas.BillingYardConfigPut;
      expect(yardConfig.properties.moveFee.description).toMatch(/minor units of the yard's currency/);
      expect(yardConfig.properties.currency.description).toMatch(/ISO 4217/);
      const put = doc.paths['/api/billing/config/{yardId}'].put;
      expect(put.responses['409'].description).toContain('`cloud-owned`');
      expect(put.description).toContain('201 Created');
    });
  });

  describe('the inherit rule (config/rates.ts)', () => {
    const yardRow = {
      yardId: 'y',
      currency: 'USD',
      taxRateBp: 825,
      graceMinutes: 30,
      bookedSpaces: 5,
      spaceMonthlyRate: 15_000,
      overageDailyRate: 2_500,
      moveFee: 1_500,
      gateFee: 500,
      lateFee: 3_000,
      noShowFee: 6_000,
      minimumMonthly: 40_000,
      issuerName: null,
      issuerAddress: null,
      issuerTaxId: null,
      paymentTermsDays: 30,
      createdAt: 0,
      updatedAt: 0,
    };
    it('a carrier without a config pays the yard’s rates but books no spaces and has no minimum', () => {
      expect(effectiveRates(yardRow, undefined)).toEqual({
        bookedSpaces: 0,
        spaceMonthlyRate: 15_000,
        overageDailyRate: 2_500,
        moveFee: 1_500,
        gateFee: 500,
        lateFee: 3_000,
        noShowFee: 6_000,
        minimumMonthly: 0,
      });
    });
    it('a carrier’s 0 is its own rate; its null is the yard’s', () => {
      const carrier = {
        id: 'c',
        yardId: 'y',
        carrierId: 'k',
        bookedSpaces: null,
        spaceMonthlyRate: 0,
        overageDailyRate: null,
        moveFee: 0,
        gateFee: null,
        lateFee: 0,
        noShowFee: null,
        minimumMonthly: null,
        billToName: null,
        billToAddress: null,
        billToEmail: null,
        billToTaxId: null,
        createdAt: 0,
        updatedAt: 0,
      };
      expect(effectiveRates(yardRow, carrier)).toEqual({
        bookedSpaces: 5,
        spaceMonthlyRate: 0,
        overageDailyRate: 2_500,
        moveFee: 0,
        gateFee: 500,
        lateFee: 0,
        noShowFee: 6_000,
        minimumMonthly: 40_000,
      });
    });
  });
});
