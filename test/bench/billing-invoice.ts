import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase } from '../../shared/db/database.js';
import {
  computeBilling,
  periodBounds,
  periodWindow,
  previousPeriod,
  resolveRates,
} from '../../shared/modules/billing/compute/index.js';
import { BillingInputs } from '../../shared/modules/billing/inputs.js';
import { freePort } from '../helpers/ports.js';
import { verdict } from './lib.js';

/**
 * Invoices over HTTP (docs/performance.md), against the built edge (standalone: billing lives there) started as
 * pm2 would, on a SQLite file seeded beforehand with one yard-month (the previous month, America/
 * Chicago): BENCH_VISITS (100,000) trailer visits of 50 carriers — about 200,000 movements — and
 * 20,000 completed moves. Rows are written straight into the file in one transaction (the shape the
 * movement and task services write, without their per-row change capture): the HTTP path measured is
 * the invoice's, not the seeding's.
 * Measured: POST /api/billing/invoice for one carrier (about 2,000 visits; p50 of RUNS, each draft
 * deleted before the next), POST /api/billing/invoice/generate-all for the 50 carriers (from no
 * invoice), and beside them, in this process on the same file, the inputs' reads and the pure
 * computation alone for that carrier.
 * Targets: one invoice < 500 ms, generate-all < 3 s.
 * Run: npm run build && npx tsx test/bench/billing-invoice.ts
 */
const VISITS = Number(process.env.BENCH_VISITS ?? 100_000);
const MOVES = 20_000;
const CARRIERS = 50;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const ZONE = 'America/Chicago';
const MIN = 60_000;
const H = 60 * MIN;
const D = 24 * H;
const NODE_ARGS: string[] = createRequire(import.meta.url)('../../deploy/ecosystem.config.cjs').apps[0]
  .node_args;

