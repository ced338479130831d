import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { type Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import {
  type BillingWorld,
  billingRows,
  checkIn,
  closeBillingWorld,
  completeTask,
  startBillingWorld,
} from './fixture.js';

/**
 * DOMAIN.md "Billing": rates, adjustments and bookedSpaces have bounds that keep every line and
 * total a safe integer; a value that could overflow is refused where it is entered (400), never at
 * invoicing (500). The bounds and their proof: shared/modules/billing/bounds.ts.
 *
 * The worst case a clerk can enter, by hand: every per-unit rate 10^9, a minimum of 10^12, Prairie
 * booking 100,000 spaces, tax 100 %, and 100 adjustments of 10^12 each, by a billing user scoped to
 * the yard. February's activity: two check-ins and a move (peak 2, all within the booked spaces).
 *   SPACE 100,000 x 10^9 = 10^14; OVERAGE 0; MOVES 1 x 10^9; GATE 2 x 10^9;
 *   charges 100,003,000,000,000 > minimum, so MINIMUM 0; ADJUSTMENTS 100 x 10^12 = 10^14;
 *   subtotal 200,003,000,000,000; tax (100 %) as much; total 400,006,000,000,000.
 */
const RATE = 1_000_000_000;
const BIG = 1_000_000_000_000;

describe.each(TEST_DIALECTS)('billing bounds (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  let w: BillingWorld;
  let admin: Client;
  let clerk: Client;

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    admin = w.admin;
    clerk = await clientWithRole(admin, 'billing', { yardIds: [w.yardId] });
    const t1 = await checkIn(w, '2026-02-02T08:00:00.000Z', 'T1', w.prairie);
    await checkIn(w, '2026-02-03T08:00:00.000Z', 'T2', w.prairie);
    await completeTask(w, '2026-02-04T11:00:00.000Z', t1.trailerId, 'move');
    clock.set('2026-03-05T10:00:00Z');
  });
  afterAll(() => closeBillingWorld(w));

  const adjustment = (amount: number, by: Client = clerk) =>
    by.post('/api/billing/invoice-adjustment', {
      yardId: w.yardId,
      carrierId: w.prairie,
      period: '2026-02',
      amount,
      description: 'Adjustment',
    });

  it('refuses an overflowing value where it is entered, with 400 on the field, and changes nothing', async () => {
    const before = {
      ...(await billingRows(w)),
      configs: await query(w.t.db, 'SELECT * FROM billing_carrier_config'),
    };
    const y = w.yardId;
    const cases: Array<[Promise<any>, string]> = [
      // The review's figures: 100,000 spaces at 10^12 a space.
      [
        clerk.put(`/api/billing/config/${y}/carrier/${w.prairie}`, {
          bookedSpaces: 100_000,
          spaceMonthlyRate: BIG,
        }),
        'body.spaceMonthlyRate',
      ],
      [clerk.patch(`/api/billing/config/${y}/carrier/${w.prairie}`, { moveFee: RATE + 1 }), 'body.moveFee'],
      [
        clerk.patch(`/api/billing/config/${y}/carrier/${w.prairie}`, { bookedSpaces: 100_001 }),
        'body.bookedSpaces',
      ],
      [
        clerk.patch(`/api/billing/config/${y}/carrier/${w.prairie}`, { minimumMonthly: BIG + 1 }),
        'body.minimumMonthly',
      ],
      [
        clerk.put(`/api/billing/config/${y}`, { currency: 'USD', taxRateBp: 0, gateFee: RATE + 1 }),
        'body.gateFee',
      ],
      [adjustment(9_007_199_254_740_991), 'body.amount'],
      [adjustment(-(BIG + 1)), 'body.amount'],
    ];
    for (const [request, path] of cases) {
      const res = await request;
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors.map((e: any) => e.path)).toContain(path);
    }
    expect({
      ...(await billingRows(w)),
      configs: await query(w.t.db, 'SELECT * FROM billing_carrier_config'),
    }).toEqual(before);
  });

  it('takes the worst case allowed at entry and invoices it exactly (201)', async () => {
    const yard = await clerk.put(`/api/billing/config/${w.yardId}`, {
      currency: 'USD',
      taxRateBp: 10_000,
      spaceMonthlyRate: RATE,
      overageDailyRate: RATE,
      moveFee: RATE,
      gateFee: RATE,
      minimumMonthly: BIG,
    });
    expect(yard.status, yard.text).toBe(200);
    const carrier = await clerk.patch(`/api/billing/config/${w.yardId}/carrier/${w.prairie}`, {
      bookedSpaces: 100_000,
      minimumMonthly: null,
    });
    expect(carrier.status, carrier.text).toBe(200);
    for (let k = 0; k < 100; k++) {
      const res = await adjustment(BIG);
      expect(res.status, res.text).toBe(201);
    }
    const invoice = await clerk.post('/api/billing/invoice', {
      yardId: w.yardId,
      carrierId: w.prairie,
      period: '2026-02',
    });
    expect(invoice.status, invoice.text).toBe(201);
    expect(invoice.body).toMatchObject({
      lines: {
        space: { quantity: 100_000, unitAmount: RATE, amount: 100_000_000_000_000 },
        overage: { amount: 0 },
        moves: { quantity: 1, amount: RATE },
        gate: { quantity: 2, amount: 2 * RATE },
        minimum: { amount: 0 },
        adjustments: { quantity: 100, amount: 100_000_000_000_000 },
      },
      subtotal: 200_003_000_000_000,
      tax: 200_003_000_000_000,
      total: 400_006_000_000_000,
    });
  });

  it('refuses the 101st adjustment of a period (400 too-many-adjustments), concurrent ones included', async () => {
    // The period is full (100 above): another one, even several at once, is refused and stores nothing.
    await expect(adjustment(1)).resolves.toMatchObject({
      status: 400,
      body: { code: 'too-many-adjustments' },
    });
    const period = { yardId: w.yardId, carrierId: w.noScac, period: '2026-01' };
    const add = () =>
      clerk.post('/api/billing/invoice-adjustment', { ...period, amount: 1, description: 'Adjustment' });
    for (let k = 0; k < 98; k++) expect((await add()).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 6 }, add));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 400, 400, 400, 400]);
    const count = async (carrierId: string, p: string) =>
      Number(
        (
          await query(
            w.t.db,
            'SELECT count(*) AS n FROM invoice_adjustment WHERE yard_id = ? AND carrier_id = ? AND period = ?',
            w.yardId,
            carrierId,
            p,
          )
        )[0].n,
      );
    expect(await count(w.noScac, '2026-01')).toBe(100);
    expect(await count(w.prairie, '2026-02')).toBe(100);
  });
});
