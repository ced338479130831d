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

/**
 * The dashboard's yard map in Debian's Chromium against the demo edge as a user starts it: the demo
 * yard's placed locations drawn with the trailers on them, the unplaced ones beside the plan, a
 * check-in appearing live, and the layout editor placing, dragging and saving (If-Match).
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
let yardId: string;

interface Loc {
  id: string;
  name: string;
  version: number;
  plan: { x: number; y: number; width: number; height: number; rotation: number } | null;
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function location(name: string): Promise<Loc> {
  const res = await api('GET', `/api/yard/${yardId}/location?limit=500`);
  return (res.body.items as Loc[]).find((l) => l.name === name)!;
}

/** Where a point of the plan (metres) is on the screen. */
function onScreen(x: number, y: number): Promise<{ x: number; y: number }> {
  return page.evaluate(
    ([px, py]) => {
      const svg = document.querySelector('svg.yard-plan') as SVGSVGElement;
      const p = new DOMPoint(px, py).matrixTransform(svg.getScreenCTM()!);
      return { x: p.x, y: p.y };
    },
    [x, y] as const,
  );
}

const shape = (name: string) => page.locator(`svg.yard-plan g[data-name="${name}"]`);

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  yardId = (await api('GET', '/api/yard')).body.items[0].id;
  page = await openPage(browser, { viewport: { width: 1440, height: 1000 } });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('the yard map', () => {
  it('draws the demo yard: placed locations, trailers on their spots, details on hover, the unplaced listed', async () => {
    await page.goto(`${edge.url}/dashboard/map`);
    await logIn(page, edge.admin.username, edge.admin.password);
    await page.getByRole('heading', { name: /Yard map/ }).waitFor();
    await shape('S01').waitFor();
    // Ten spots, six doors, the staging lane, the building and the reefer row; S11 and S12 are not placed.
    expect(await page.locator('svg.yard-plan g.loc').count()).toBe(19);
    const unplaced = page.getByRole('region', { name: /Not on the plan/ });
    expect(await unplaced.getByRole('listitem').allTextContents()).toEqual(['S11 spot', 'S12 spot']);

    // The demo checked LSLG5300 in to S01: its number is on the spot, and the spot says so.
    expect(await shape('S01').locator('text.trailer').textContent()).toBe('LSLG5300');
    expect(await shape('S01').getAttribute('aria-label')).toMatch(
      /^S01 \(spot\): LSLG5300, Lone Star Logistics \(LSLG\), loaded, \d+ min in the yard\. Occupied, under 24 h$/,
    );
    expect(await shape('S01').getAttribute('class')).toContain('band-day');
    expect(await shape('S05').getAttribute('class')).toContain('band-empty');
    expect(await shape('S05').locator('text.trailer').count()).toBe(0);
    expect(await shape('Door 1').getAttribute('class')).toContain('kind-door');
    expect(await shape('Dock building').getAttribute('class')).toContain('band-zone');

    await shape('S02').hover();
    const tip = page.locator('.map-tooltip');
    await tip.getByText('PRHL5301').waitFor();
    expect(await tip.textContent()).toContain('Prairie Haulers (PRHL)');
    expect(await tip.textContent()).toContain('Empty');
    // The keyboard reaches the locations too, and the focused one shows its details.
    await shape('S03').focus();
    await tip.getByText('GCCA5302').waitFor();

    // Check-ins at the gate appear on the map without a reload, coloured by their dwell: one
    // entered afterwards as having come in two days ago, one five days ago.
    const gates = await api('GET', `/api/yard/${yardId}/gate`);
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    for (const [spot, number, days] of [
      ['S05', 'MAP-7001', 2],
      ['S06', 'MAP-7002', 5],
    ] as const) {
      const checkIn = await api('POST', '/api/movement', {
        yardId,
        gateId: gates.body.items[0].id,
        direction: 'in',
        at: daysAgo(days),
        trailer: { number },
        locationId: (await location(spot)).id,
        loadStatus: 'empty',
      });
      expect(checkIn.status, JSON.stringify(checkIn.body)).toBe(201);
    }
    await expect.poll(() => shape('S05').locator('text.trailer').textContent()).toBe('MAP-7001');
    await expect.poll(() => shape('S06').locator('text.trailer').textContent()).toBe('MAP-7002');
    expect(await shape('S05').getAttribute('class')).toContain('band-days');
    expect(await shape('S05').getAttribute('aria-label')).toMatch(
      /2 d 0 h in the yard\. Occupied, 1 to 3 days$/,
    );
    expect(await shape('S06').getAttribute('class')).toContain('band-long');
    expect(await shape('S06').getAttribute('aria-label')).toMatch(/Occupied, over 3 days$/);

    // The table beside the map says the same in words.
    await page.getByText('The locations as a table').click();
    const s06Row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'S06' }) });
    expect(await s06Row.textContent()).toContain('Occupied, over 3 days');
    expect(await s06Row.textContent()).toContain('MAP-7002');
    await page.getByText('The locations as a table').click();

    await page.mouse.move(0, 0);
    await page.locator('svg.yard-plan').scrollIntoViewIfNeeded();
    await screenshot(page, 'dashboard-map');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('the layout editor places an unplaced location, drags another and saves them', async () => {
    const s10Before = (await location('S10')).plan!;
    await page.getByRole('button', { name: 'Edit layout' }).click();
    await page.getByRole('button', { name: 'Place S12' }).click();
    await page.getByText('Click on the plan where S12 goes.').waitFor();
    const target = await onScreen(70, 75);
    await page.mouse.click(target.x, target.y);
    await shape('S12').waitFor();
    // Placed centred where clicked, with a trailer's footprint; its numbers are in the panel.
    expect(Number(await page.getByLabel('X (m east)').inputValue())).toBeCloseTo(68, 0);
    expect(await page.getByLabel('Width (m)').inputValue()).toBe('4');
    // The focus went with it onto the plan: the arrow keys move it, half a metre a press.
    await page.waitForFunction(() => document.activeElement?.closest('g[data-name="S12"]') != null);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    // The panel shows the moved position once the screen has re-rendered (a loaded machine lags).
    await expect
      .poll(async () => Number(await page.getByLabel('X (m east)').inputValue()), { timeout: 10_000 })
      .toBeCloseTo(69, 0);
    await page.getByLabel('Rotation (degrees)').fill('15');
    expect(
      await page
        .getByRole('region', { name: /Not on the plan/ })
        .getByRole('listitem')
        .count(),
    ).toBe(1);

    // Drag S10 ten metres south.
    const from = await onScreen(s10Before.x + 2, s10Before.y + 8);
    const to = await onScreen(s10Before.x + 2, s10Before.y + 18);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 8 });
    await page.mouse.up();
    await page.getByText('2 unsaved').waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'dashboard-map-edit');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Save layout' }).click();
    await page.getByText('Layout saved: 2 locations changed.').waitFor();
    const s12 = await location('S12');
    expect(s12.plan).toMatchObject({ width: 4, height: 17, rotation: 15 });
    expect(s12.plan!.x).toBeCloseTo(69, 0);
    expect(s12.plan!.y).toBeCloseTo(66.5, 0);
    const s10 = (await location('S10')).plan!;
    expect(s10.x).toBeCloseTo(s10Before.x, 0);
    expect(s10.y - s10Before.y).toBeGreaterThan(9);
    expect(s10.y - s10Before.y).toBeLessThan(11);
    expect(await page.getByRole('button', { name: 'Edit layout' }).isVisible()).toBe(true);
    expect(
      await page
        .getByRole('region', { name: /Not on the plan/ })
        .getByRole('listitem')
        .allTextContents(),
    ).toEqual(['S11 spot']);
  });

  it('a location changed by someone else meanwhile is not overwritten: Save says so and shows theirs', async () => {
    await page.getByRole('button', { name: 'Edit layout' }).click();
    await shape('S09').click();
    await page.getByLabel('Y (m south)').fill('20');
    const s09 = await location('S09');
    const theirs = { ...s09.plan!, x: s09.plan!.x + 1 };
    expect((await api('PATCH', `/api/yard/${yardId}/location/${s09.id}`, { plan: theirs })).status).toBe(200);
    await page.getByRole('button', { name: 'Save layout' }).click();
    await page.getByText('S09 was changed by someone else while you edited').waitFor();
    expect((await location('S09')).plan).toEqual(theirs);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Edit layout' }).waitFor();
  });

  it('a viewer sees the map without the editor', async () => {
    const created = await api('POST', '/api/user', {
      username: 'viewer1',
      password: 'viewer1-password-1',
      role: 'viewer',
    });
    expect(created.status).toBe(201);
    const viewer = await openPage(browser);
    await viewer.goto(`${edge.url}/dashboard/map`);
    await logIn(viewer, 'viewer1', 'viewer1-password-1');
    await viewer.locator('svg.yard-plan g[data-name="S01"]').waitFor();
    expect(await viewer.getByRole('button', { name: 'Edit layout' }).count()).toBe(0);
    await viewer.getByText('Someone who may edit locations can place them.').waitFor();
    await viewer.close();
  });
});
