import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { Client } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type BillingWorld, checkIn, closeBillingWorld, siteToCloud, startBillingWorld } from './fixture.js';

/**
 * DOMAIN.md "Billing": check-ins are the carrier's `in` movements in the window that no later
 * movement corrects (correctsId); a corrected check-in is billed once, to the carrier of the
 * correction. At the site a clerk checks trailer C1 in for Lone Hauler, then corrects the check-in
 * (same instant, forced since the trailer is in) to Prairie: Lone Hauler owes no gate fee, Prairie
 * one (500), and the correction's carrier is the one whose visit counts.
 */
describe.each(TEST_DIALECTS)('a corrected check-in (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
  let w: BillingWorld;
  let admin: Client;

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    admin = w.admin;
    const at = '2026-03-02T08:00:00.000Z';
    const first = await checkIn(w, at, 'C1', w.noScac);
    const correction = await w.siteAdmin.post('/api/movement', {
      yardId: w.yardId,
      direction: 'in',
      at,
      trailer: { id: first.trailerId },
      carrierId: w.prairie,
      correctsId: first.id,
      force: true,
    });
    expect(correction.status, correction.text).toBe(201);
    await siteToCloud(w);
    clock.set('2026-03-03T10:00:00Z');
  });
  afterAll(() => closeBillingWorld(w));

  it('is billed once, to the carrier of the correction', async () => {
    const res = await admin.post('/api/billing/summary/generate', { yardId: w.yardId });
    expect(res.status, res.text).toBe(200);
    const byCarrier = Object.fromEntries(res.body.items.map((s: any) => [s.carrierId, s]));
    // Lone Hauler has no config and, its check-in corrected away, nothing to be billed for.
    expect(byCarrier[w.noScac]?.lines.gate ?? { quantity: 0, amount: 0 }).toMatchObject({
      quantity: 0,
      amount: 0,
    });
    expect(byCarrier[w.prairie]).toMatchObject({
      lines: { gate: { quantity: 1, unitAmount: 500, amount: 500 }, overage: { amount: 0 } },
      counts: { checkIns: 1 },
    });
  });

  it('the carrier of the corrected check-in alone: no gate fee', async () => {
    const res = await admin.post('/api/billing/summary/generate', { yardId: w.yardId, carrierId: w.noScac });
    expect(res.status, res.text).toBe(200);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ lines: { gate: { quantity: 0, amount: 0 } }, total: 0 });
  });
});
