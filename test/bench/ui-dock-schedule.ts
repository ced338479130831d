import type { Browser, Page } from 'playwright-core';
import { type DemoEdge, launchChromium, openPage, startDemoEdge } from '../helpers/browser.js';
import { verdict } from './lib.js';

/**
 * The dashboard's dock schedule in Debian's Chromium against the demo edge (docs/performance.md):
 * a yard with 30 dock doors and BENCH_PER_DOOR (10) appointments at each on one day a week ahead.
 * (a) the day loads: on the open schedule, from the click on "Previous day" to the frame where every
 *     block of that day is on screen (its doors, config, load types and appointments fetched and
 *     drawn); target p95 < 300 ms;
 * (b) cold open: a fresh browser context (empty HTTP cache, signed in) opens the schedule at that
 *     day, from navigation start to every block on screen (the dashboard app, its yard list, the
 *     schedule's code and data); reported.
 * Run: npx tsx test/bench/ui-dock-schedule.ts (needs `npm run build:ui`). BENCH_LOADS (20) each.
 */
const LOADS = Number(process.env.BENCH_LOADS ?? 20);
const PER_DOOR = Number(process.env.BENCH_PER_DOOR ?? 10);
const DOORS = 30;
const TZ = 'America/Chicago';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function api(edge: DemoEdge, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** The instant of a yard-local wall-clock time of `day` (Chicago: UTC-6 or UTC-5). */
function localInstant(day: string, hhmm: string): string {
  const clock = new Intl.DateTimeFormat('en-GB', { timeZone: TZ, hour: '2-digit', minute: '2-digit' });
  for (const offset of ['-06:00', '-05:00']) {
    const iso = new Date(`${day}T${hhmm}:00${offset}`).toISOString();
    if (clock.format(Date.parse(iso)) === hhmm) return iso;
  }
  throw new Error(`no instant for ${hhmm}`);
}

/** 30 doors (the demo's six and 24 more), open all day, and PER_DOOR bookings of 60 min at each on `day`. */
async function seed(edge: DemoEdge, token: string, day: string): Promise<number> {
  const yardId = ((await api(edge, token, 'GET', '/api/yard')) as { items: { id: string }[] }).items[0]
    ?.id as string;
  const open = [{ from: '00:00', to: '24:00' }];
  await api(edge, token, 'PUT', `/api/appointment/config/${yardId}`, {
    enabled: true,
    openHours: Object.fromEntries(['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, open])),
    slotMinutes: 15,
    leadTimeMinMinutes: 0,
  });
  const type = (await api(edge, token, 'POST', '/api/appointment/load-type', {
    yardId,
    name: 'Bench unload', // the demo has its own load types
    durationMinutes: 60,
  })) as { id: string };
  for (let i = 7; i <= DOORS; i++) {
    await api(edge, token, 'POST', `/api/yard/${yardId}/location`, { kind: 'door', name: `Door ${i}` });
  }
  const doors = (
    (await api(edge, token, 'GET', `/api/yard/${yardId}/location?kind=door&limit=500`)) as {
      items: { id: string }[];
    }
  ).items;
  const carrierId = ((await api(edge, token, 'GET', '/api/carrier')) as { items: { id: string }[] }).items[0]
    ?.id as string;
  let booked = 0;
  for (const door of doors) {
    for (let k = 0; k < PER_DOOR; k++) {
      const hhmm = `${String(6 + k).padStart(2, '0')}:00`;
      await api(edge, token, 'POST', '/api/appointment', {
        yardId,
        loadTypeId: type.id,
        carrierId,
        doorId: door.id,
        startAt: localInstant(day, hhmm),
        refs: [`PO-${booked}`],
      });
      booked++;
    }
  }
  return booked;
}

/** Resolves with ms from `start` (a page time) to the frame with `count` blocks on screen. */
function blocksShown(page: Page, count: number) {
  return page.evaluate(
    (n) =>
      // No named functions in here: tsx would wrap them in a helper the page does not have.
      new Promise<number>((resolve) => {
        const observer = new MutationObserver(() => {
          if (document.querySelectorAll('.dock-block').length === n) {
            observer.disconnect();
            resolve(performance.now());
          }
        });
        observer.observe(document.body, { childList: true, subtree: true });
      }),
    count,
  );
}

async function dayLoads(
  browser: Browser,
  edge: DemoEdge,
  session: unknown,
  day: string,
  count: number,
): Promise<number[]> {
  const page = await openPage(browser);
  await page.addInitScript((s) => localStorage.setItem('yard.session', s), JSON.stringify(session));
  // The day after (empty), then back and forth: Previous day loads the busy day.
  const after = new Date(Date.parse(`${day}T12:00:00Z`) + 24 * 3600_000).toISOString().slice(0, 10);
  await page.goto(`${edge.url}/dashboard/appointments/schedule?date=${after}`);
  await page.getByRole('list', { name: 'Door 30: appointments' }).waitFor({ timeout: 20_000 });
  const times: number[] = [];
  for (let i = 0; i < LOADS + 2; i++) {
    const clickedAt = page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          document.addEventListener('click', () => resolve(performance.now()), { capture: true, once: true }),
        ),
    );
    const shown = blocksShown(page, count);
    await page.getByRole('button', { name: 'Previous day' }).click();
    const ms = (await shown) - (await clickedAt);
    if (i >= 2) times.push(ms); // the first two warm the server's statements and the page's code
    await page.getByRole('button', { name: 'Next day' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.dock-block').length === 0);
  }
  await page.context().close();
  return times;
}

async function coldOpens(
  browser: Browser,
  edge: DemoEdge,
  session: unknown,
  day: string,
  count: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const page = await openPage(browser);
    await page.addInitScript((s) => localStorage.setItem('yard.session', s), JSON.stringify(session));
    await page.goto(`${edge.url}/dashboard/appointments/schedule?date=${day}`);
    const ms = await page.waitForFunction(
      (n) => (document.querySelectorAll('.dock-block').length === n ? performance.now() : null),
      count,
      { polling: 'raf', timeout: 20_000 },
    );
    times.push((await ms.jsonValue()) as number);
    await page.context().close();
  }
  return times;
}

const edge = await startDemoEdge();
const browser = await launchChromium();
try {
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  const answer = (await login.json()) as { token: string };
  const session = { ...answer, username: edge.admin.username };
  // Eight days on: past the week of bookings the demo makes itself.
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(Date.now() + 8 * 24 * 3600_000);
  const count = await seed(edge, answer.token, day);
  const loads = await dayLoads(browser, edge, session, day, count);
  const cold = await coldOpens(browser, edge, session, day, count);
  const f = (n: number) => `${n.toFixed(0)} ms`;
  console.log(
    `dock schedule, ${DOORS} doors, ${count} appointments: the day loads (Previous day to every block drawn, ${LOADS} loads): p50 ${f(percentile(loads, 50))}, p95 ${f(percentile(loads, 95))}, max ${f(Math.max(...loads))} ${verdict(percentile(loads, 95) < 300)} [p95 < 300 ms]`,
  );
  console.log(
    `dock schedule cold open (fresh context, navigation start to every block drawn, ${LOADS} opens): p50 ${f(percentile(cold, 50))}, p95 ${f(percentile(cold, 95))}, max ${f(Math.max(...cold))}`,
  );
  process.exitCode = percentile(loads, 95) < 300 ? 0 : 1;
} finally {
  await browser.close();
  await edge.stop();
}
