import { PDFParse } from 'pdf-parse';
import type { Browser, Page } from 'playwright-core';
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
import { freeDemoDoors } from '../helpers/demo-doors.js';

/**
 * The driver's gate receipt (UI.md "Gate house": trailer, spot or door, time, code), in Debian's
 * Chromium against the standalone demo edge: after a scanned check-in the confirmation offers
 * "Print receipt"; on paper the receipt is all there is, as a slip on 80 mm receipt paper or larger
 * on a plain A4 page; other screens print as they are.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
let booked: { id: string; code: string };
const QUARTER = 15 * 60_000;

async function apiCall(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function pdfOf(options: Parameters<Page['pdf']>[0]): Promise<{ text: string; pages: number }> {
  const parser = new PDFParse({ data: new Uint8Array(await page.pdf(options)) });
  try {
    const result = await parser.getText();
    return { text: result.text.replace(/\s+/g, ' '), pages: result.total };
  } finally {
    await parser.destroy();
  }
}

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  const clerk = await apiCall('POST', '/api/user', {
    username: 'clerk1',
    password: 'clerk1-password-1',
    role: 'gate',
    displayName: 'Pat Gate',
  });
  expect(clerk.status).toBe(201);
  const yardId = (await apiCall('GET', '/api/yard')).body.items[0].id;
  const config = await apiCall('PUT', `/api/appointment/config/${yardId}`, {
    enabled: true,
    openHours: Object.fromEntries(
      ['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, [{ from: '00:00', to: '24:00' }]]),
    ),
    leadTimeMinMinutes: 0,
    noShowAfterMinutes: 600,
  });
  expect(config.status, JSON.stringify(config.body)).toBe(200);
  const loadType = await apiCall('POST', '/api/appointment/load-type', {
    yardId,
    name: 'Receipt test live unload',
    direction: 'inbound',
    durationMinutes: 60,
  });
  expect(loadType.status).toBe(201);
  const doors = (await apiCall('GET', `/api/yard/${yardId}/location?kind=door&limit=100`)).body.items;
  const carriers = (await apiCall('GET', '/api/carrier?limit=100')).body.items;
  const door4 = doors.find((d: { name: string }) => d.name === 'Door 4').id;
  await freeDemoDoors(apiCall, yardId, [door4]);
  const res = await apiCall('POST', '/api/appointment', {
    yardId,
    loadTypeId: loadType.body.id,
    startAt: new Date(Math.floor(Date.now() / QUARTER) * QUARTER).toISOString(),
    doorId: door4,
    carrierId: carriers.find((c: { scac: string }) => c.scac === 'LSLG').id,
    trailerNumber: 'LSLG7001',
    truckPlate: 'TX 7001',
    override: { reason: 'receipt test' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  booked = res.body;
  page = await openPage(browser);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('gate house: the driver receipt', () => {
  it('prints trailer, door, time and code alone after a scanned check-in, on 80 mm paper and on A4', async () => {
    await page.goto(`${edge.url}/gate/`);
    await logIn(page, 'clerk1', 'clerk1-password-1');
    await page.getByRole('heading', { name: 'Check in' }).waitFor();
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('ci-code');
    await page.keyboard.type(`${booked.code}\n`);
    await page.getByText(/Appointment found: Lone Star Logistics/).waitFor();
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    await page.getByRole('heading', { name: /Checked in: LSLG7001 \/ TX 7001/ }).waitFor();

    // Nothing of the receipt shows on screen; the button asks the browser to print.
    const receipt = page.locator('body > .print-receipt');
    expect(await receipt.isVisible()).toBe(false);
    await page.evaluate('window.__printed = 0; window.print = () => { window.__printed += 1; }');
    await page.getByRole('button', { name: 'Print receipt' }).click();
    expect(await page.evaluate('window.__printed')).toBe(1);
    expect(await seriousA11yViolations(page)).toEqual([]);
    const checkedIn = (await page.locator('.confirmation h2 time').getAttribute('datetime')) as string;
    const clock = (await page.locator('.confirmation h2 time').textContent())?.match(/\d{1,2}:\d{2}/)?.[0];
    expect(clock, `the confirmation shows the time of ${checkedIn}`).toBeTruthy();

    // 80 mm paper: about 302 CSS pixels across.
    await page.emulateMedia({ media: 'print' });
    await page.setViewportSize({ width: 302, height: 500 });
    expect(await receipt.isVisible()).toBe(true);
    expect(await page.locator('#app').isVisible()).toBe(false);
    const facts = await receipt.locator('dl').innerText();
    expect(facts).toMatch(/Trailer\s+LSLG7001/);
    expect(facts).toMatch(/Truck\s+TX 7001/);
    expect(facts).toMatch(/Spot or door\s+Door 4/);
    expect(facts).toMatch(new RegExp(`Checked in\\s+.*${clock}`));
    expect(facts).toMatch(/Gate\s+North gate \(in\)/);
    expect(await receipt.locator('.receipt-code').innerText()).toBe(booked.code);
    const slip = await receipt.boundingBox();
    expect(slip?.width).toBeLessThanOrEqual(302);
    await screenshot(page, 'ui-gate-receipt-80mm');

    // A plain A4 page (794 CSS pixels): the same slip, larger, in a box.
    await page.setViewportSize({ width: 794, height: 1123 });
    expect(await receipt.isVisible()).toBe(true);
    const box = await receipt.boundingBox();
    expect(box?.width).toBeGreaterThan(400);
    await screenshot(page, 'ui-gate-receipt-a4');

    // What the print engine lays out: one page each, the receipt's words and none of the screen's.
    const narrow = await pdfOf({ width: '80mm', height: '120mm' });
    expect(narrow.pages).toBe(1);
    for (const words of ['Gate receipt', 'LSLG7001', 'Door 4', booked.code, clock as string]) {
      expect(narrow.text).toContain(words);
    }
    expect(narrow.text).not.toContain('Check in and open gate');
    expect(narrow.text).not.toContain('Recorded');
    const a4 = await pdfOf({ format: 'A4' });
    expect(a4.pages).toBe(1);
    expect(a4.text).toContain(booked.code);
    expect(a4.text).not.toContain('Check in and open gate');
  }, 90_000);

  it('leaves other prints alone once the confirmation is closed', async () => {
    await page.emulateMedia({ media: 'screen' });
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.locator('.print-receipt').count()).toBe(0);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#app').isVisible()).toBe(true);
    await page.emulateMedia({ media: 'screen' });
  });
});
