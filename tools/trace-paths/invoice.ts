import { ManualClock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { startTestApp } from '../../test/helpers/test-app.js';
import type { TracedPath } from '../trace-path.js';
import { AS_IN_SERVICE, Client, created } from './world.js';

const PERIOD = '2026-02';

/**
 * A standalone edge (billing runs there) with one UTC yard, its billing config and two carriers
 * (one with a carrier config), each with a few trailers checked in and out in February; the clock
 * in March. The operation is one draft for February (POST /api/billing/invoice); it is deleted
 * after each run, unmeasured.
 */
export async function invoicePath(): Promise<TracedPath> {
  const clock = new ManualClock();
  clock.set('2026-02-01T00:00:00Z');
  // The clock walks through a month: the admin's login outlives it.
  const t = await startTestApp({
    clock,
    config: AS_IN_SERVICE,
    env: { YARD_STAFF_TOKEN_TTL_HOURS: '9000' },
  });
  const admin = new Client(t.url, t.adminToken);
  const yardId = (await created(admin.post('/api/yard', { code: 'INV', name: 'Invoices', timeZone: 'UTC' })))
    .id;
  const carriers: string[] = [];
  for (const scac of ['PRFL', 'LONE'])
    carriers.push((await created(admin.post('/api/carrier', { name: `Carrier ${scac}`, scac }))).id);
  const now = clock.now();
  // Written straight to their tables (as the billing tests do): the configs' routes are not the path.
  await t.core.kysely
    .insertInto('billingYardConfig')
    .values({
      yardId,
      currency: 'USD',
      taxRateBp: 825,
      graceMinutes: 0,
      bookedSpaces: 1,
      spaceMonthlyRate: 10_000,
      overageDailyRate: 1_500,
      moveFee: 2_500,
      gateFee: 500,
      minimumMonthly: 0,
      issuerName: 'INV Yard Services',
      issuerAddress: '1 Dock Rd',
      issuerTaxId: 'TX-1',
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  await t.core.kysely
    .insertInto('billingCarrierConfig')
    .values({
      id: newId(),
      yardId,
      carrierId: carriers[0]!,
      bookedSpaces: null,
      spaceMonthlyRate: null,
      overageDailyRate: null,
      moveFee: null,
      gateFee: null,
      minimumMonthly: 30_000,
      billToName: 'Prairie Freight AP',
      billToAddress: '9 Ledger Ave',
      billToEmail: 'ap@prairie.example',
      billToTaxId: null,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  for (const [k, carrierId] of carriers.entries()) {
    for (let day = 2; day <= 20; day += 6) {
      const inAt = `2026-02-${String(day).padStart(2, '0')}T08:00:00.000Z`;
      const outAt = `2026-02-${String(day + 3).padStart(2, '0')}T16:00:00.000Z`;
      clock.set(inAt);
      const inMove = await created(
        admin.post('/api/movement', {
          yardId,
          direction: 'in',
          at: inAt,
          trailer: { number: `INV${k}${day}`, carrierId },
        }),
      );
      clock.set(outAt);
      await created(
        admin.post('/api/movement', {
          yardId,
          direction: 'out',
          at: outAt,
          trailer: { id: inMove.trailerId },
        }),
      );
    }
  }
  clock.set('2026-03-10T12:00:00Z');
  const draft = (carrierId: string) =>
    created(admin.post('/api/billing/invoice', { yardId, carrierId, period: PERIOD }));
  return {
    orchestrator: 'shared/modules/billing/invoice/generation.ts',
    async warmUp() {
      await draft(carriers[1]!);
    },
    async run(probe) {
      probe.start();
      let invoice: { id: string };
      try {
        invoice = await draft(carriers[0]!);
      } finally {
        probe.stop();
      }
      await created(admin.delete(`/api/billing/invoice/${invoice.id}`), 204);
    },
    close: () => t.close(),
  };
}
