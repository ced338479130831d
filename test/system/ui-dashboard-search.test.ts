import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoEdge,
  launchChromium,
  logIn,
  openPage,
  screenshot,
  seriousA11yViolations,
  startDemoEdge,
} from '../helpers/browser.js';

/**
 * Search everywhere (UI.md, docs/api.md "Search") in Chromium against the demo edge: a trailer
 * checked in two hours ago onto a spot is found from the header of any dashboard screen by part
 * of its number, with its yard, spot and since when, also on a 320 px wide phone; the result opens
 * the yard's map; master data's trailer list shows its spot and dwell.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
let spotName: string;
let yardName: string;

async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const text = (l: Locator) => expect.poll(() => l.textContent(), { timeout: 10_000 });
const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 10_000 });
const box = () => page.getByRole('searchbox', { name: 'Find a trailer, truck, driver or carrier' });
const hit = (name: RegExp) => page.locator('.search-results').getByRole('link', { name });

beforeAll(async () => {
  edge = await startDemoEdge();
  browser = await launchChromium();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  const yard = (await apiCall('GET', '/api/yard')).body.items[0];
  yardName = yard.name;
  const locations = (await apiCall('GET', `/api/yard/${yard.id}/location?limit=100&free=true&kind=spot`)).body
    .items;
  const spot = locations.at(-1);
  spotName = spot.name;
  const checkIn = await apiCall('POST', '/api/movement', {
    yardId: yard.id,
    direction: 'in',
    at: new Date(Date.now() - 2 * 3600_000 - 5 * 60_000).toISOString(),
    trailer: { number: 'ZQXU 731245' },
    locationId: spot.id,
  });
  expect(checkIn.status, JSON.stringify(checkIn.body)).toBe(201);
  page = await openPage(browser);
  await page.goto(`${edge.url}/dashboard/gates`);
  await logIn(page, edge.admin.username, edge.admin.password);
  await shown(box());
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('search everywhere', () => {
  it('"/" focuses the box on any screen; part of a number finds the trailer with its spot and since when', async () => {
    await page.getByRole('heading', { level: 1 }).first().click();
    await page.keyboard.press('/');
    await expect.poll(() => box().evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('731');
    const found = hit(/ZQXU 731245/);
    await shown(found);
    await text(found).toContain(yardName);
    await text(found).toContain(`spot ${spotName}`);
    // Since when: the check-in's time and the dwell since (2 h 5 min, give or take the test's minutes).
    await text(found).toMatch(/since \d\d?:\d\d( [AP]M)? \(2 h \d+ min\)/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'dashboard-search');
  });

  it('fits a 320 px wide screen', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    const found = hit(/ZQXU 731245/);
    await shown(found);
    const right = await found.evaluate((el) => el.getBoundingClientRect().right);
    expect(right).toBeLessThanOrEqual(320);
    await screenshot(page, 'dashboard-search-320');
    await page.setViewportSize({ width: 1366, height: 900 });
  });

  it('opening the result shows the yard map, and Escape closes the results', async () => {
    await box().fill('zqxu731');
    await hit(/ZQXU 731245/).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/dashboard/map');
    expect(await page.locator('.search-results').count()).toBe(0);
    await box().fill('zqxu');
    await shown(hit(/ZQXU 731245/));
    await page.keyboard.press('Escape');
    expect(await page.locator('.search-results').count()).toBe(0);
  });

  it('says plainly when nothing matches', async () => {
    await box().fill('no-such-unit-9');
    await text(page.locator('.search-results')).toContain('Nothing found for “no-such-unit-9”');
  });

  it('master data’s trailer list shows the yard, spot and dwell', async () => {
    await page.goto(`${edge.url}/dashboard/master/trailers?q=ZQXU`);
    const row = page.getByRole('row', { name: /ZQXU 731245/ });
    await shown(row);
    await text(row).toContain(spotName);
    await text(row).toMatch(/2 h \d+ min/);
    await text(row).toContain(yardName);
    await screenshot(page, 'dashboard-master-trailers-spot-dwell');
  });
});
