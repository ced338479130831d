import { parse } from 'csv-parse/sync';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type BillingWorld, closeBillingWorld, startBillingWorld } from './fixture.js';

/**
 * The appointment fees (docs/domain.md "Billing": LATE, NO_SHOW) over HTTP, February 2026 in the
 * UTC yard of fixture.ts. The appointments are written as the site's arrival fields reach the
 * cloud (their rows), since billing reads what is stored wherever it came from.
 *
 * Rates: the yard sets lateFee 40.00 and noShowFee 60.00; Prairie's carrier config leaves lateFee
 * null (inherits 40.00) and sets noShowFee 25.00; Lone Hauler has no carrier config (the yard's
 * per-use rates). Worked out by hand before the code ran:
 *
 * Prairie's appointments:
 *   P1 arrived late 3 Feb 10:40           -> LATE
 *   P2 arrived on time 4 Feb 10:05        -> nothing
 *   P3 marked no-show 10 Feb 11:00        -> NO_SHOW
 *   P4 no-show 11 Feb 11:00, then arrived late 11 Feb 14:00 -> LATE, not NO_SHOW
 *   P5 arrived late 31 Jan 23:50          -> January's, not February's
 *   P6 no-show 12 Feb, undone (noShowAt cleared), arrived on time -> nothing
 *   P7 no-show 28 Feb 23:59               -> NO_SHOW (in W)
 *   P8 no-show 1 Mar 00:00                -> March's (W is half-open)
 *   LATE 2 x 4000 = 8000; NO_SHOW 2 x 2500 = 5000.
 *   SPACE 1 (the yard's bookedSpaces, inherited) x 10000 = 10000; no other use, so charges are
 *   10000 and MINIMUM = 30000 - 10000 = 20000 (the fees do not count towards it).
 *   subtotal 10000 + 8000 + 5000 + 20000 = 43000; tax 43000 x 825 / 10000 = 3547.5 -> 3548;
 *   total 46548.
 * Lone Hauler: L1 marked no-show 20 Feb -> NO_SHOW 1 x 6000; nothing else (no config: no space,
 *   no minimum). subtotal 6000; tax 495; total 6495. It has no other activity at all: the
 *   no-show alone makes it a carrier to invoice.
 */
