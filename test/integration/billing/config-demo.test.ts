import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../../edge/demo-data.js';
import { Client } from '../../helpers/http.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

/** `npm start`'s standalone demo has billing configs for its yard and each of its carriers. */
// The standalone edge's demo (seeded through the edge's own gates and movements): SQLite only (docs/architecture.md "Two databases, and several cloud nodes").
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await seedDemoData(t.url, ADMIN.username, ADMIN.password, () => {});
});
afterAll(() => t.close());

describe('demo billing configs', () => {
  it('Dallas bills in USD with Texas tax, and each demo carrier has its agreement', async () => {
    const admin = new Client(t.url, t.adminToken);
    const res = await admin.get('/api/billing/config/with-carriers');
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
    const dallas = res.body.items[0];
    expect(dallas).toMatchObject({
      currency: 'USD',
      taxRateBp: 825,
      graceMinutes: 30,
      moveFee: 1_500,
      lateFee: 5_000,
      noShowFee: 10_000,
    });
    const carriers = (await admin.get('/api/carrier')).body.items;
    const byScac = Object.fromEntries(
      dallas.carriers.map((c: any) => [carriers.find((k: any) => k.id === c.carrierId).scac, c.effective]),
    );
    expect(byScac).toEqual({
      LSLG: expect.objectContaining({ bookedSpaces: 6, spaceMonthlyRate: 14_000, minimumMonthly: 75_000 }),
      PRHL: expect.objectContaining({
        bookedSpaces: 2,
        moveFee: 1_200,
        spaceMonthlyRate: 15_000,
        lateFee: 5_000,
        noShowFee: 7_500,
      }),
      GCCA: expect.objectContaining({
        bookedSpaces: 0,
        moveFee: 1_500,
        minimumMonthly: 0,
        noShowFee: 10_000,
      }),
    });
  });
});
