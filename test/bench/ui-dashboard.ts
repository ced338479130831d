import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/browser.js';
import type { AppProcess } from '../helpers/sync-processes.js';
import { describeScale, scaleFrom } from './dashboard-scale.js';
import { dashboardDatabase, printSeeded } from './dashboard-seed.js';
import { verdict } from './lib.js';
import { BENCH_ADMIN, seededCloud } from './seeded-cloud.js';

/**
 * The dashboard's Yard screen in Debian's Chromium against the cloud at an organisation's scale
 * (docs/performance.md; the database of dashboard-seed.ts, `--sites 10` for a quick run):
 * (a) open: from the click on "Yard" in the screen list (the app already loaded on the sites
 *     page) until every panel shows its figures: occupancy, load and carrier, tasks, errors, the
 *     movement chart's summary, the longest dwell, and the all-yards overview with a row per yard;
 *     target p95 < 300 ms. Timed in the page (click event to the frame where all are there).
 * (b) cold: a new browser context (empty cache) opening /dashboard/yard, from navigation start.
 * With the API requests each sends. Run: npx tsx test/bench/ui-dashboard.ts [--sites N]
 * (needs `npm run build:ui`). BENCH_OPENS (15) opens, BENCH_LOADS (5) cold loads.
 */
const OPENS = Number(process.env.BENCH_OPENS ?? 15);
const LOADS = Number(process.env.BENCH_LOADS ?? 5);
const TARGET_MS = 300;
const ADMIN = BENCH_ADMIN;

const argv = process.argv.slice(2);
const scale = scaleFrom(argv);
console.log(`Dashboard Yard screen in Chromium: ${describeScale(scale)}`);
const seeded = await dashboardDatabase(scale);
printSeeded(seeded);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * In the page: resolves with performance.now() at the first frame where every panel of the Yard
 * screen holds its figures (the overview with `yards` rows). No named functions inside: tsx would
 * wrap them in a helper the page does not have.
 */
function panelsReady(page: Page, yards: number): Promise<number> {
  return page
    .waitForFunction(
      (n) => {
        const screen = document.querySelector('.yard-screen');
        if (!screen) return null;
        const ready =
          !!screen.querySelector('[data-figure="trailers-in-yard"]') &&
          !!screen.querySelector('[data-figure="open-tasks"]') &&
          !!screen.querySelector('.chart-summary') &&
          !!screen.querySelector('.dwell') &&
          (n < 2 || screen.querySelectorAll('.all-yards tbody tr').length === n);
        return ready ? performance.now() : null;
      },
      yards,
      { polling: 'raf', timeout: 60_000 },
    )
    .then((h) => h.jsonValue() as Promise<number>);
}

/** An API request's path with ids as `{id}`, and its query's keys (not values): one row per kind. */
function kind(raw: string): string {
  const url = new URL(raw);
  const keys = [...new Set(url.searchParams.keys())].sort().join('&');
  return `${url.pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}${keys ? `?${keys}` : ''}`;
}

interface Timed {
  kind: string;
  /** Request start to response end, and response end after the click (ms); body size in bytes. */
  ms: number;
  endMs: number;
  bytes: number;
}

/**
 * Counts the API requests a page sends and times each from the page's Resource Timing entries
 * (where the time goes: which request ends last after the click, and how long each took).
 */
function countApi(page: Page): { sent: string[] } {
  const log = { sent: [] as string[] };
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/')) log.sent.push(url.pathname);
  });
  return log;
}

function apiTimings(page: Page, since: number): Promise<Array<Omit<Timed, 'kind'> & { url: string }>> {
  return page.evaluate(
    (t0) =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter((e) => e.startTime >= t0 && new URL(e.name).pathname.startsWith('/api/') && e.responseEnd > 0)
        .map((e) => ({
          url: e.name,
          ms: e.responseEnd - e.startTime,
          endMs: e.responseEnd - t0,
          bytes: e.encodedBodySize,
        })),
    since,
  );
}

