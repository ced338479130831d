import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoCloud,
  launchChromium,
  logIn,
  openPage,
  screenshot,
  seriousA11yViolations,
  startDemoCloud,
} from '../helpers/browser.js';

/**
 * "Generate all for last month" at the cloud while a yard's site has not sent the whole month
 * (docs/domain.md "Billing", waiting sites), in Chromium against the demo as a user starts it. A
 * second yard, FTW1, is served by a site that is registered but has never connected, so the cloud
 * has none of its activity: generate-all leaves it out. The clerk reads which yard waits and why in
 * words (no code), and "Generate anyway" invoices it from what the cloud has, as the help text says.
 */
let demo: DemoCloud;
let browser: Browser;
let page: Page;
let token: string;
let ftw: string;

const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 15_000 });

async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${demo.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  demo = await startDemoCloud();
  browser = await launchChromium();
  const login = await fetch(`${demo.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(demo.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  // A site registered at the cloud (as `npm run site:add` leaves it) that has never connected.
  const db = new Database(join(demo.dataDir, 'cloud', 'yard.db'));
  try {
    db.prepare(
      "INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES ('ftw1', 'Fort Worth', 'x', ?)",
    ).run(Date.now());
  } finally {
    db.close();
  }
  const yard = await apiCall('POST', '/api/yard', {
    code: 'FTW1',
    name: 'Fort Worth Yard',
    timeZone: 'America/Chicago',
    siteId: 'ftw1',
  });
  expect(yard.status, yard.text).toBe(201);
  ftw = yard.body.id;
  const config = await apiCall('POST', '/api/billing/config', { yardId: ftw, currency: 'USD', taxRateBp: 0 });
  expect(config.status, config.text).toBe(201);
  const carrier = (await apiCall('GET', '/api/carrier?limit=1')).body.items[0];
  // Two booked spaces at 150.00: the month is charged even with no activity at the cloud.
  const agreement = await apiCall('POST', `/api/billing/config/${ftw}/carrier`, {
    carrierId: carrier.id,
    bookedSpaces: 2,
    spaceMonthlyRate: 15_000,
  });
  expect(agreement.status, agreement.text).toBe(201);
  page = await openPage(browser, { locale: 'en-US' });
  await page.goto(`${demo.url}/dashboard/billing/invoices`);
  await logIn(page, demo.admin.username, demo.admin.password);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

describe('generate all for last month at the cloud, with a yard waiting for its site', () => {
  it('says which yard waits and why in words, and Generate anyway invoices it', async () => {
    const form = page.getByRole('form', { name: 'Generate an invoice' });
    await shown(form);
    await shown(form.getByText('you are told why, and may wait or generate anyway'));
    await form.getByRole('button', { name: 'Generate all for last month' }).click();

    const waiting = form.getByRole('list', { name: 'Yards not invoiced yet' });
    await shown(waiting);
    const ftwItem = waiting.getByRole('listitem').filter({ hasText: 'Yard FTW1' });
    await shown(ftwItem);
    expect(await ftwItem.textContent()).toContain(
      'The site ftw1 (yard FTW1) has never connected to the cloud: none of its activity has arrived.',
    );
    // Words, not codes.
    expect(await form.textContent()).not.toMatch(/site-never-connected|site-offline|site-catching-up/);
    const invoicesOf = async () =>
      (await apiCall('GET', `/api/billing/invoice/summaries?yardId=${ftw}`)).body.items as Array<{
        total: number;
        status: string;
      }>;
    expect(await invoicesOf()).toEqual([]);
    await screenshot(page, 'dashboard-billing-generate-all-waiting');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await form.getByRole('button', { name: 'Generate anyway' }).click();
    await expect.poll(async () => (await invoicesOf()).length, { timeout: 15_000 }).toBe(1);
    expect((await invoicesOf())[0]).toMatchObject({ total: 30_000, status: 'draft' });
    await shown(form.getByText(/draft(s)? made/));
    await expect.poll(() => waiting.count(), { timeout: 10_000 }).toBe(0);
    await screenshot(page, 'dashboard-billing-generate-all-anyway');
  }, 90_000);
});
