import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedMovesWriter } from '../../../edge/demo-billing.js';
import { seedDemoData } from '../../../edge/demo-data.js';
import { periodWindow, previousPeriod } from '../../../shared/modules/billing/compute/index.js';
import { Client, rows } from '../../helpers/http.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * `npm start`'s demo bills its dock appointments (docs/domain.md "Billing", appointment fees): the
 * yard sets a late fee and a no-show fee, and the demo's appointments of last month give the
 * previous month's invoice of every carrier its LATE and NO_SHOW lines.
 */
// The standalone edge's demo, which books itself: SQLite only (docs/architecture.md "Two databases, and several cloud nodes").
let t: TestApp;
let admin: Client;
beforeAll(async () => {
  t = await startTestApp();
  admin = new Client(t.url, t.adminToken);
  await seedDemoData(t.url, ADMIN.username, ADMIN.password, () => {}, {
    recordMoves: (yardId) => completedMovesWriter(t, yardId),
    site: t,
  });
});
afterAll(() => t.close());

describe('demo appointment fees', () => {
  it('the previous month’s invoice of each carrier bills its late arrivals and no-shows (LATE, NO_SHOW)', async () => {
    const yard = (await admin.get('/api/yard')).body.items[0];
    const period = previousPeriod(yard.timeZone, Date.now());
    const carriers = (await admin.get('/api/carrier')).body.items as Array<{ id: string; scac: string }>;
    // What the demo recorded for last month, counted from the appointments themselves.
    const { start, end } = periodWindow(period, yard.timeZone, Date.now());
    const counted = rows(
      t.db,
      `SELECT carrier_id AS carrierId,
              sum(arrival = 'late' AND arrived_at >= ? AND arrived_at < ?) AS late,
              sum(no_show_at >= ? AND no_show_at < ? AND arrived_at IS NULL AND cancelled_at IS NULL) AS noShow
         FROM appointment GROUP BY carrier_id`,
      start,
      end,
      start,
      end,
    );
    // The yard's fees; Prairie's agreement has its own no-show fee.
    const noShowFee: Record<string, number> = { LSLG: 10_000, PRHL: 7_500, GCCA: 10_000 };
    for (const c of carriers) {
      const res = await admin.post('/api/billing/invoice', { yardId: yard.id, carrierId: c.id, period });
      expect(res.status, res.text).toBe(201);
      const { late, noShow } = res.body.lines;
      const seen = counted.find((r: { carrierId: string }) => r.carrierId === c.id);
      expect(late.quantity, c.scac).toBeGreaterThanOrEqual(1);
      expect(noShow.quantity, c.scac).toBeGreaterThanOrEqual(1);
      expect(late).toEqual({ quantity: seen.late, unitAmount: 5_000, amount: seen.late * 5_000 });
      expect(noShow).toEqual({
        quantity: seen.noShow,
        unitAmount: noShowFee[c.scac],
        amount: seen.noShow * noShowFee[c.scac]!,
      });
    }
  });
});