async function opens(browser: Browser, url: string, session: unknown, yards: number) {
  const page = await openPage(browser, { viewport: { width: 1366, height: 900 } });
  await page.addInitScript((s) => localStorage.setItem('yard.session', s), JSON.stringify(session));
  const log = countApi(page);
  const times: number[] = [];
  const timed: Timed[] = [];
  let requests = 0;
  for (let i = 0; i < OPENS + 2; i++) {
    await page.goto(`${url}/dashboard/`);
    await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 30_000 });
    // The app keeps its live stream open (never network-idle): let the sites page settle.
    await page.waitForTimeout(1000);
    log.sent.length = 0;
    const clicked = page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          document.addEventListener('click', () => resolve(performance.now()), { capture: true, once: true }),
        ),
    );
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: /^Yard/ }).click();
    const at = await clicked;
    const ready = await panelsReady(page, yards);
    if (i >= 2) times.push(ready - at); // the first two warm the server's statements and the page's code
    await page.waitForTimeout(500);
    if (i >= 2) for (const t of await apiTimings(page, at)) timed.push({ ...t, kind: kind(t.url) });
    requests = log.sent.length;
  }
  const sample = [...log.sent];
  await page.context().close();
  return { times, requests, sample, timed };
}

/** Per kind of request: how many per open, median duration, median end after the click, body size. */
function printTimings(timed: Timed[], opens: number) {
  const kinds = new Map<string, Timed[]>();
  for (const t of timed) kinds.set(t.kind, [...(kinds.get(t.kind) ?? []), t]);
  const rows = [...kinds].map(([k, ts]) => ({
    k,
    n: ts.length / opens,
    ms: percentile(
      ts.map((t) => t.ms),
      50,
    ),
    end: percentile(
      ts.map((t) => t.endMs),
      50,
    ),
    endMax: percentile(
      ts.map((t) => t.endMs),
      95,
    ),
    kb: Math.max(...ts.map((t) => t.bytes)) / 1024,
  }));
  console.log('per kind of request (per open; duration p50; end after the click p50 / p95; largest body):');
  for (const r of rows.sort((a, b) => b.end - a.end))
    console.log(
      `  ${r.n.toFixed(1).padStart(5)} x ${r.ms.toFixed(0).padStart(5)} ms, ends ${r.end.toFixed(0).padStart(5)} / ${r.endMax.toFixed(0).padStart(5)} ms, ${r.kb.toFixed(1).padStart(7)} KiB  ${r.k}`,
    );
}

async function coldLoads(browser: Browser, url: string, session: unknown, yards: number) {
  const times: number[] = [];
  let requests = 0;
  for (let i = 0; i < LOADS; i++) {
    const page = await openPage(browser, { viewport: { width: 1366, height: 900 } });
    await page.addInitScript((s) => localStorage.setItem('yard.session', s), JSON.stringify(session));
    const log = countApi(page);
    await page.goto(`${url}/dashboard/yard`);
    times.push(await panelsReady(page, yards));
    await page.waitForTimeout(500);
    requests = log.sent.length;
    await page.context().close();
  }
  return { times, requests };
}

const dir = mkdtempSync(join(tmpdir(), 'yard-dash-ui-bench-'));
let cloud: AppProcess | undefined;
let browser: Browser | undefined;
try {
  cloud = await seededCloud(seeded.file, dir);
  await cloud.start();
  const login = await fetch(`${cloud.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (!login.ok) throw new Error(`log in: ${login.status} ${await login.text()}`);
  const session = { ...((await login.json()) as object), username: ADMIN.username };
  const yards = seeded.yards.length;
  browser = await launchChromium();
  const open = await opens(browser, cloud.url, session, yards);
  const cold = await coldLoads(browser, cloud.url, session, yards);
  const f = (n: number) => `${n.toFixed(0)} ms`;
  const byPath = new Map<string, number>();
  for (const p of open.sample) {
    const key = p.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}');
    byPath.set(key, (byPath.get(key) ?? 0) + 1);
  }
  console.log(`API requests when the Yard screen opens: ${open.requests}`);
  for (const [path, n] of [...byPath].sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(n).padStart(4)}  ${path}`);
  printTimings(open.timed, open.times.length);
  console.log(
    `open the Yard screen, click to every panel (${OPENS} opens, ${yards} yards): p50 ${f(percentile(open.times, 50))}, p95 ${f(percentile(open.times, 95))}, max ${f(Math.max(...open.times))} ${verdict(percentile(open.times, 95) < TARGET_MS)} [p95 < ${TARGET_MS} ms]`,
  );
  console.log(
    `cold load of /dashboard/yard to every panel (${LOADS} loads, ${cold.requests} API requests): p50 ${f(percentile(cold.times, 50))}, max ${f(Math.max(...cold.times))}`,
  );
} finally {
  await browser?.close();
  await cloud?.stop();
  if (cloud?.alive === false && cloud.exits.some((e) => e.code !== 0 && e.code !== null))
    console.log(cloud.log);
  rmSync(dir, { recursive: true, force: true });
}
