import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { type Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import {
  type BillingWorld,
  billingRows,
  checkIn,
  closeBillingWorld,
  seedFebruary,
  startBillingWorld,
} from './fixture.js';

/**
 * Summaries, "to be completed" and generate-all (docs/domain.md "Billing"), over February 2026 of
 * fixture.ts (the hand calculation is in invoice.test.ts: Prairie 32475, Lone Hauler 3789), with a
 * third carrier, Idle, that has a carrier config charging nothing (no booked spaces, no minimum)
 * and no activity: it is never invoiced.
 *
 * January by hand (config created 20 Jan, so December is not owed): Prairie's T1 arrived 30 Jan,
 * peak 1 = bookedSpaces, so no overage; SPACE 10000, GATE 1 x 500; MINIMUM 30000 - 10500 = 19500;
 * subtotal 30000, tax 2475, total 32475. Lone Hauler had nothing in January.
 *
 * The ongoing period on 5 March 10:00 UTC: Prairie's T9 checked in 2 March 08:00 and still in:
 * peaks 1 on 2-5 March (booked 1: no overage), GATE 500, SPACE 10000, MINIMUM 19500, total 32475;
 * Lone Hauler nothing, so it has no summary (no config, no activity).
 */
describe.each(TEST_DIALECTS)('billing summaries (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  let w: BillingWorld;
  let admin: Client;
  let idle: string;

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    admin = w.admin;
    idle = await seedRows(w.t).carrier('Idle Lines', { scac: 'IDLE' });
    await w.t.core.kysely
      .insertInto('billingCarrierConfig')
      .values({
        id: newId(),
        yardId: w.yardId,
        carrierId: idle,
        bookedSpaces: 0,
        spaceMonthlyRate: null,
        overageDailyRate: null,
        moveFee: null,
        gateFee: null,
        minimumMonthly: 0,
        billToName: null,
        billToAddress: null,
        billToEmail: null,
        billToTaxId: null,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      })
      .execute();
    await seedFebruary(w);
    await checkIn(w, '2026-03-02T08:00:00.000Z', 'T9', w.prairie);
    clock.set('2026-03-05T10:00:00Z');
  });
  afterAll(() => closeBillingWorld(w));

  describe('summaries', () => {
    it('generates the ongoing period’s summaries, replacing them on each generation', async () => {
      const res = await admin.post('/api/billing/summary/generate', { yardId: w.yardId });
      expect(res.status, res.text).toBe(200);
      const byCarrier = Object.fromEntries(res.body.items.map((s: any) => [s.carrierId, s]));
      expect(Object.keys(byCarrier).sort()).toEqual([w.prairie, idle].sort());
      expect(byCarrier[w.prairie]).toMatchObject({
        period: '2026-03',
        window: { start: '2026-03-01T00:00:00.000Z', end: '2026-03-05T10:00:00.000Z' },
        lines: { gate: { quantity: 1, amount: 500 }, overage: { amount: 0 }, minimum: { amount: 19_500 } },
        subtotal: 30_000,
        tax: 2_475,
        total: 32_475,
      });
      // Five days have begun; today's peak is the peak so far.
      expect(byCarrier[w.prairie].days.map((d: any) => [d.date, d.peak])).toEqual([
        ['2026-03-01', 0],
        ['2026-03-02', 1],
        ['2026-03-03', 1],
        ['2026-03-04', 1],
        ['2026-03-05', 1],
      ]);
      const first = await query(
        w.t.db,
        'SELECT id, generated_at FROM billing_summary WHERE carrier_id = ?',
        w.prairie,
      );
      clock.set('2026-03-05T11:00:00Z');
      const again = await admin.post('/api/billing/summary/generate', {
        yardId: w.yardId,
        carrierId: w.prairie,
      });
      expect(again.body.items).toHaveLength(1);
      expect(again.body.items[0]).toMatchObject({ id: first[0].id, generatedAt: '2026-03-05T11:00:00.000Z' });
      expect((await query(w.t.db, 'SELECT count(*) AS n FROM billing_summary'))[0].n).toBe(2);
    });

    it('generates a past period and aggregates it per currency', async () => {
      const past = await admin.post('/api/billing/summary/generate-past', { period: '2026-02' });
      expect(past.status, past.text).toBe(200);
      expect(past.body.items.map((s: any) => [s.carrierId, s.total]).sort()).toEqual(
        [
          [w.prairie, 32_475],
          [w.noScac, 3_789],
          [idle, 0],
        ].sort(),
      );
      const agg = await admin.get(`/api/billing/summary?period=2026-02&yardIds=${w.yardId}`);
      expect(agg.status, agg.text).toBe(200);
      expect(agg.body.totals).toEqual([
        { currency: 'USD', subtotal: 30_000 + 3_500, tax: 2_475 + 289, total: 32_475 + 3_789, count: 3 },
      ]);
      const one = await admin.get(`/api/billing/summary?period=2026-02&carrierIds=${w.noScac}`);
      expect(one.body.items.map((s: any) => s.carrierId)).toEqual([w.noScac]);
    });

    it('refuses a period that is not past, a malformed one, an unknown yard; nothing changes', async () => {
      const before = await billingRows(w);
      const cases: Array<[string, Record<string, unknown>, number, string]> = [
        ['/api/billing/summary/generate-past', { period: '2026-03' }, 400, 'period-not-past'],
        ['/api/billing/summary/generate-past', { period: '2026-3' }, 400, 'validation-failed'],
        [
          '/api/billing/summary/generate-past',
          { period: '2026-02', carrierId: w.prairie },
          400,
          'carrier-needs-yard',
        ],
        [
          '/api/billing/summary/generate',
          { yardId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f' },
          404,
          'not-found',
        ],
        [
          '/api/billing/summary/generate',
          { yardId: w.yardId, carrierId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f' },
          404,
          'not-found',
        ],
      ];
      for (const [path, body, status, code] of cases) {
        const res = await admin.post(path, body);
        expect(res.status, res.text).toBe(status);
        expect(res.body.code).toBe(code);
      }
      const noConfig = await seedRows(w.t).yard('B2', { timeZone: 'UTC' });
      const res = await admin.post('/api/billing/summary/generate', { yardId: noConfig });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('billing-not-configured');
      expect((await admin.get('/api/billing/summary?period=13')).status).toBe(400);
      expect(await billingRows(w)).toEqual(before);
    });
  });

  describe('to be completed, and generate-all for the previous period', () => {
    it('lists the past periods still to invoice, since the config began', async () => {
      const res = await admin.get('/api/billing/summary/to-be-completed');
      expect(res.status, res.text).toBe(200);
      expect(res.body.items.map((i: any) => [i.period, i.carrierId, i.total]).sort()).toEqual(
        [
          ['2026-01', w.prairie, 32_475],
          ['2026-02', w.noScac, 3_789],
          ['2026-02', w.prairie, 32_475],
        ].sort(),
      );
    });

    it('drafts every carrier charged something; a second run creates nothing', async () => {
      const first = await admin.post('/api/billing/invoice/generate-all');
      expect(first.status, first.text).toBe(200);
      expect(first.body.created.map((i: any) => [i.number, i.total, i.status]).sort()).toEqual(
        [
          ['B1-202602-PRFL', 32_475, 'draft'],
          [`B1-202602-${w.noScac.replace(/-/g, '').slice(-8).toUpperCase()}`, 3_789, 'draft'],
        ].sort(),
      );
      expect(first.body.skipped).toEqual([
        { yardId: w.yardId, carrierId: idle, period: '2026-02', reason: 'no-charges' },
      ]);
      expect(first.body.waiting).toEqual([]);
      const invoices = (await billingRows(w)).invoices;
      expect(invoices).toHaveLength(2);

      const second = await admin.post('/api/billing/invoice/generate-all');
      expect(second.status).toBe(200);
      expect(second.body.created).toEqual([]);
      expect(second.body.skipped.map((s: any) => s.reason).sort()).toEqual([
        'exists',
        'exists',
        'no-charges',
      ]);
      expect((await billingRows(w)).invoices).toEqual(invoices);

      const left = await admin.get('/api/billing/summary/to-be-completed?months=2');
      expect(left.body.items.map((i: any) => [i.period, i.carrierId])).toEqual([['2026-01', w.prairie]]);
    });
  });
});
