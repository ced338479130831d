import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chromium, devices } from 'playwright-core';
import { CHROMIUM, type DemoEdge, FLAGS, startDemoEdge } from '../helpers/browser.js';
import { verdict } from './lib.js';

/**
 * The driver app's outbox replaying a shift's worth of actions after a Wi-Fi drop (docs/performance.md), in
 * Debian's Chromium as a phone against the demo edge as a user starts it. Each round: 25 tasks
 * assigned to a driver on shift; with the phone offline, 50 actions (Start then Complete of each,
 * as the outbox stores them, written to the phone's IndexedDB, where the outbox looks at the start
 * of each round); then the link comes back (the browser's `online`) and the clock runs until the
 * 50th transition is in the edge's database. (A reload while offline is the system test's part:
 * after one, Chromium's offline emulation sends no `online` event to the new page.) Reports the total per round and the per-action request time (p50,
 * p95, from the page's resource timings), and checks each action landed exactly once.
 * Run: npx tsx test/bench/ui-driver-replay.ts (needs `npm run build:ui`). BENCH_ROUNDS (5).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TASKS = 25;
/** Target: a shift's backlog is through well before the driver's next tap matters. */
const TOTAL_TARGET_MS = 5_000;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function call(edge: DemoEdge, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

async function login(edge: DemoEdge, path: string, body: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`login ${path}: ${res.status}`);
  return res.json() as Promise<{
    token: string;
    expiresAt: string;
    principal: { id: string; driverId?: string };
  }>;
}

