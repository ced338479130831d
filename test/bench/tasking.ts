import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { freePort } from '../helpers/ports.js';
import { verdict } from './lib.js';

/**
 * Yard tasking benchmarks (docs/performance.md), against the built edge started as pm2 would:
 * 1. a shift: 50 drivers heartbeat every 10 s, poll their tasks every 5 s and act on SSE
 *    assignments at once (start + complete); a dispatcher creates tasks at 5/s. Reports p50/p99 of
 *    the drivers' calls and, per task, the time from "a driver became available" to its assignment.
 * 2. location ingest: batches of 500 points, 4 concurrent senders.
 * 3. yard summary with 1,000,000 historical tasks in the database.
 * BENCH_SECONDS (30) sets the shift length; BENCH_TASKS (1000000) the history size.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const HISTORY = Number(process.env.BENCH_TASKS ?? 1_000_000);
const DRIVERS = 50;
const NODE_ARGS: string[] = createRequire(import.meta.url)('../../deploy/ecosystem.config.cjs').apps[0]
  .node_args;
const checks: Array<[string, boolean]> = [];
const dir = mkdtempSync(join(tmpdir(), 'yard-bench-tasks-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  YARD_DATA_DIR: dir,
  YARD_HTTP_PORT: String(port),
  YARD_HTTP_HOST: '127.0.0.1',
  YARD_ADMIN_USER: 'bench',
  YARD_ADMIN_PASSWORD: 'bench-password-1',
  YARD_LOG_LEVEL: 'warn',
};

type Json = Record<string, any>;
async function call(
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json; ms: number }> {
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
  return { status: res.status, body: text ? JSON.parse(text) : {}, ms: performance.now() - started };
}
function must<T extends { status: number; body: Json }>(r: T, what: string): T {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : Number.NaN;
};

const child = spawn(process.execPath, [...NODE_ARGS, 'dist/edge/main.js'], { env, stdio: 'inherit' });
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    if (i > 300) throw new Error('edge did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const admin = must(
    await call(undefined, 'POST', '/api/auth/login', { username: 'bench', password: 'bench-password-1' }),
    'login',
  ).body.token as string;
  await call(admin, 'PUT', '/api/settings', { settings: { 'tasks.maxAssignedPerDriver': 1 } });
  const yard = must(
    await call(admin, 'POST', '/api/yard', {
      code: 'BENCH',
      name: 'Bench yard',
      timeZone: 'America/Chicago',
    }),
    'yard',
  ).body;
  const gate = must(
    await call(admin, 'POST', `/api/yard/${yard.id}/gate`, { name: 'Gate', direction: 'both' }),
    'gate',
  ).body;
  const spots: Json[] = [];
  for (let i = 0; i < 40; i++)
    spots.push(
      must(
        await call(admin, 'POST', `/api/yard/${yard.id}/location`, { kind: 'spot', name: `S${i}` }),
        'spot',
      ).body,
    );
  const trailers: string[] = [];
  for (let i = 0; i < 200; i++) {
    const m = must(
      await call(admin, 'POST', '/api/movement', {
        yardId: yard.id,
        gateId: gate.id,
        direction: 'in',
        trailer: { number: `BT${i}` },
      }),
      'check-in',
    ).body;
    trailers.push(m.trailerId);
  }
  console.log(`Setting up ${DRIVERS} drivers...`);
  const drivers: Array<{ id: string; token: string }> = [];
  for (let i = 0; i < DRIVERS; i++) {
    const d = must(
      await call(admin, 'POST', '/api/driver', {
        kind: 'yard',
        firstName: 'Driver',
        lastName: `${i}`,
        driverCode: `B${100 + i}`,
        pin: '1234',
      }),
      'driver',
    ).body;
    const token = must(
      await call(undefined, 'POST', '/api/auth/driver-login', { driverCode: `B${100 + i}`, pin: '1234' }),
      'driver login',
    ).body.token as string;
    drivers.push({ id: d.id, token });
  }

  // 1. The shift.
  const latencies: number[] = [];
  const failures: string[] = [];
  let running = true;
  const driverCall = async (token: string, method: string, path: string, body?: unknown) => {
    const r = await call(token, method, path, body);
    latencies.push(r.ms);
    if (r.status >= 300) failures.push(`${method} ${path} ${r.status} ${r.body.code}`);
    return r;
  };
  const work = async (token: string, tasks: Json[]) => {
    for (const task of tasks.filter((t) => t.status === 'ASSIGNED')) {
      await driverCall(token, 'POST', '/api/yard-task/driver/start', { taskIds: [task.id] });
      await driverCall(token, 'POST', '/api/yard-task/driver/complete', { taskIds: [task.id] });
    }
  };
  const loops: Array<Promise<void>> = [];
  const sseAborts: AbortController[] = [];
  for (const d of drivers) {
    must(
      await call(d.token, 'POST', '/api/yard-task/driver/session/start', {
        yardId: yard.id,
        deviceId: `dev-${d.id}`,
      }),
      'session',
    );
    const abort = new AbortController();
    sseAborts.push(abort);
    // SSE: act on an assignment as soon as it arrives.
    loops.push(
      (async () => {
        const res = await fetch(`${base}/api/events`, {
          headers: { authorization: `Bearer ${d.token}` },
          signal: abort.signal,
        });
        const reader = res.body!.getReader();
        let buffer = '';
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done || !running) break;
            buffer += Buffer.from(value).toString('utf8');
            let cut = buffer.indexOf('\n\n');
            while (cut >= 0) {
              const frame = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              if (frame.includes('event: task.assigned')) {
                const data = JSON.parse(
                  frame
                    .split('\n')
                    .find((l) => l.startsWith('data: '))!
                    .slice(6),
                );
                void work(d.token, [data.data]);
              }
              cut = buffer.indexOf('\n\n');
            }
          }
        } catch {
          // aborted at the end
        }
      })(),
    );
    const stagger = Math.random() * 5000;
    loops.push(
      (async () => {
        await new Promise((r) => setTimeout(r, stagger));
        let n = 0;
        while (running) {
          const tasks = await driverCall(d.token, 'GET', '/api/yard-task/driver/tasks');
          await work(d.token, tasks.body.items ?? []);
          if (n++ % 2 === 0) await driverCall(d.token, 'POST', '/api/yard-task/driver/last-check', {});
          await new Promise((r) => setTimeout(r, 5000));
        }
      })(),
    );
  }
  console.log(`Shift: ${DRIVERS} drivers, tasks created at 5/s for ${SECONDS} s...`);
  let created = 0;
  const creator = (async () => {
    const end = performance.now() + SECONDS * 1000;
    while (performance.now() < end) {
      const next = performance.now() + 200;
      const r = await call(admin, 'POST', '/api/yard-task', {
        yardId: yard.id,
        type: 'move',
        trailerId: trailers[created % trailers.length],
        toLocationId: spots[created % spots.length]!.id,
        priority: created % 4,
      });
      if (r.status !== 201) failures.push(`create ${r.status} ${r.body.code}`);
      created++;
      await new Promise((res) => setTimeout(res, Math.max(0, next - performance.now())));
    }
  })();
  await creator;
  await new Promise((r) => setTimeout(r, 3000)); // let the last assignments finish
  running = false;
  for (const a of sseAborts) a.abort();
  await Promise.allSettled(loops);

  // Assignment latency from the stored times: a task waits for max(created, its driver free again).
  const db = new Database(join(dir, 'yard.db'), { readonly: true });
  const tasks = db
    .prepare(
      'SELECT id, driver_id, created_at, assigned_at, completed_at FROM yard_task WHERE assigned_at IS NOT NULL ORDER BY assigned_at',
    )
    .all() as Array<{
    id: string;
    driver_id: string;
    created_at: number;
    assigned_at: number;
    completed_at: number | null;
  }>;
  const sessions = new Map(
    (
      db.prepare('SELECT driver_id, started_at FROM driver_session').all() as Array<{
        driver_id: string;
        started_at: number;
      }>
    ).map((s) => [s.driver_id, s.started_at]),
  );
  const lastFree = new Map<string, number>();
  const waits: number[] = [];
  for (const t of tasks) {
    const free = lastFree.get(t.driver_id) ?? sessions.get(t.driver_id) ?? t.created_at;
    waits.push(t.assigned_at - Math.max(t.created_at, free));
    if (t.completed_at) lastFree.set(t.driver_id, t.completed_at);
  }
  const completed = db.prepare("SELECT count(*) AS n FROM yard_task WHERE status = 'COMPLETED'").get() as {
    n: number;
  };
  db.close();
  const p99 = pct(latencies, 99);
  console.log(
    `  ${created} tasks created, ${completed.n} completed, ${latencies.length} driver calls, ${failures.length} failures`,
  );
  checks.push([
    `driver calls p99 ${p99.toFixed(1)} ms (p50 ${pct(latencies, 50).toFixed(1)}) < 30 ms`,
    p99 < 30,
  ]);
  checks.push([
    `assignment after a driver is free: p50 ${pct(waits, 50)} ms, p99 ${pct(waits, 99)} ms, max ${Math.max(...waits)} ms <= 100 ms`,
    Math.max(...waits) <= 100,
  ]);
  checks.push([`no failed driver calls (${failures.slice(0, 3).join('; ')})`, failures.length === 0]);

  // 2. Location ingest.
  const pinger = drivers[0]!;
  const batches = 80;
  let sent = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent < batches) {
        sent++;
        const now = Date.now();
        const points = Array.from({ length: 500 }, (_, i) => ({
          at: new Date(now - 500 + i).toISOString(),
          lat: 32.7 + i * 1e-5,
          lon: -96.8,
          accuracyM: 5,
        }));
        must(
          await call(pinger.token, 'POST', '/api/yard-task/driver/session/locations', { points }),
          'locations',
        );
      }
    }),
  );
  const rate = (batches * 500) / ((performance.now() - t0) / 1000);
  checks.push([`location ingest ${rate.toFixed(0)} points/s (batches of 500) >= 20000`, rate >= 20000]);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

// 3. Summary with a big history: seed tasks straight into the file, then ask the restarted edge.
console.log(`Seeding ${HISTORY} historical tasks...`);
{
  const db = new Database(join(dir, 'yard.db'));
  db.pragma('synchronous = OFF');
  const yard = db.prepare("SELECT id FROM yard WHERE code = 'BENCH'").get() as { id: string };
  const insert = db.prepare(
    `INSERT INTO yard_task (id, yard_id, type, priority, status, created_at, updated_at, started_at, completed_at, hlc)
     VALUES (?, ?, 'move', 1, 'COMPLETED', ?, ?, ?, ?, 'seed')`,
  );
  const now = Date.now();
  const start = now - 3 * 365 * 86_400_000;
  const step = Math.floor((now - start) / HISTORY);
  for (let done = 0; done < HISTORY; done += 50_000) {
    db.transaction(() => {
      for (let i = done; i < Math.min(HISTORY, done + 50_000); i++) {
        const at = start + i * step;
        insert.run(uuidv7(), yard.id, at, at, at + 60_000, at + 300_000);
      }
    })();
    process.stdout.write(`\r  ${Math.min(HISTORY, done + 50_000)}`);
  }
  console.log();
  db.close();
}
const again = spawn(process.execPath, [...NODE_ARGS, 'dist/edge/main.js'], { env, stdio: 'inherit' });
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    if (i > 300) throw new Error('edge did not restart');
    await new Promise((r) => setTimeout(r, 50));
  }
  const admin = must(
    await call(undefined, 'POST', '/api/auth/login', { username: 'bench', password: 'bench-password-1' }),
    'login',
  ).body.token as string;
  const yards = must(await call(admin, 'GET', '/api/yard'), 'yards').body.items as Json[];
  const yardId = yards.find((y) => y.code === 'BENCH')!.id;
  const times: number[] = [];
  for (let i = 0; i < 60; i++)
    times.push(must(await call(admin, 'GET', `/api/yard-task/summary/${yardId}`), 'summary').ms);
  const p50 = pct(times.slice(10), 50);
  checks.push([
    `yard summary with ${HISTORY} historical tasks: p50 ${p50.toFixed(1)} ms, max ${Math.max(...times.slice(10)).toFixed(1)} ms < 50 ms`,
    pct(times.slice(10), 99) < 50,
  ]);
} finally {
  again.kill('SIGTERM');
  await new Promise((r) => again.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}

console.log('\nResults');
for (const [text, ok] of checks) console.log(`  ${verdict(ok)}  ${text}`);
process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