let seed = 20260401;
function random(): number {
  // mulberry32: small, seeded, good enough for a workload.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (a: number, b: number) => a + Math.floor(random() * (b - a));
/** 40 % drop-and-hook, 45 % a few days, 15 % long storage (as billing-compute.ts). */
function duration(): number {
  const r = random();
  if (r < 0.4) return between(20 * MIN, 6 * H);
  if (r < 0.85) return between(6 * H, 3 * D);
  return between(3 * D, 14 * D);
}

const dir = mkdtempSync(join(tmpdir(), 'yard-bench-billing-'));
const dbPath = join(dir, 'yard.db');
const PERIOD = previousPeriod(ZONE, Date.now());
const bounds = periodBounds(PERIOD, ZONE);

/** Seeds the file: yard, carriers with configs, trailers, movements + visits, completed moves. */
function seedFile(): { yardId: string; carrierIds: string[]; visits: number; movements: number } {
  const db = openDatabase(dbPath);
  const s = db.sqlite;
  const now = Date.now();
  const yardId = uuidv7();
  const carrierIds = Array.from({ length: CARRIERS }, () => uuidv7());
  let visits = 0;
  let movements = 0;
  s.transaction(() => {
    s.prepare(
      "INSERT INTO yard (id, code, name, time_zone, site_id, created_at, updated_at, hlc) VALUES (?, 'BEN', 'Bench yard', ?, 'site-1', ?, ?, 'bench')",
    ).run(yardId, ZONE, now, now);
    const carrier = s.prepare(
      "INSERT INTO carrier (id, name, scac, created_at, updated_at, hlc) VALUES (?, ?, ?, ?, ?, 'bench')",
    );
    carrierIds.forEach((id, i) => {
      carrier.run(id, `Carrier ${i}`, `C${String(i).padStart(3, '0')}`, now, now);
    });
    s.prepare(
      `INSERT INTO billing_yard_config (yard_id, currency, tax_rate_bp, grace_minutes, booked_spaces,
         space_monthly_rate, overage_daily_rate, move_fee, gate_fee, minimum_monthly, issuer_name,
         payment_terms_days, created_at, updated_at)
       VALUES (?, 'USD', 825, 15, 20, 15000, 2500, 3500, 1200, 100000, 'Bench Yard Services', 30, ?, ?)`,
    ).run(yardId, now, now);
    // Each carrier books 30 spaces of its own (its agreement): a space line and overage on busy days.
    const carrierConfig = s.prepare(
      'INSERT INTO billing_carrier_config (id, yard_id, carrier_id, booked_spaces, created_at, updated_at) VALUES (?, ?, ?, 30, ?, ?)',
    );
    for (const id of carrierIds) carrierConfig.run(uuidv7(), yardId, id, now, now);
    const trailer = s.prepare(
      "INSERT INTO trailer (id, carrier_id, number, created_at, updated_at, hlc) VALUES (?, ?, ?, ?, ?, 'bench')",
    );
    const movement = s.prepare(
      "INSERT INTO movement (id, yard_id, direction, at, trailer_id, carrier_id, created_at, hlc) VALUES (?, ?, ?, ?, ?, ?, ?, 'bench')",
    );
    const visit = s.prepare(
      "INSERT INTO visit (id, yard_id, unit_kind, trailer_id, carrier_id, in_movement_id, out_movement_id, in_at, out_at) VALUES (?, ?, 'trailer', ?, ?, ?, ?, ?, ?)",
    );
    const trailerIds: Array<{ id: string; carrierId: string }> = [];
    for (let n = 0; visits < VISITS; n++) {
      const carrierId = carrierIds[n % CARRIERS]!;
      const trailerId = uuidv7();
      trailerIds.push({ id: trailerId, carrierId });
      trailer.run(trailerId, carrierId, `TRL${String(n).padStart(6, '0')}`, now, now);
      let t = bounds.start - between(0, 5 * D); // some trailers arrived before the period
      while (visits < VISITS && t < bounds.end) {
        const out = t + duration();
        const inId = uuidv7();
        const outId = uuidv7();
        movement.run(inId, yardId, 'in', t, trailerId, carrierId, t);
        movement.run(outId, yardId, 'out', out, trailerId, carrierId, out);
        visit.run(uuidv7(), yardId, trailerId, carrierId, inId, outId, t, out);
        visits++;
        movements += 2;
        t = out + between(1 * H, 24 * H);
      }
    }
    const task = s.prepare(
      `INSERT INTO yard_task (id, yard_id, type, trailer_id, status, created_at, updated_at, completed_at, billed_carrier_id, hlc)
       VALUES (?, ?, ?, ?, 'COMPLETED', ?, ?, ?, ?, 'bench')`,
    );
    const types = ['move', 'move', 'pull_to_door', 'return_to_spot', 'shunt'];
    for (let i = 0; i < MOVES; i++) {
      const tr = trailerIds[between(0, trailerIds.length)]!;
      const at = between(bounds.start, bounds.end);
      task.run(uuidv7(), yardId, types[i % types.length], tr.id, at, at, at, tr.carrierId);
    }
  })();
  s.exec('ANALYZE');
  db.close();
  return { yardId, carrierIds, visits, movements };
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
type Json = Record<string, any>;
async function call(token: string | undefined, method: string, path: string, body?: unknown) {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text ? JSON.parse(text) : {}) as Json,
    ms: performance.now() - started,
  };
}
function must<T extends { status: number; body: Json }>(r: T, what: string): T {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const seedStarted = performance.now();
const world = seedFile();
console.log(
  `seeded ${PERIOD} (${ZONE}): ${world.visits} visits, ${world.movements} movements, ${MOVES} completed moves, ${CARRIERS} carriers in ${Math.round(performance.now() - seedStarted)} ms`,
);

// The pure computation beside the HTTP figures: same file, same carrier, in this process.
const carrierId = world.carrierIds[7]!;
{
  const db = openDatabase(dbPath);
  const inputs = new BillingInputs(db.kysely);
  const yardConfig = (await inputs.yardConfig(world.yardId))!;
  const rates = resolveRates(yardConfig, (await inputs.carrierConfig(world.yardId, carrierId)) ?? null);
  const now = Date.now();
  const args = {
    yardId: world.yardId,
    carrierId,
    period: PERIOD,
    timeZone: ZONE,
    now,
    window: periodWindow(PERIOD, ZONE, now),
    rates,
    yardConfig,
  };
  const reads: number[] = [];
  const computes: number[] = [];
  let visitsOfCarrier = 0;
  for (let i = 0; i < RUNS + 2; i++) {
    let started = performance.now();
    const { input } = await inputs.gather(args);
    const read = performance.now() - started;
    started = performance.now();
    computeBilling(input);
    const compute = performance.now() - started;
    visitsOfCarrier = input.visits.length;
    if (i >= 2) {
      reads.push(read);
      computes.push(compute);
    }
  }
  console.log(
    `one carrier (${visitsOfCarrier} visits of the period): inputs read p50 ${median(reads).toFixed(1)} ms, pure computation p50 ${median(computes).toFixed(1)} ms`,
  );
  db.close();
}

const env = {
  ...process.env,
  YARD_DATA_DIR: dir,
  YARD_HTTP_PORT: String(port),
  YARD_HTTP_HOST: '127.0.0.1',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
  YARD_LOG_LEVEL: 'warn',
};
const checks: Array<[string, boolean]> = [];
const child = spawn(process.execPath, [...NODE_ARGS, 'dist/edge/main.js'], { env, stdio: 'inherit' });
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    if (i > 300) throw new Error('edge did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const token = must(
    await call(undefined, 'POST', '/api/auth/login', { username: 'bench', password: 'bench-password-1' }),
    'login',
  ).body.token as string;

  const key = { yardId: world.yardId, carrierId, period: PERIOD };
  const times: number[] = [];
  let lines: Json = {};
  for (let i = 0; i < RUNS + 1; i++) {
    const r = must(await call(token, 'POST', '/api/billing/invoice', key), 'generate');
    lines = r.body.lines;
    if (i > 0) times.push(r.ms); // the first warms the process
    must(await call(token, 'DELETE', `/api/billing/invoice/${r.body.id}`), 'delete draft');
  }
  const one = median(times);
  console.log(
    `POST /api/billing/invoice (one carrier): p50 ${one.toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms; lines ${JSON.stringify(
      Object.fromEntries(Object.entries(lines).map(([k, v]) => [k, (v as Json).amount])),
    )}`,
  );
  checks.push([`one invoice over HTTP p50 ${one.toFixed(0)} ms < 500 ms`, one < 500]);

  const all = must(await call(token, 'POST', '/api/billing/invoice/generate-all'), 'generate-all');
  console.log(
    `POST /api/billing/invoice/generate-all: ${all.ms.toFixed(0)} ms, created ${all.body.created.length}, skipped ${all.body.skipped.length}, waiting ${all.body.waiting.length}`,
  );
  checks.push([
    `generate-all created ${all.body.created.length} of ${CARRIERS}`,
    all.body.created.length === CARRIERS,
  ]);
  checks.push([`generate-all for ${CARRIERS} carriers ${all.ms.toFixed(0)} ms < 3000 ms`, all.ms < 3000]);
  const again = must(await call(token, 'POST', '/api/billing/invoice/generate-all'), 'generate-all again');
  console.log(
    `generate-all again (all exist): ${again.ms.toFixed(0)} ms, created ${again.body.created.length}`,
  );
  checks.push(['generate-all again creates nothing', again.body.created.length === 0]);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
console.log('\nResults');
for (const [text, ok] of checks) console.log(`  ${verdict(ok)}  ${text}`);
process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