const edge = await startDemoEdge();
const profile = mkdtempSync(join(tmpdir(), 'yard-phone-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  args: FLAGS,
  headless: true,
  ...devices['Pixel 7'],
});
try {
  const admin = (await login(edge, '/api/auth/login', edge.admin)).token;
  await call(edge, admin, 'PUT', '/api/settings', { settings: { 'tasks.autoAssign': false } });
  const yardId = (await call(edge, admin, 'GET', '/api/yard')).items[0].id;
  const trailers = (await call(edge, admin, 'GET', `/api/trailer?yardId=${yardId}`)).items;
  const driver = await login(edge, '/api/auth/driver-login', { driverCode: 'J101', pin: '1111' });
  const me = driver.principal.driverId ?? driver.principal.id;
  await call(edge, driver.token, 'POST', '/api/yard-task/driver/session/start', { yardId });

  const page = context.pages()[0] ?? (await context.newPage());
  const session = JSON.stringify({ ...driver, username: 'J101' });
  await page.addInitScript((s) => localStorage.setItem('yard.session', s), session);
  await page.goto(`${edge.url}/driver/`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
    timeout: 15_000,
  });
  const db = new Database(edge.dbFile, { readonly: true, fileMustExist: true });

  const totals: number[] = [];
  const perAction: number[] = [];
  const reactions: number[] = [];
  const drains: number[] = [];
  let exactlyOnce = true;
  for (let round = 0; round < ROUNDS; round++) {
    const taskIds: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const task = await call(edge, admin, 'POST', '/api/yard-task', {
        yardId,
        type: 'inspect',
        trailerId: trailers[i % trailers.length].id,
        priority: 1,
        notes: `bench ${round}.${i}`,
        driverId: me,
      });
      taskIds.push(task.id);
    }
    const at = new Date().toISOString();
    const actions = taskIds.flatMap((taskId) =>
      (['start', 'complete'] as const).map((kind) => ({ id: randomUUID(), kind, taskId, at, by: me })),
    );

    await context.setOffline(true);
    // The outbox's own record (outbox-store.ts: one key holding pending and conflicts), as 50 taps leave it.
    await page.evaluate(
      (pending) =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open('yard-driver');
          open.onupgradeneeded = () => open.result.createObjectStore('outbox');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const tx = open.result.transaction('outbox', 'readwrite');
            tx.objectStore('outbox').put({ pending, conflicts: [] }, 'outbox');
            tx.oncomplete = () => {
              open.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
        }),
      actions,
    );
    await page.evaluate(() => performance.clearResourceTimings());

    const done = db.prepare(
      `SELECT count(*) AS n FROM task_event WHERE to_status IN ('IN_PROGRESS', 'COMPLETED')
          AND task_id IN (${taskIds.map(() => '?').join(',')})`,
    );
    await page.evaluate(() =>
      addEventListener('online', () => Object.assign(window, { benchOnlineAt: performance.now() }), {
        once: true,
      }),
    );
    const started = performance.now();
    await context.setOffline(false);
    while ((done.get(...taskIds) as { n: number }).n < actions.length) {
      if (performance.now() - started > 60_000) throw new Error('the replay did not finish within 60 s');
      await new Promise((r) => setTimeout(r, 2));
    }
    totals.push(performance.now() - started);
    // The database has the last transition a moment before the page has its answer.
    await page
      .waitForFunction(
        (n) =>
          performance
            .getEntriesByType('resource')
            .filter((e) => /\/api\/yard-task\/driver\/(start|complete)$/.test(e.name)).length >= n,
        actions.length,
        { timeout: 5_000 },
      )
      .catch(() => undefined);
    const timings = await page.evaluate(() => {
      const answered = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        // Answered ones only (a failed attempt offline has no status).
        .filter((e) => /\/api\/yard-task\/driver\/(start|complete)$/.test(e.name) && e.responseStatus > 0);
      const onlineAt = (window as unknown as { benchOnlineAt?: number }).benchOnlineAt ?? Number.NaN;
      return {
        durations: answered.map((e) => e.duration),
        // From the browser's `online` event to the first request, and from there to the last answer.
        reaction: (answered[0]?.startTime ?? Number.NaN) - onlineAt,
        drain: Math.max(...answered.map((e) => e.responseEnd)) - (answered[0]?.startTime ?? Number.NaN),
      };
    });
    perAction.push(...timings.durations);
    reactions.push(timings.reaction);
    drains.push(timings.drain);
    // Exactly once: one IN_PROGRESS and one COMPLETED event per task, and every task completed.
    const events = db
      .prepare(
        `SELECT task_id, to_status, count(*) AS n FROM task_event WHERE to_status IN ('IN_PROGRESS', 'COMPLETED')
            AND task_id IN (${taskIds.map(() => '?').join(',')}) GROUP BY task_id, to_status`,
      )
      .all(...taskIds) as { n: number }[];
    if (events.length !== actions.length || events.some((e) => e.n !== 1)) exactlyOnce = false;
    // Let the page settle (the last answers stored, the list reloaded) before the next round.
    await page.waitForTimeout(300);
  }

  const f = (n: number) => `${n.toFixed(0)} ms`;
  console.log(
    `driver outbox replay of ${TASKS * 2} queued actions after the link is back (${ROUNDS} rounds): ` +
      `total p50 ${f(percentile(totals, 50))}, max ${f(Math.max(...totals))} (${totals.map(f).join(', ')}) ${verdict(Math.max(...totals) < TOTAL_TARGET_MS)} [< 5 s]`,
  );
  console.log(
    `  per action (request to answer, ${perAction.length} requests): p50 ${f(percentile(perAction, 50))}, ` +
      `p95 ${f(percentile(perAction, 95))}; total / 50 at p50: ${f(percentile(totals, 50) / (TASKS * 2))}`,
  );
  console.log(
    `  in the page: online event to first request p50 ${f(percentile(reactions, 50))}; first request to last answer p50 ${f(percentile(drains, 50))}`,
  );
  console.log(`  each action applied exactly once: ${verdict(exactlyOnce)}`);
  if (!exactlyOnce || Math.max(...totals) >= TOTAL_TARGET_MS) process.exitCode = 1;
} finally {
  await context.close();
  await edge.stop();
  rmSync(profile, { recursive: true, force: true });
}
