import {
  type BillingInput,
  computeBilling,
  periodBounds,
  resolveRates,
  type Visit,
} from '../../shared/modules/billing/compute/index.js';
import { verdict } from './lib.js';

/**
 * The pure billing computation alone (docs/performance.md): one yard-month in America/Chicago (March 2026, with
 * its 23-hour day) with BENCH_VISITS (100,000) visits — each a check-in and, unless still in, a
 * check-out: about 200,000 movements — and 20,000 completed moves, spread over 50 carriers.
 * Scenario A bills all 100,000 visits to one carrier (the worst case for one computation), in
 * trailer order (A) and in arrival order (A', as a query ordered by inAt returns them);
 * scenario B bills each of the 50 carriers (about 2,000 visits each), as generate-all does; scenario
 * C is the ongoing period with `now` mid-month (open visits present up to now).
 * Durations are a realistic mix: 40 % drop-and-hook (20 min - 6 h), 45 % a few days (6 h - 3 d),
 * 15 % long storage (3 - 14 d); each trailer comes back 1 - 24 h after leaving; some visits began
 * before the period and some are still in at its end. Seeded, so every run sees the same yard.
 * Target: well under a second for the month; checked: p50 < 300 ms in every scenario.
 * Run: npx tsx test/bench/billing-compute.ts
 */
const VISITS = Number(process.env.BENCH_VISITS ?? 100_000);
const MOVES = 20_000;
const CARRIERS = 50;
const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const WARMUP = 3;
const TARGET_P50_MS = 300;
const ZONE = 'America/Chicago';
const PERIOD = '2026-03';
const MIN = 60_000;
const H = 60 * MIN;
const D = 24 * H;

let seed = 20260301;
function random(): number {
  // mulberry32: small, seeded, good enough for a workload.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (a: number, b: number) => a + Math.floor(random() * (b - a));

function duration(): number {
  const r = random();
  if (r < 0.4) return between(20 * MIN, 6 * H);
  if (r < 0.85) return between(6 * H, 3 * D);
  return between(3 * D, 14 * D);
}

interface Generated {
  byCarrier: Visit[][];
  movements: number;
  open: number;
}

/** Trailers, each with one carrier, coming and going back to back until VISITS visits exist. */
function generate(bounds: { start: number; end: number }, now: number): Generated {
  const byCarrier: Visit[][] = Array.from({ length: CARRIERS }, () => []);
  let made = 0;
  let movements = 0;
  let open = 0;
  for (let trailer = 0; made < VISITS; trailer++) {
    const carrier = trailer % CARRIERS;
    let t = bounds.start - between(0, 5 * D); // some trailers arrived before the period
    while (made < VISITS && t < Math.min(bounds.end, now)) {
      const inAt = t;
      const out = inAt + duration();
      const still = out > now;
      const id = `${trailer}-${made}`;
      byCarrier[carrier]?.push({
        trailerId: `T${trailer}`,
        trailerNumber: `TRL${String(trailer).padStart(6, '0')}`,
        inAt,
        outAt: still ? null : out,
        inMovementId: `mi-${id}`,
        outMovementId: still ? null : `mo-${id}`,
        attachmentIds: [`a-${id}`],
      });
      made++;
      movements += still ? 1 : 2;
      if (still) {
        open++;
        break;
      }
      t = out + between(1 * H, 24 * H);
    }
  }
  return { byCarrier, movements, open };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** p50 and max of RUNS timed calls after WARMUP untimed ones. */
function time(run: () => void): { p50: number; max: number } {
  for (let i = 0; i < WARMUP; i++) run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), max: times.at(-1) as number };
}