describe.each(TEST_DIALECTS)('billing: late and no-show fees (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  let w: BillingWorld;
  let loadTypeId: string;
  const z = (iso: string) => Date.parse(iso);

  async function appointment(
    carrierId: string,
    startIso: string,
    times: {
      arrivedAt?: string;
      arrival?: 'early' | 'on_time' | 'late';
      noShowAt?: string;
      cancelledAt?: string;
    },
  ) {
    const start = z(startIso);
    const now = clock.now();
    await w.t.core.changes.insert(w.t.core.kysely, 'appointment', {
      id: newId(),
      yardId: w.yardId,
      doorId: w.doorId,
      loadTypeId,
      startAt: start,
      endAt: start + 3_600_000,
      carrierId,
      code: Math.random().toString(36).slice(2, 10).toUpperCase(),
      trailerNumber: null,
      truckPlate: null,
      driverName: null,
      driverPhone: null,
      notes: null,
      overrideReason: null,
      createdBy: null,
      cancelledAt: times.cancelledAt ? z(times.cancelledAt) : null,
      cancelReason: times.cancelledAt ? 'turned away' : null,
      arrivedAt: times.arrivedAt ? z(times.arrivedAt) : null,
      arrival: times.arrival ?? null,
      movementId: null,
      dockedAt: null,
      completedAt: null,
      departedAt: null,
      noShowAt: times.noShowAt ? z(times.noShowAt) : null,
      createdAt: now,
      updatedAt: now,
    });
  }

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    const now = clock.now();
    loadTypeId = newId();
    await w.t.core.changes.insert(w.t.core.kysely, 'loadType', {
      id: loadTypeId,
      yardId: w.yardId,
      name: 'Live unload',
      direction: 'both',
      durationMinutes: 60,
      createdAt: now,
      updatedAt: now,
    });
    const yard = await w.admin.get(`/api/billing/config/${w.yardId}`);
    expect(yard.status, yard.text).toBe(200);
    const { yardId: _y, createdAt: _c, updatedAt: _u, ...config } = yard.body;
    const put = await w.admin.put(`/api/billing/config/${w.yardId}`, {
      ...config,
      lateFee: 4_000,
      noShowFee: 6_000,
    });
    expect(put.status, put.text).toBe(200);
    const patch = await w.admin.patch(`/api/billing/config/${w.yardId}/carrier/${w.prairie}`, {
      noShowFee: 2_500,
    });
    expect(patch.status, patch.text).toBe(200);

    await appointment(w.prairie, '2026-02-03T10:00:00Z', {
      arrivedAt: '2026-02-03T10:40:00Z',
      arrival: 'late',
    });
    await appointment(w.prairie, '2026-02-04T10:00:00Z', {
      arrivedAt: '2026-02-04T10:05:00Z',
      arrival: 'on_time',
    });
    await appointment(w.prairie, '2026-02-10T10:00:00Z', { noShowAt: '2026-02-10T11:00:00Z' });
    await appointment(w.prairie, '2026-02-11T10:00:00Z', {
      noShowAt: '2026-02-11T11:00:00Z',
      arrivedAt: '2026-02-11T14:00:00Z',
      arrival: 'late',
    });
    await appointment(w.prairie, '2026-01-31T23:00:00Z', {
      arrivedAt: '2026-01-31T23:50:00Z',
      arrival: 'late',
    });
    await appointment(w.prairie, '2026-02-12T10:00:00Z', {
      arrivedAt: '2026-02-12T10:05:00Z',
      arrival: 'on_time',
    });
    await appointment(w.prairie, '2026-02-28T22:59:00Z', { noShowAt: '2026-02-28T23:59:00Z' });
    await appointment(w.prairie, '2026-02-28T23:00:00Z', { noShowAt: '2026-03-01T00:00:00Z' });
    await appointment(w.noScac, '2026-02-20T08:00:00Z', { noShowAt: '2026-02-20T09:00:00Z' });
    clock.set('2026-03-05T12:00:00Z');
  });
  afterAll(() => closeBillingWorld(w));

  it('the yard and carrier configs carry lateFee and noShowFee; null at the carrier inherits', async () => {
    const res = await w.admin.get(`/api/billing/config/${w.yardId}/carrier/${w.prairie}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      lateFee: null,
      noShowFee: 2_500,
      effective: { lateFee: 4_000, noShowFee: 2_500 },
    });
    expect((await w.admin.get(`/api/billing/config/${w.yardId}`)).body).toMatchObject({
      lateFee: 4_000,
      noShowFee: 6_000,
    });
    expect(
      await query(
        w.t.db,
        'SELECT late_fee, no_show_fee FROM billing_carrier_config WHERE carrier_id = ?',
        w.prairie,
      ),
    ).toEqual([{ late_fee: null, no_show_fee: 2_500 }]);
  });

  it('Prairie’s February invoice has the hand-computed LATE and NO_SHOW lines, outside the minimum', async () => {
    const res = await w.admin.post('/api/billing/invoice', {
      yardId: w.yardId,
      carrierId: w.prairie,
      period: '2026-02',
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      counts: { lateArrivals: 2, noShows: 2 },
      rates: { lateFee: 4_000, noShowFee: 2_500 },
      lines: {
        space: { quantity: 1, unitAmount: 10_000, amount: 10_000 },
        late: { quantity: 2, unitAmount: 4_000, amount: 8_000 },
        noShow: { quantity: 2, unitAmount: 2_500, amount: 5_000 },
        minimum: { amount: 20_000 },
      },
      subtotal: 43_000,
      tax: 3_548,
      total: 46_548,
    });
    expect(await query(w.t.db, 'SELECT subtotal, tax, total FROM invoice WHERE id = ?', res.body.id)).toEqual(
      [{ subtotal: 43_000, tax: 3_548, total: 46_548 }],
    );

    const pdf = await fetch(`${w.admin.baseUrl}/api/billing/invoice/${res.body.id}/pdf`, {
      headers: { authorization: `Bearer ${w.admin.token}` },
    });
    expect(pdf.status).toBe(200);
    const parser = new PDFParse({ data: new Uint8Array(await pdf.arrayBuffer()) });
    try {
      const text = (await parser.getText()).text;
      expect(text).toMatch(/Appointments that arrived late, 2026-02 2 \$40\.00 \$80\.00/);
      expect(text).toMatch(/Appointments not kept \(no-show\), 2026-02 2 \$25\.00 \$50\.00/);
      expect(text).toContain('Top-up to the monthly minimum, 2026-02 1 $200.00 $200.00');
      expect(text).toContain('Total (USD) $465.48');
    } finally {
      await parser.destroy();
    }
  });

  it('the issued invoice exports its LATE and NO_SHOW lines to the accounting CSV', async () => {
    const inv = await w.admin.get(`/api/billing/invoice/${w.yardId}/${w.prairie}/2026-02`);
    expect((await w.admin.post(`/api/billing/invoice/${inv.body.id}/issue`, {})).status).toBe(200);
    const res = await w.admin.get('/api/billing/invoice/export?period=2026-02&format=xero');
    expect(res.status, res.text).toBe(200);
    const rows = parse(res.text, { columns: true, bom: true }) as Record<string, string>[];
    const line = (description: string) => rows.find((r) => r['*Description'] === description);
    expect(line('Appointments that arrived late, 2026-02')).toMatchObject({
      '*Quantity': '2',
      '*UnitAmount': '40.00',
    });
    expect(line('Appointments not kept (no-show), 2026-02')).toMatchObject({
      '*Quantity': '2',
      '*UnitAmount': '25.00',
    });
  });

  it('a carrier with nothing but a no-show is invoiced for it at the yard’s rate', async () => {
    const all = await w.admin.post('/api/billing/invoice/generate-all', {});
    expect(all.status, all.text).toBe(200);
    const lone = await w.admin.get(`/api/billing/invoice/${w.yardId}/${w.noScac}/2026-02`);
    expect(lone.status, lone.text).toBe(200);
    expect(lone.body).toMatchObject({
      counts: { lateArrivals: 0, noShows: 1 },
      lines: {
        space: { amount: 0 },
        late: { quantity: 0, unitAmount: 4_000, amount: 0 },
        noShow: { quantity: 1, unitAmount: 6_000, amount: 6_000 },
        minimum: { amount: 0 },
      },
      subtotal: 6_000,
      tax: 495,
      total: 6_495,
    });
  });

  it('a fee that is negative, fractional or beyond the bound is refused per field and changes nothing', async () => {
    const before = await query(w.t.db, 'SELECT late_fee, no_show_fee FROM billing_yard_config');
    const bad = await w.admin.patch(`/api/billing/config/${w.yardId}/carrier/${w.prairie}`, {
      lateFee: -1,
      noShowFee: 12.5,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['body.lateFee', 'body.noShowFee']);
    const {
      yardId: _y,
      createdAt: _c,
      updatedAt: _u,
      ...config
    } = (await w.admin.get(`/api/billing/config/${w.yardId}`)).body;
    const tooBig = await w.admin.put(`/api/billing/config/${w.yardId}`, {
      ...config,
      noShowFee: 1_000_000_001,
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.errors.map((e: any) => e.path)).toEqual(['body.noShowFee']);
    expect(await query(w.t.db, 'SELECT late_fee, no_show_fee FROM billing_yard_config')).toEqual(before);
    expect(
      await query(
        w.t.db,
        'SELECT late_fee, no_show_fee FROM billing_carrier_config WHERE carrier_id = ?',
        w.prairie,
      ),
    ).toEqual([{ late_fee: null, no_show_fee: 2_500 }]);
  });

  it('the OpenAPI document shows the fees and the lines', async () => {
    const doc = (await w.admin.get('/v3/api-docs')).body;
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.BillingYardConfig.properties)).toEqual(
      expect.arrayContaining(['lateFee', 'noShowFee']),
    );
    expect(Object.keys(schemas.BillingCarrierConfigPatch.properties)).toEqual(
      expect.arrayContaining(['lateFee', 'noShowFee']),
    );
    expect(Object.keys(schemas.BillingLines.properties)).toEqual([
      'space',
      'overage',
      'moves',
      'gate',
      'late',
      'noShow',
      'minimum',
      'adjustments',
    ]);
  });
});
