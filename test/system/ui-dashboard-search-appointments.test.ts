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
 * Search everywhere finds appointments (UI.md "Search everywhere", docs/api.md "Search") in
 * Chromium against the demo edge: the office types a carrier's PO number or a gate pass's code
 * in the dashboard's header and the appointment is listed with its yard, time, door and status;
 * opening it shows the dock schedule of its yard on its day, with its block.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
let booked: { id: string; code: string; startAt: string };

async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 10_000 });
const box = () =>
  page.getByRole('searchbox', { name: /^Find a trailer, truck, driver or carrier, or an appointment/ });
const hit = (name: RegExp) => page.locator('.search-results').getByRole('link', { name });

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  const yardId = (await apiCall('GET', '/api/yard')).body.items[0].id;
  const loadType = (await apiCall('GET', `/api/appointment/load-type?yardId=${yardId}`)).body.items[0];
  const door = (await apiCall('GET', `/api/yard/${yardId}/location?kind=door&limit=100`)).body.items.at(-1);
  const carrier = (await apiCall('GET', '/api/carrier?limit=100')).body.items[0];
  // Nine days ahead at 07:00 UTC: a day of its own on the schedule, away from the demo's week.
  const day = new Date(Date.now() + 9 * 86_400_000);
  day.setUTCHours(7, 0, 0, 0);
  const res = await apiCall('POST', '/api/appointment', {
    yardId,
    loadTypeId: loadType.id,
    doorId: door.id,
    carrierId: carrier.id,
    startAt: day.toISOString(),
    refs: ['PO-SRCH-4711'],
    override: { reason: 'search test' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  booked = res.body;
  page = await openPage(browser);
  await page.goto(`${edge.url}/dashboard/gates`);
  await logIn(page, edge.admin.username, edge.admin.password);
  await shown(box());
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('search everywhere: appointments', () => {
  it('a PO number finds the appointment with its yard, time, door and status', async () => {
    await box().fill('po-srch-4711');
    const found = hit(new RegExp(`Appointment ${booked.code}`));
    await shown(found);
    const words = await found.textContent();
    expect(words).toMatch(/scheduled; PO-SRCH-4711$/);
    expect(words).toMatch(/Door/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'dashboard-search-appointment');
  });

  it('its code (as read out, with a dash) finds it too, and opening it shows its day on the dock schedule', async () => {
    await box().fill(`${booked.code.slice(0, 4).toLowerCase()}-${booked.code.slice(4)}`);
    await hit(new RegExp(`Appointment ${booked.code}`)).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/dashboard/appointments/schedule');
    const date = new URL(page.url()).searchParams.get('date');
    expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await shown(page.getByRole('button', { name: new RegExp(`code ${booked.code}`) }));
    expect(await page.locator('input[type="date"]').inputValue()).toBe(date);
    // The appointment itself is open: its details, with its code.
    const details = page.getByRole('dialog');
    await shown(details);
    expect(await details.textContent()).toContain(booked.code);
    await screenshot(page, 'dashboard-search-appointment-schedule');
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'hidden' });
  });

  it('part of a code finds no appointment', async () => {
    await box().fill(booked.code.slice(0, 5));
    await shown(page.locator('.search-results'));
    await expect.poll(() => page.locator('.search-results').textContent()).not.toContain('Searching');
    expect(await hit(/Appointment/).count()).toBe(0);
  });
});