const rates = resolveRates(
  {
    bookedSpaces: 20,
    spaceMonthlyRate: 15_000,
    overageDailyRate: 2_500,
    moveFee: 3_500,
    gateFee: 1_200,
    minimumMonthly: 100_000,
  },
  { bookedSpaces: 40 },
);
function input(visits: Visit[], now: number, moves: number, checkIns: number): BillingInput {
  return {
    period: PERIOD,
    timeZone: ZONE,
    now,
    rates,
    graceMinutes: 15,
    taxRateBp: 825,
    visits,
    moves,
    checkIns,
    adjustments: [-5_000, 12_500],
  };
}

const bounds = periodBounds(PERIOD, ZONE);
const after = bounds.end + 3 * D;
const checks: Array<[string, boolean]> = [];

{
  const g = generate(bounds, after);
  const all = g.byCarrier.flat();
  const checkIns = all.filter((v) => v.inAt >= bounds.start && v.inAt < bounds.end).length;
  console.log(
    `Yard-month ${PERIOD} ${ZONE}: ${all.length} visits, ${g.movements} movements (${g.open} still in), ${MOVES} moves, ${checkIns} check-ins in the period`,
  );

  let result = computeBilling(input(all, after, MOVES, checkIns));
  const a = time(() => {
    result = computeBilling(input(all, after, MOVES, checkIns));
  });
  const maxPeak = Math.max(...result.days.map((d) => d.peak));
  console.log(
    `  A one carrier, all visits: p50 ${a.p50.toFixed(1)} ms, max ${a.max.toFixed(1)} ms (peak ${maxPeak}, annex ${result.annex.length}, total ${result.total})`,
  );
  checks.push([
    `one carrier, ${all.length} visits: p50 ${a.p50.toFixed(1)} ms < ${TARGET_P50_MS} ms`,
    a.p50 < TARGET_P50_MS,
  ]);

  // The same, read in arrival order (ORDER BY inAt): the annex needs no sort. Copied, so the
  // objects lie in memory in that order, as rows read from a query would.
  const sorted = [...all].sort((x, y) => x.inAt - y.inAt).map((v) => ({ ...v }));
  const a2 = time(() => {
    computeBilling(input(sorted, after, MOVES, checkIns));
  });
  console.log(
    `  A' the same visits in arrival order: p50 ${a2.p50.toFixed(1)} ms, max ${a2.max.toFixed(1)} ms`,
  );
  checks.push([
    `one carrier, arrival order: p50 ${a2.p50.toFixed(1)} ms < ${TARGET_P50_MS} ms`,
    a2.p50 < TARGET_P50_MS,
  ]);

  const b = time(() => {
    for (const visits of g.byCarrier) computeBilling(input(visits, after, MOVES / CARRIERS, visits.length));
  });
  console.log(
    `  B ${CARRIERS} carriers (~${Math.round(all.length / CARRIERS)} visits each), all of them: p50 ${b.p50.toFixed(1)} ms, max ${b.max.toFixed(1)} ms`,
  );
  checks.push([
    `${CARRIERS} carriers together: p50 ${b.p50.toFixed(1)} ms < ${TARGET_P50_MS} ms`,
    b.p50 < TARGET_P50_MS,
  ]);
}

{
  // The ongoing period: now is 17 March 15:37 CDT; visits after now do not exist yet.
  const now = Date.parse('2026-03-17T20:37:00Z');
  seed = 20260317;
  const g = generate(bounds, now);
  const all = g.byCarrier.flat();
  const c = time(() => {
    computeBilling(input(all, now, MOVES / 2, all.length));
  });
  console.log(
    `  C ongoing period, now mid-month, ${all.length} visits (${g.open} open): p50 ${c.p50.toFixed(1)} ms, max ${c.max.toFixed(1)} ms`,
  );
  checks.push([
    `ongoing period, ${all.length} visits: p50 ${c.p50.toFixed(1)} ms < ${TARGET_P50_MS} ms`,
    c.p50 < TARGET_P50_MS,
  ]);
}

console.log('\nResults');
for (const [text, ok] of checks) console.log(`  ${verdict(ok)}  ${text}`);
process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
