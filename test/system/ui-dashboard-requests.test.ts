import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoEdge,
  launchChromium,
  logIn,
  openPage,
  screenshot,
  startDemoEdge,
} from '../helpers/browser.js';

/**
 * The dashboard asks once per panel, not once per row (docs/web-apps.md "Requests"), counted in
 * Chromium against the demo edge with a dozen more yards: the Yard screen's all-yards overview
 * reads every yard's movements today in one request, and the Tasks screen names every listed
 * task's trailer in one request.
 */
const EXTRA_YARDS = 12;

let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
/** Paths (with query) of the API requests the page sent. */
let sent: string[] = [];

async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const shown = (l: ReturnType<Page['locator']>) => l.waitFor({ state: 'visible', timeout: 15_000 });
const count = (pattern: RegExp) => sent.filter((p) => pattern.test(p)).length;

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  for (let i = 1; i <= EXTRA_YARDS; i++) {
    const res = await apiCall('POST', '/api/yard', {
      code: `RQ${String(i).padStart(2, '0')}`,
      name: `Request Count ${i}`,
      timeZone: i % 2 ? 'Asia/Kolkata' : 'Europe/Berlin',
      capacity: 50,
    });
    expect(res.status).toBe(201);
  }
  page = await openPage(browser, { viewport: { width: 1366, height: 900 } });
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/')) sent.push(`${url.pathname}${url.search}`);
  });
  await page.goto(`${edge.url}/dashboard/`);
  await logIn(page, edge.admin.username, edge.admin.password);
  await shown(page.getByRole('navigation', { name: 'Screens' }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('one request per panel', () => {
  it("the Yard screen reads every yard's movements today in one request, and shows them", async () => {
    const yards = (await apiCall('GET', '/api/yard?limit=500')).body.items as Array<{
      id: string;
      code: string;
    }>;
    expect(yards.length).toBe(EXTRA_YARDS + 1);
    sent = [];
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: /^Yard/ }).click();
    const overview = page.getByRole('region', { name: 'All yards' });
    await expect.poll(() => overview.locator('tbody tr').count(), { timeout: 15_000 }).toBe(yards.length);
    await shown(page.getByRole('heading', { name: 'Gate movements' }));
    await shown(page.locator('.chart-summary'));
    // Not 'networkidle': the live stream's refreshes may never leave the page quiet for 500 ms on a
    // busy machine. Wait for the last panels' requests, then give any per-row request time to show.
    await expect
      .poll(() => count(/^\/api\/carrier\?(.*&)?ids=/) + count(/^\/api\/yard\/[0-9a-f-]{36}\/occupancy$/), {
        timeout: 15_000,
      })
      .toBeGreaterThanOrEqual(2);
    await page.waitForTimeout(1_000);
    // The chart's own range, and one request for the overview: not one per yard.
    expect(count(/^\/api\/dashboard\/movement\?/), sent.join('\n')).toBe(1);
    // The overview: one request with its rows' numbers, not the all-yards trailer figures, task
    // summaries and day's movements.
    expect(count(/^\/api\/dashboard\/yard\/overview$/), sent.join('\n')).toBe(1);
    expect(count(/^\/api\/dashboard\/yard\/movement(\?|$)/), sent.join('\n')).toBe(0);
    expect(count(/^\/api\/dashboard\/yard\/trailer$/), sent.join('\n')).toBe(0);
    expect(count(/^\/api\/yard-task\/summary$/), sent.join('\n')).toBe(0);
    // The chosen yard's trailers: the longest there in one request, without per-place counts; the
    // occupancy counted by the API; only the places and carriers the panels name, by ids: not every
    // place page by page, nor every carrier.
    expect(count(/^\/api\/trailer\/in-yard\?(.*&)?byLocation=false/), sent.join('\n')).toBe(1);
    expect(count(/^\/api\/trailer\?/), sent.join('\n')).toBe(0);
    expect(count(/^\/api\/yard\/[0-9a-f-]{36}\/occupancy$/), sent.join('\n')).toBe(1);
    expect(count(/^\/api\/yard\/[0-9a-f-]{36}\/location\?/), sent.join('\n')).toBe(1);
    expect(count(/^\/api\/yard\/[0-9a-f-]{36}\/location\?(.*&)?ids=/), sent.join('\n')).toBe(1);
    expect(count(/^\/api\/carrier\?/), sent.join('\n')).toBe(1);
    expect(count(/^\/api\/carrier\?(.*&)?ids=/), sent.join('\n')).toBe(1);
    expect(sent.length, sent.join('\n')).toBeLessThan(20);
    // What the overview shows is the API's answer for each yard.
    const today = (await apiCall('GET', '/api/dashboard/yard/movement')).body.items as Array<{
      yardCode: string;
      in: number;
      out: number;
    }>;
    for (const y of today) {
      const row = overview.getByRole('row', { name: new RegExp(`\\(${y.yardCode}\\)`) });
      await expect.poll(() => row.locator('td').nth(2).textContent()).toBe(String(y.in + y.out));
    }
    expect(
      today.some((y) => y.in + y.out > 0),
      'the demo yard has movements today',
    ).toBe(true);
    // ... and its trailers and open tasks are those of the fuller answers.
    const figures = (await apiCall('GET', '/api/dashboard/yard/trailer')).body.items as Array<{
      yardCode: string;
      trailersInYard: number;
    }>;
    const tasks = (await apiCall('GET', '/api/yard-task/summary')).body.items as Array<{
      yardCode: string;
      counts: { QUEUED: number; ASSIGNED: number; IN_PROGRESS: number };
    }>;
    for (const y of tasks) {
      const row = overview.getByRole('row', { name: new RegExp(`\\(${y.yardCode}\\)`) });
      const trailers = figures.find((f) => f.yardCode === y.yardCode)?.trailersInYard ?? 0;
      await expect.poll(() => row.locator('td').nth(0).textContent()).toBe(String(trailers));
      const open = y.counts.QUEUED + y.counts.ASSIGNED + y.counts.IN_PROGRESS;
      await expect.poll(() => row.locator('td').nth(3).textContent()).toBe(String(open));
    }
    expect(
      tasks.some((y) => y.counts.QUEUED + y.counts.ASSIGNED + y.counts.IN_PROGRESS > 0),
      'the demo yard has open tasks',
    ).toBe(true);
    // The occupancy panel shows the API's count, and the longest-dwell table names the places and
    // carriers it asked for by ids.
    const yardId = yards.find((y) => y.code === 'DAL1')!.id;
    const occ = (await apiCall('GET', `/api/yard/${yardId}/occupancy`)).body;
    await expect
      .poll(() => page.locator('[data-figure="trailers-in-yard"]').textContent())
      .toMatch(new RegExp(`^${occ.trailers}\\s*of ${occ.capacity.toLocaleString('en')} trailer spaces`));
    await shown(page.getByText(new RegExp(`Places in use: ${occ.placesInUse} of ${occ.places} spots`)));
    const longest = (await apiCall('GET', `/api/trailer/in-yard?yardId=${yardId}&byLocation=false`)).body
      .longest as Array<{ number: string; locationId: string | null; carrierId: string | null }>;
    const placed = longest.find((t) => t.locationId && t.carrierId);
    expect(placed, 'a trailer of the longest stands on a place and has a carrier').toBeTruthy();
    const place = (await apiCall('GET', `/api/yard/${yardId}/location?ids=${placed!.locationId}`)).body
      .items[0];
    const carrier = (await apiCall('GET', `/api/carrier?ids=${placed!.carrierId}`)).body.items[0];
    const row = page.locator('.dwell tbody tr', { hasText: placed!.number });
    await expect.poll(() => row.locator('td').nth(2).textContent()).toBe(place.name);
    await expect.poll(() => row.locator('td').nth(3).textContent()).toContain(carrier.name);
    await screenshot(page, 'dashboard-requests-yard');
  });

  it("the Tasks screen names every task's trailer in one request", async () => {
    const yardId = (await apiCall('GET', '/api/yard?limit=500')).body.items.find(
      (y: { code: string }) => y.code === 'DAL1',
    ).id;
    await page.evaluate((id) => localStorage.setItem('yard.dashboard.yardId', id), yardId);
    sent = [];
    await page.goto(`${edge.url}/dashboard/tasks`);
    await shown(page.getByRole('heading', { name: /^Yard tasks of Dallas/ }));
    // The open tasks: the screen lists all of them (of the finished ones only the latest few, and
    // how many the demo has finished depends on the hour the suite runs).
    const tasks = (
      await apiCall('GET', `/api/yard-task?yardId=${yardId}&status=QUEUED,ASSIGNED,IN_PROGRESS&limit=500`)
    ).body.items as Array<{ trailerId: string | null }>;
    const trailerIds = [...new Set(tasks.map((t) => t.trailerId).filter((id): id is string => !!id))];
    expect(trailerIds.length).toBeGreaterThanOrEqual(2);
    const trailers = (await apiCall('GET', `/api/trailer?ids=${trailerIds.join(',')}&limit=100`)).body.items;
    for (const t of trailers as Array<{ number: string }>) await shown(page.getByText(t.number).first());
    // The screen keeps its live stream and driver list going (never network-idle): a second for
    // any late per-row request to show up.
    await page.waitForTimeout(1000);
    expect(count(/^\/api\/trailer\/[0-9a-f-]{36}/), sent.join('\n')).toBe(0);
    expect(count(/^\/api\/trailer\?(.*&)?ids=/), sent.join('\n')).toBe(1);
    await screenshot(page, 'dashboard-requests-tasks');
  });
});
