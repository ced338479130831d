import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { type Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import {
  type BillingWorld,
  billingRows,
  closeBillingWorld,
  seedFebruary,
  startBillingWorld,
} from './fixture.js';

/**
 * Invoices over HTTP (docs/domain.md "Billing"), against February 2026 in a UTC yard (fixture.ts
 * seedFebruary). Worked out by hand before the code ran, with the yard rates of fixture.ts
 * (space 100.00, overage 15.00/unit-day, move 25.00, gate 5.00, tax 8.25 %):
 *
 * Prairie (carrier config: bookedSpaces inherits 1, minimum 300.00):
 *   peaks by day: 1 Feb 1 (T1); 2 Feb 3 (T1, T2 from 08:00, T3 from 12:00); 3 Feb 3 (all three
 *   until T3 leaves 09:00); 4 Feb 2; 5 Feb 2 (T1 until 10:00); 6-10 Feb 1 (T2); then 0.
 *   overage units = 2 + 2 + 1 + 1 = 6 -> OVERAGE 6 x 1500 = 9000; SPACE 1 x 10000 = 10000;
 *   MOVES: the move (4 Feb) and the shunt (6 Feb) = 2 x 2500 = 5000; GATE: T2 and T3 checked in
 *   in February (T1's check-in is January's) = 2 x 500 = 1000. Charges 25000, so MINIMUM =
 *   30000 - 25000 = 5000; subtotal 30000; tax 30000 x 825 / 10000 = 2475; total 32475.
 *   With a credit of -2000: subtotal 28000, tax 2310, total 30310.
 * Lone Hauler (no carrier config: no booked spaces, no minimum): N1 present 15 and 16 Feb, so
 *   OVERAGE 2 x 1500 = 3000, GATE 1 x 500 = 500, subtotal 3500, tax 288.75 -> 289 (half up),
 *   total 3789. No SCAC: the number ends with the last 8 letters and digits of its id.
 */
describe.each(TEST_DIALECTS)('billing invoices (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  let w: BillingWorld;
  let admin: Client;
  let trailers: Awaited<ReturnType<typeof seedFebruary>>;

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    admin = w.admin;
    trailers = await seedFebruary(w);
    clock.set('2026-03-05T12:00:00Z');
  });
  afterAll(() => closeBillingWorld(w));

  const keyPath = (carrierId: string, period = '2026-02') =>
    `/api/billing/invoice/${w.yardId}/${carrierId}/${period}`;

  describe('invoice generation, numbers and lines', () => {
    it('generates Prairie’s February draft with the hand-computed lines, per-day table and annex', async () => {
      const res = await admin.post('/api/billing/invoice', {
        yardId: w.yardId,
        carrierId: w.prairie,
        period: '2026-02',
      });
      expect(res.status, res.text).toBe(201);
      const inv = res.body;
      expect(inv).toMatchObject({
        number: 'B1-202602-PRFL',
        sequence: 1,
        status: 'draft',
        currency: 'USD',
        timeZone: 'UTC',
        window: { start: '2026-02-01T00:00:00.000Z', end: '2026-03-01T00:00:00.000Z' },
        counts: { visits: 3, moves: 2, checkIns: 2, adjustments: 0 },
        lines: {
          space: { quantity: 1, unitAmount: 10_000, amount: 10_000 },
          overage: { quantity: 6, unitAmount: 1_500, amount: 9_000 },
          moves: { quantity: 2, unitAmount: 2_500, amount: 5_000 },
          gate: { quantity: 2, unitAmount: 500, amount: 1_000 },
          minimum: { amount: 5_000 },
          adjustments: { quantity: 0, amount: 0 },
        },
        subtotal: 30_000,
        tax: 2_475,
        total: 32_475,
        billTo: {
          carrierId: w.prairie,
          name: 'Prairie Freight AP',
          email: 'ap@prairie.example',
          scac: 'PRFL',
        },
        issuer: { name: 'B1 Yard Services' },
      });
      expect(inv.days).toHaveLength(28);
      expect(inv.days.slice(0, 6).map((d: any) => [d.date, d.peak, d.overage, d.amount])).toEqual([
        ['2026-02-01', 1, 0, 0],
        ['2026-02-02', 3, 2, 3_000],
        ['2026-02-03', 3, 2, 3_000],
        ['2026-02-04', 2, 1, 1_500],
        ['2026-02-05', 2, 1, 1_500],
        ['2026-02-06', 1, 0, 0],
      ]);
      expect(inv.annex.map((v: any) => [v.trailerNumber, v.daysPresent, v.outAt])).toEqual([
        ['T1', 5, '2026-02-05T10:00:00.000Z'],
        ['T2', 9, '2026-02-10T10:00:00.000Z'],
        ['T3', 2, '2026-02-03T09:00:00.000Z'],
      ]);
      expect(inv.annex[0].inMovementId).toBe(trailers.t1.id);
      const stored = await query(
        w.t.db,
        'SELECT number, status, subtotal, tax, total FROM invoice WHERE id = ?',
        inv.id,
      );
      expect(stored).toEqual([
        { number: 'B1-202602-PRFL', status: 'draft', subtotal: 30_000, tax: 2_475, total: 32_475 },
      ]);
    });

    it('a carrier without SCAC is numbered by the last 8 letters and digits of its id; no config: no booked spaces', async () => {
      const res = await admin.post('/api/billing/invoice', {
        yardId: w.yardId,
        carrierId: w.noScac,
        period: '2026-02',
      });
      expect(res.status, res.text).toBe(201);
      const suffix = w.noScac.replace(/-/g, '').slice(-8).toUpperCase();
      expect(res.body).toMatchObject({
        number: `B1-202602-${suffix}`,
        lines: {
          space: { quantity: 0, amount: 0 },
          overage: { quantity: 2, amount: 3_000 },
          gate: { quantity: 1, amount: 500 },
          minimum: { amount: 0 },
        },
        subtotal: 3_500,
        tax: 289,
        total: 3_789,
      });
    });

    it('refuses bad input with problem+json and changes nothing', async () => {
      const before = await billingRows(w);
      const post = (body: Record<string, unknown>) => admin.post('/api/billing/invoice', body);
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ yardId: w.yardId, carrierId: w.prairie, period: '2026-02' }, 409, 'invoice-exists'],
        [{ yardId: w.yardId, carrierId: w.prairie, period: '2026-03' }, 400, 'period-not-past'],
        [{ yardId: w.yardId, carrierId: w.prairie, period: '2027-01' }, 400, 'period-not-past'],
        [{ yardId: w.yardId, carrierId: w.prairie, period: '2026-13' }, 400, 'validation-failed'],
        [{ yardId: w.yardId, carrierId: w.prairie, period: 'Feb 2026' }, 400, 'validation-failed'],
        [
          { yardId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f', carrierId: w.prairie, period: '2026-02' },
          404,
          'not-found',
        ],
        [
          { yardId: w.yardId, carrierId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f', period: '2026-02' },
          404,
          'not-found',
        ],
      ];
      for (const [body, status, code] of cases) {
        const res = await post(body);
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body.code).toBe(code);
      }
      expect(await billingRows(w)).toEqual(before);
    });
  });

  describe('the lifecycle: draft -> issued -> void, and again as -2', () => {
    it('replace takes a new adjustment in; issue freezes; void needs a reason; the period is invoiced again as -2', async () => {
      const credit = await admin.post('/api/billing/invoice-adjustment', {
        yardId: w.yardId,
        carrierId: w.prairie,
        period: '2026-02',
        amount: -2_000,
        description: 'Gate closed two hours',
      });
      expect(credit.status, credit.text).toBe(201);
      const draft = (await admin.get(keyPath(w.prairie))).body;
      expect(draft.total).toBe(32_475); // a draft is not refreshed by itself

      const replaced = await admin.put(keyPath(w.prairie), {});
      expect(replaced.status, replaced.text).toBe(200);
      expect(replaced.body).toMatchObject({
        id: draft.id,
        number: 'B1-202602-PRFL',
        status: 'draft',
        lines: { adjustments: { quantity: 1, amount: -2_000 }, minimum: { amount: 5_000 } },
        subtotal: 28_000,
        tax: 2_310,
        total: 30_310,
      });

      const issued = await admin.post(`/api/billing/invoice/${draft.id}/issue`);
      expect(issued.status, issued.text).toBe(200);
      expect(issued.body).toMatchObject({ status: 'issued', issuedAt: '2026-03-05T12:00:00.000Z' });

      const before = await billingRows(w);
      const refused: Array<[Promise<any>, number, string]> = [
        [admin.put(keyPath(w.prairie), {}), 409, 'invoice-issued'],
        [admin.delete(keyPath(w.prairie)), 409, 'invoice-issued'],
        [admin.delete(`/api/billing/invoice/${draft.id}`), 409, 'invoice-issued'],
        [admin.post(`/api/billing/invoice/${draft.id}/issue`), 409, 'invalid-transition'],
        [
          admin.post('/api/billing/invoice', { yardId: w.yardId, carrierId: w.prairie, period: '2026-02' }),
          409,
          'invoice-exists',
        ],
        [
          admin.post('/api/billing/invoice-adjustment', {
            yardId: w.yardId,
            carrierId: w.prairie,
            period: '2026-02',
            amount: 100,
            description: 'late fee',
          }),
          409,
          'period-invoiced',
        ],
        [
          admin.patch(`/api/billing/invoice-adjustment/${credit.body.id}`, { amount: -1 }),
          409,
          'period-invoiced',
        ],
        [admin.delete(`/api/billing/invoice-adjustment/${credit.body.id}`), 409, 'period-invoiced'],
        [admin.post(`/api/billing/invoice/${draft.id}/void`, {}), 400, 'validation-failed'],
        [admin.post(`/api/billing/invoice/${draft.id}/void`, { reason: '  ' }), 400, 'validation-failed'],
        [
          admin.post('/api/billing/invoice/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f/void', { reason: 'x' }),
          404,
          'not-found',
        ],
      ];
      for (const [request, status, code] of refused) {
        const res = await request;
        expect(res.status, res.text).toBe(status);
        expect(res.body.code).toBe(code);
        // RFC 9457: the problem's `status` is the HTTP status; the invoice's is `invoiceStatus`.
        expect(res.body.status, res.text).toBe(status);
        if (code === 'invoice-exists') {
          expect(res.body).toMatchObject({ invoiceId: draft.id, invoiceStatus: 'issued' });
        }
      }
      expect(await billingRows(w)).toEqual(before);

      clock.set('2026-03-06T09:00:00Z');
      const voided = await admin.post(`/api/billing/invoice/${draft.id}/void`, {
        reason: 'Wrong booked spaces',
      });
      expect(voided.status, voided.text).toBe(200);
      expect(voided.body).toMatchObject({
        status: 'void',
        voidReason: 'Wrong booked spaces',
        voidedAt: '2026-03-06T09:00:00.000Z',
      });
      expect((await admin.post(`/api/billing/invoice/${draft.id}/void`, { reason: 'again' })).body.code).toBe(
        'invalid-transition',
      );
      expect((await admin.delete(`/api/billing/invoice/${draft.id}`)).body.code).toBe('invoice-void');
      // By its id, the void invoice keeps its number, reason and lines for the record.
      const byId = await admin.get(`/api/billing/invoice/${draft.id}`);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(voided.body);
      expect((await admin.get('/api/billing/invoice/00000000-0000-7000-8000-000000000000')).status).toBe(404);
      // The key now shows the void invoice until the period is invoiced again.
      expect((await admin.get(keyPath(w.prairie))).body).toMatchObject({ id: draft.id, status: 'void' });

      const again = await admin.post('/api/billing/invoice', {
        yardId: w.yardId,
        carrierId: w.prairie,
        period: '2026-02',
      });
      expect(again.status, again.text).toBe(201);
      expect(again.body).toMatchObject({
        number: 'B1-202602-PRFL-2',
        sequence: 2,
        status: 'draft',
        total: 30_310,
      });
      expect((await admin.get(keyPath(w.prairie))).body.id).toBe(again.body.id);

      // A draft can be deleted, by key or by id; then the key answers the void one again.
      expect((await admin.delete(keyPath(w.prairie))).status).toBe(204);
      expect(
        (await query(w.t.db, 'SELECT count(*) AS n FROM invoice WHERE id = ?', again.body.id))[0].n,
      ).toBe(0);
      const third = await admin.put(keyPath(w.prairie), {});
      expect(third.status, third.text).toBe(200);
      expect(third.body.number).toBe('B1-202602-PRFL-2');
      expect((await admin.delete(`/api/billing/invoice/${third.body.id}`)).status).toBe(204);
    });

    it('a draft cannot be voided (delete it instead), and issue needs a draft', async () => {
      const draft = await admin.put(keyPath(w.prairie), {});
      expect(draft.status).toBe(200);
      const res = await admin.post(`/api/billing/invoice/${draft.body.id}/void`, { reason: 'x' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid-transition');
    });
  });

  describe('lists, summaries and the overage table', () => {
    it('lists invoices and summaries by yard, carrier, period and status', async () => {
      const all = await admin.get(`/api/billing/invoice?yardId=${w.yardId}&period=2026-02`);
      expect(all.status, all.text).toBe(200);
      expect(all.body.items.map((i: any) => i.number).sort()).toEqual(
        [
          'B1-202602-PRFL',
          'B1-202602-PRFL-2',
          `B1-202602-${w.noScac.replace(/-/g, '').slice(-8).toUpperCase()}`,
        ].sort(),
      );
      const sums = await admin.get(`/api/billing/invoice/summaries?carrierId=${w.prairie}&status=void`);
      expect(sums.status, sums.text).toBe(200);
      expect(sums.body.items).toEqual([
        expect.objectContaining({
          number: 'B1-202602-PRFL',
          status: 'void',
          total: 30_310,
          voidReason: 'Wrong booked spaces',
        }),
      ]);
      expect(sums.body.items[0]).not.toHaveProperty('lines');
      const paged = await admin.get('/api/billing/invoice/summaries?limit=1');
      expect(paged.body.items).toHaveLength(1);
      const next = await admin.get(`/api/billing/invoice/summaries?limit=1&cursor=${paged.body.nextCursor}`);
      expect(next.body.items[0].id > paged.body.items[0].id).toBe(true);
    });

    it('the overage table comes from the period’s invoice, or is computed now without one', async () => {
      const frozen = await admin.get(
        `/api/billing/invoice/overage?yardId=${w.yardId}&carrierId=${w.prairie}&period=2026-02`,
      );
      expect(frozen.status, frozen.text).toBe(200);
      expect(frozen.body).toMatchObject({
        source: 'invoice',
        overageDailyRate: 1_500,
        total: 9_000,
        currency: 'USD',
      });
      expect(frozen.body.days[1]).toEqual({
        date: '2026-02-02',
        peak: 3,
        bookedSpaces: 1,
        overage: 2,
        amount: 3_000,
      });
      // January: T1 arrived on the 30th; no invoice, so computed. 30 and 31 Jan: peak 1, booked 1.
      const jan = await admin.get(
        `/api/billing/invoice/overage?yardId=${w.yardId}&carrierId=${w.prairie}&period=2026-01`,
      );
      expect(jan.body).toMatchObject({ source: 'computed', invoiceId: null, total: 0 });
      expect(jan.body.days.slice(28).map((d: any) => [d.date, d.peak])).toEqual([
        ['2026-01-29', 0],
        ['2026-01-30', 1],
        ['2026-01-31', 1],
      ]);
    });
  });

  describe('two clerks at once', () => {
    it('two generations of the same period at the same time: one draft, one 409 invoice-exists', async () => {
      const body = { yardId: w.yardId, carrierId: w.prairie, period: '2026-01' };
      const answers = await Promise.all([
        admin.post('/api/billing/invoice', body),
        admin.post('/api/billing/invoice', body),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(answers.find((r) => r.status === 409)!.body.code).toBe('invoice-exists');
      expect(await query(w.t.db, "SELECT number FROM invoice WHERE period = '2026-01'")).toEqual([
        { number: 'B1-202601-PRFL' },
      ]);
    });
  });

  describe('the annex', () => {
    it('lists the photos filed against a visit’s movements, taken in when the draft is replaced', async () => {
      const form = new FormData();
      form.append(
        'file',
        new Blob([Buffer.from('%PDF-1.4\n%\xe2\xe3\n1 0 obj\n<<>>\nendobj\n')], { type: 'application/pdf' }),
        'cmr.pdf',
      );
      form.append('refType', 'movement');
      form.append('refId', trailers.t2.id);
      const up = await admin.post('/api/attachment', form);
      expect(up.status, up.text).toBe(201);
      const draft = await admin.put(keyPath(w.prairie), {});
      expect(draft.status, draft.text).toBe(200);
      const t2 = draft.body.annex.find((v: any) => v.trailerNumber === 'T2');
      expect(t2).toMatchObject({ inMovementId: trailers.t2.id, attachmentIds: [up.body.id], daysPresent: 9 });
      expect(draft.body.annex.find((v: any) => v.trailerNumber === 'T1').attachmentIds).toEqual([]);
    });
  });

  describe('roles', () => {
    it('billing may do everything here; a dispatcher and a viewer may not', async () => {
      const billing = await clientWithRole(admin, 'billing');
      expect((await billing.get('/api/billing/invoice/summaries')).status).toBe(200);
      for (const role of ['dispatcher', 'viewer'] as const) {
        const c = await clientWithRole(admin, role);
        expect((await c.get('/api/billing/invoice')).status).toBe(403);
        expect((await c.post('/api/billing/invoice/generate-all')).status).toBe(403);
      }
      const scoped = await clientWithRole(admin, 'billing', { yardIds: [] });
      expect((await scoped.get('/api/billing/invoice')).body.items).toEqual([]);
      expect((await scoped.get(keyPath(w.prairie))).status).toBe(403);
    });
  });
});
