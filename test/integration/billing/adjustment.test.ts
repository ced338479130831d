import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { type Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type BillingWorld, billingRows, closeBillingWorld, startBillingWorld } from './fixture.js';

/**
 * Invoice adjustments (docs/domain.md "Billing"): signed minor units for a yard, carrier and period.
 * Prairie in a month without activity (March 2026) owes SPACE 10000 and the MINIMUM top-up 20000,
 * so 30000 before adjustments; with +1500 and -4000 the subtotal is 27500, tax 27500 x 8.25 % =
 * 2268.75 -> 2269, total 29769. A credit larger than the charges is a credit note: -40000 alone
 * gives subtotal -10000, tax -825, total -10825.
 */
describe.each(TEST_DIALECTS)('billing adjustments (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
  let w: BillingWorld;
  let admin: Client;
  const UNKNOWN = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    admin = w.admin;
    clock.set('2026-04-02T09:00:00Z');
  });
  afterAll(() => closeBillingWorld(w));

  const body = (fields: Record<string, unknown> = {}) => ({
    yardId: w.yardId,
    carrierId: w.prairie,
    period: '2026-03',
    amount: 1_500,
    description: 'Extra yard check',
    ...fields,
  });

  describe('adjustments', () => {
    let extra: any;
    let credit: any;

    it('creates, lists, updates and deletes; the invoice sums them', async () => {
      const created = await admin.post('/api/billing/invoice-adjustment', body());
      expect(created.status, created.text).toBe(201);
      extra = created.body;
      expect(extra).toMatchObject({
        amount: 1_500,
        period: '2026-03',
        createdAt: '2026-04-02T09:00:00.000Z',
      });
      credit = (
        await admin.post('/api/billing/invoice-adjustment', body({ amount: -3_000, description: 'Goodwill' }))
      ).body;
      const patched = await admin.patch(`/api/billing/invoice-adjustment/${credit.id}`, { amount: -4_000 });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({ amount: -4_000, description: 'Goodwill' });
      const temp = (await admin.post('/api/billing/invoice-adjustment', body({ amount: 99 }))).body;
      expect((await admin.delete(`/api/billing/invoice-adjustment/${temp.id}`)).status).toBe(204);

      const list = await admin.get(
        `/api/billing/invoice-adjustment?yardId=${w.yardId}&carrierId=${w.prairie}&period=2026-03`,
      );
      expect(list.status).toBe(200);
      expect(list.body.items.map((a: any) => a.amount)).toEqual([1_500, -4_000]);
      expect((await admin.get('/api/billing/invoice-adjustment?period=2026-02')).body.items).toEqual([]);

      const inv = await admin.post('/api/billing/invoice', {
        yardId: w.yardId,
        carrierId: w.prairie,
        period: '2026-03',
      });
      expect(inv.status, inv.text).toBe(201);
      expect(inv.body).toMatchObject({
        lines: {
          space: { amount: 10_000 },
          minimum: { amount: 20_000 },
          adjustments: { quantity: 2, amount: -2_500 },
        },
        subtotal: 27_500,
        tax: 2_269,
        total: 29_769,
      });
    });

    it('a credit larger than the charges makes a credit note (tax with the subtotal’s sign)', async () => {
      const big = await admin.post(
        '/api/billing/invoice-adjustment',
        body({ period: '2026-02', amount: -40_000, description: 'Refund' }),
      );
      expect(big.status).toBe(201);
      const inv = await admin.post('/api/billing/invoice', {
        yardId: w.yardId,
        carrierId: w.prairie,
        period: '2026-02',
      });
      expect(inv.body).toMatchObject({ subtotal: -10_000, tax: -825, total: -10_825 });
    });

    it('refuses bad input and changes to an issued period; nothing changes', async () => {
      const draft = (await admin.get(`/api/billing/invoice/${w.yardId}/${w.prairie}/2026-03`)).body;
      expect((await admin.post(`/api/billing/invoice/${draft.id}/issue`)).status).toBe(200);
      const before = await billingRows(w);
      const cases: Array<[Promise<any>, number, string]> = [
        [admin.post('/api/billing/invoice-adjustment', body()), 409, 'period-invoiced'],
        [
          admin.patch(`/api/billing/invoice-adjustment/${extra.id}`, { description: 'x' }),
          409,
          'period-invoiced',
        ],
        [admin.delete(`/api/billing/invoice-adjustment/${credit.id}`), 409, 'period-invoiced'],
        [admin.post('/api/billing/invoice-adjustment', body({ amount: 0 })), 400, 'validation-failed'],
        [admin.post('/api/billing/invoice-adjustment', body({ amount: 1.5 })), 400, 'validation-failed'],
        [admin.post('/api/billing/invoice-adjustment', body({ description: '' })), 400, 'validation-failed'],
        [
          admin.post('/api/billing/invoice-adjustment', body({ period: '2026-00' })),
          400,
          'validation-failed',
        ],
        [admin.post('/api/billing/invoice-adjustment', body({ yardId: UNKNOWN })), 404, 'not-found'],
        [admin.post('/api/billing/invoice-adjustment', body({ carrierId: UNKNOWN })), 404, 'not-found'],
        [admin.patch(`/api/billing/invoice-adjustment/${UNKNOWN}`, { amount: 5 }), 404, 'not-found'],
        [admin.patch(`/api/billing/invoice-adjustment/${extra.id}`, {}), 400, 'validation-failed'],
        [admin.delete(`/api/billing/invoice-adjustment/${UNKNOWN}`), 404, 'not-found'],
      ];
      for (const [request, status, code] of cases) {
        const res = await request;
        expect(res.status, res.text).toBe(status);
        expect(res.body.code).toBe(code);
      }
      expect(await billingRows(w)).toEqual(before);
      // After a void the period is open again.
      expect((await admin.post(`/api/billing/invoice/${draft.id}/void`, { reason: 'Redo' })).status).toBe(
        200,
      );
      expect((await admin.delete(`/api/billing/invoice-adjustment/${credit.id}`)).status).toBe(204);
    });

    it('a billing user scoped to other yards sees none of them and cannot add one', async () => {
      const scoped = await clientWithRole(admin, 'billing', { yardIds: [] });
      expect((await scoped.get('/api/billing/invoice-adjustment')).body.items).toEqual([]);
      expect((await scoped.post('/api/billing/invoice-adjustment', body())).status).toBe(403);
      expect((await scoped.delete(`/api/billing/invoice-adjustment/${extra.id}`)).status).toBe(404);
      expect(
        (await query(w.t.db, 'SELECT count(*) AS n FROM invoice_adjustment WHERE id = ?', extra.id))[0].n,
      ).toBe(1);
    });
  });
});
