import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedMovesWriter } from '../../../edge/demo-billing.js';
import { seedDemoData } from '../../../edge/demo-data.js';
import { previousPeriod } from '../../../shared/modules/billing/compute/index.js';
import { Client, rows } from '../../helpers/http.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * `npm start`'s demo has a month of history (real clock, as the demo): an invoice of the previous
 * month has real lines for every carrier, and overage for those running more trailers than they book.
 */
// The standalone edge's demo (seeded through the edge's own gates and movements): SQLite only (docs/architecture.md "Two databases, and several cloud nodes").
let t: TestApp;
let admin: Client;
beforeAll(async () => {
  t = await startTestApp();
  admin = new Client(t.url, t.adminToken);
  await seedDemoData(t.url, ADMIN.username, ADMIN.password, () => {}, {
    recordMoves: (yardId) => completedMovesWriter(t, yardId),
  });
});
afterAll(() => t.close());

describe('demo billing history', () => {
  it('every trailer of the history has left; moves are completed and billed to the trailer’s carrier', () => {
    const open = rows(
      t.db,
      "SELECT count(*) AS n FROM visit v JOIN trailer tr ON tr.id = v.trailer_id WHERE v.out_at IS NULL AND tr.number NOT LIKE '%53__'",
    );
    expect(open[0].n).toBe(0);
    const moves = rows(
      t.db,
      "SELECT count(*) AS n, sum(t.billed_carrier_id = tr.carrier_id) AS own FROM yard_task t JOIN trailer tr ON tr.id = t.trailer_id WHERE t.status = 'COMPLETED'",
    )[0];
    expect(moves.n).toBeGreaterThan(100);
    expect(moves.own).toBe(moves.n);
    // Written through the change capture, so a linked site sends them to the cloud, where billing runs.
    const unlogged = rows(
      t.db,
      "SELECT count(*) AS n FROM yard_task t WHERE t.status = 'COMPLETED' AND NOT EXISTS (SELECT 1 FROM change_log c WHERE c.entity_id = t.id)",
    );
    expect(unlogged[0].n).toBe(0);
  });

  it('the previous month’s invoice of each carrier has non-zero lines, overage where the fleet exceeds the booking', async () => {
    const yard = (await admin.get('/api/yard')).body.items[0];
    const period = previousPeriod(yard.timeZone, Date.now());
    const carriers = (await admin.get('/api/carrier')).body.items as Array<{ id: string; scac: string }>;
    const bySCAC: Record<string, Record<string, { quantity: number; amount: number }>> = {};
    for (const c of carriers) {
      const res = await admin.post('/api/billing/invoice', { yardId: yard.id, carrierId: c.id, period });
      expect(res.status, res.text).toBe(201);
      expect(res.body.total).toBeGreaterThan(0);
      bySCAC[c.scac] = res.body.lines;
    }
    for (const lines of Object.values(bySCAC)) {
      expect(lines.moves!.amount).toBeGreaterThan(0);
      expect(lines.gate!.amount).toBeGreaterThan(0);
      expect(lines.overage!.amount).toBeGreaterThan(0);
    }
    expect(bySCAC.LSLG!.space).toMatchObject({ quantity: 6, amount: 84_000 });
    expect(bySCAC.PRHL!.space).toMatchObject({ quantity: 2, amount: 30_000 });
  });
});
