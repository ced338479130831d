import { ManualClock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { computeBilling, periodWindow, resolveRates } from '../../shared/modules/billing/compute/index.js';
import { BillingCalculator, BillingInputs } from '../../shared/modules/billing/inputs.js';
import { Client } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Billing at scale (issue 14 "Performance"): one UTC yard-month (February 2026) with 100,000
 * trailer visits (200,000 movements) and 20,000 completed moves spread over 50 carriers, plus a
 * month of history before it. Measures one invoice over HTTP (PUT recomputing the draft, median of
 * 5), generate-all for the 50 carriers, and the pure computation alone for one carrier.
 * Run: npx tsx test/bench/billing-invoice.ts  (BENCH_VISITS, BENCH_CARRIERS to change the sizes)
 */
const VISITS = Number(process.env.BENCH_VISITS ?? 100_000);
const CARRIERS = Number(process.env.BENCH_CARRIERS ?? 50);
const MOVES = VISITS / 5;
const FEB = Date.parse('2026-02-01T00:00:00Z');
const MONTH = 28 * 86_400_000;

const clock = new ManualClock(Date.parse('2026-03-05T12:00:00Z'));
const t = await startTestApp({ clock, env: { YARD_LOG_LEVEL: 'warn' } });
const sqlite = t.db.sqlite;
const now = clock.now();
const yardId = newId();
const carriers = Array.from({ length: CARRIERS }, () => newId());
console.log(`Seeding ${VISITS} visits (+ a month of history), ${MOVES} moves, ${CARRIERS} carriers...`);
sqlite.transaction(() => {
  sqlite
    .prepare(
      `INSERT INTO yard (id, code, name, time_zone, site_id, created_at, updated_at, hlc) VALUES (?, 'BEN', 'Bench', 'UTC', 'site-1', ?, ?, '0')`,
    )
    .run(yardId, now, now);
  const carrier = sqlite.prepare(
    `INSERT INTO carrier (id, name, scac, created_at, updated_at, hlc) VALUES (?, ?, ?, ?, ?, '0')`,
  );
  for (const [i, id] of carriers.entries()) {
    carrier.run(id, `Carrier ${i}`, `C${String(i).padStart(3, '0')}`, now, now);
  }
  sqlite
    .prepare(
      `INSERT INTO billing_yard_config (yard_id, currency, tax_rate_bp, booked_spaces, space_monthly_rate, overage_daily_rate, move_fee, gate_fee, created_at, updated_at) VALUES (?, 'USD', 825, 20, 10000, 1500, 2500, 500, ?, ?)`,
    )
    .run(yardId, now, now);
  const config = sqlite.prepare(
    `INSERT INTO billing_carrier_config (id, yard_id, carrier_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
  );
  for (const c of carriers) config.run(newId(), yardId, c, now, now);
  const trailer = sqlite.prepare(
    `INSERT INTO trailer (id, carrier_id, number, created_at, updated_at, hlc) VALUES (?, ?, ?, ?, ?, '0')`,
  );
  const movement = sqlite.prepare(
    `INSERT INTO movement (id, yard_id, direction, at, trailer_id, carrier_id, created_at, hlc) VALUES (?, ?, ?, ?, ?, ?, ?, '0')`,
  );
  const visit = sqlite.prepare(
    `INSERT INTO visit (id, yard_id, unit_kind, trailer_id, carrier_id, in_movement_id, out_movement_id, in_at, out_at) VALUES (?, ?, 'trailer', ?, ?, ?, ?, ?, ?)`,
  );
  const task = sqlite.prepare(
    `INSERT INTO yard_task (id, yard_id, type, trailer_id, status, created_at, updated_at, completed_at, billed_carrier_id, hlc) VALUES (?, ?, 'move', ?, 'COMPLETED', ?, ?, ?, ?, '0')`,
  );
  const trailers: string[] = [];
  for (let i = 0; i < CARRIERS * 100; i++) {
    const id = newId();
    trailers.push(id);
    trailer.run(id, carriers[i % CARRIERS], `T${i}`, now, now);
  }
  // A month of history (January) and the month billed (February): visits of 2 to 30 hours.
  for (const [start, count] of [
    [FEB - 31 * 86_400_000, VISITS],
    [FEB, VISITS],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const trailerId = trailers[i % trailers.length]!;
      const carrierId = carriers[i % CARRIERS]!;
      const inAt = start + Math.floor((i / count) * MONTH);
      const outAt = inAt + (2 + (i % 29)) * 3_600_000;
      const inId = newId();
      const outId = newId();
      movement.run(inId, yardId, 'in', inAt, trailerId, carrierId, inAt);
      movement.run(outId, yardId, 'out', outAt, trailerId, carrierId, outAt);
      visit.run(newId(), yardId, trailerId, carrierId, inId, outId, inAt, outAt);
    }
  }
  for (let i = 0; i < MOVES; i++) {
    const at = FEB + Math.floor((i / MOVES) * MONTH);
    task.run(newId(), yardId, trailers[i % trailers.length], at, at, at, carriers[i % CARRIERS]);
  }
})();
// No ANALYZE: a yard's database is not analysed in production either.

const admin = new Client(t.url, t.adminToken);
const key = `/api/billing/invoice/${yardId}/${carriers[0]}/2026-02`;
const first = await admin.put(key, {});
if (first.status !== 200) throw new Error(`PUT ${first.status} ${first.text}`);
const times: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const res = await admin.put(key, {});
  times.push(performance.now() - t0);
  if (res.status !== 200) throw new Error(`PUT ${res.status}`);
}
times.sort((a, b) => a - b);
const oneMs = times[2]!;
console.log(`  visits of the carrier in the annex: ${first.body.annex.length}, total ${first.body.total}`);

await admin.delete(key);
const t1 = performance.now();
const all = await admin.post('/api/billing/invoice/generate-all');
const allMs = performance.now() - t1;
if (all.status !== 200 || all.body.created.length !== CARRIERS)
  throw new Error(`generate-all ${all.status} ${all.text.slice(0, 300)}`);

const inputs = new BillingInputs(t.core.kysely);
const yardConfig = (await inputs.yardConfig(yardId))!;
const window = periodWindow('2026-02', 'UTC', now);
const { input } = await inputs.gather({
  yardId,
  carrierId: carriers[0]!,
  period: '2026-02',
  timeZone: 'UTC',
  now,
  window,
  rates: resolveRates(yardConfig, (await inputs.carrierConfig(yardId, carriers[0]!)) ?? null),
  yardConfig,
});
const computeTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  computeBilling(input);
  computeTimes.push(performance.now() - t0);
}
computeTimes.sort((a, b) => a - b);
const t2 = performance.now();
await new BillingCalculator(inputs).calculate({
  yard: { id: yardId, timeZone: 'UTC' },
  carrierId: carriers[0]!,
  period: '2026-02',
  now,
  yardConfig,
});
const gatherAndCompute = performance.now() - t2;

const checks: Array<[string, boolean]> = [
  [`one invoice over HTTP ${oneMs.toFixed(0)} ms < 500 ms`, oneMs < 500],
  [`generate-all (${CARRIERS} carriers) ${allMs.toFixed(0)} ms < 3000 ms`, allMs < 3000],
];
console.log(
  JSON.stringify(
    {
      oneInvoiceHttpMedianMs: Math.round(oneMs),
      generateAllMs: Math.round(allMs),
      computeOnlyMedianMs: Number(computeTimes[2]!.toFixed(2)),
      gatherAndComputeMs: Math.round(gatherAndCompute),
    },
    null,
    2,
  ),
);
for (const [text, ok] of checks) console.log(`${ok ? 'PASS' : 'FAIL'} ${text}`);
await t.close();
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
