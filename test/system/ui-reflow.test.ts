import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoEdge,
  launchChromium,
  logIn,
  openPage,
  screenshot,
  startDemoEdge,
} from '../helpers/browser.js';
import { settled, sidewaysOverflow } from './reflow-check.js';

/**
 * Reflow (WCAG 1.4.10): every screen of the gate house, the driver app and the dashboard, on the
 * demo edge with its demo data, is read at 320 CSS px without scrolling sideways. 640 x 450 is a
 * 1280 x 900 window at 200 % zoom (the browser lays the page out in CSS px, so zoom is a narrower
 * viewport with a higher pixel ratio); the desk's own 1366 x 900 is checked too. A data table may
 * scroll inside its own region (WCAG's exception for data tables); the page itself may not. On the
 * driver's task card, the trailer, the route, the notes and the status are readable, not covered by
 * the Start button. Screenshots: test/system/screenshots/reflow-<width>-<screen>.png.
 */
let edge: DemoEdge;
let browser: Browser;
let token: string;

const SIZES = [
  { name: '320', width: 320, height: 568, scale: 1 },
  { name: '640-zoom200', width: 640, height: 450, scale: 1 },
  { name: '1366', width: 1366, height: 900, scale: 1 },
];

const GATE = ['/gate/', '/gate/check-out', '/gate/lanes', '/gate/yard', '/gate/movements', '/gate/drivers'];
const DASHBOARD = [
  '/dashboard/',
  '/dashboard/yard',
  '/dashboard/map',
  '/dashboard/gates',
  '/dashboard/tasks',
  '/dashboard/tasks/new',
  '/dashboard/master/carriers',
  '/dashboard/master/drivers',
  '/dashboard/master/trucks',
  '/dashboard/master/trailers',
  '/dashboard/master/yards',
  '/dashboard/master/locations',
  '/dashboard/master/gates',
  '/dashboard/admin/users',
  '/dashboard/admin/api-keys',
  '/dashboard/admin/cameras',
  '/dashboard/admin/integrations',
  '/dashboard/admin/settings',
  '/dashboard/billing/configs',
  '/dashboard/billing/summary',
  '/dashboard/billing/invoices',
  '/dashboard/billing/adjustments',
];

async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

function slug(path: string): string {
  return path.replace(/^\/|\/$/g, '').replace(/\//g, '-') || 'home';
}

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('every screen reflows (WCAG 1.4.10)', () => {
  it.each(SIZES)(
    'gate house and dashboard at $name CSS px wide',
    async (size) => {
      const page = await openPage(browser, {
        viewport: { width: size.width, height: size.height },
        deviceScaleFactor: size.scale,
      });
      await page.goto(`${edge.url}/gate/`);
      await logIn(page, edge.admin.username, edge.admin.password);
      await page.getByRole('navigation', { name: 'Screens' }).waitFor();
      const failures: Record<string, string[]> = {};
      for (const path of [...GATE, ...DASHBOARD]) {
        await page.goto(`${edge.url}${path}`);
        await page.getByRole('navigation', { name: 'Screens' }).waitFor();
        await settled(page);
        await screenshot(page, `reflow-${size.name}-${slug(path)}`);
        const found = await sidewaysOverflow(page);
        if (found.length > 0) failures[path] = found;
      }
      await page.context().close();
      expect(failures).toEqual({});
    },
    240_000,
  );

  it('the driver task card: notes, status and destination visible, not under the buttons', async () => {
    const page = await openPage(browser, {
      viewport: { width: 360, height: 640 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    await page.goto(`${edge.url}/driver/`);
    await page.setViewportSize({ width: 320, height: 568 });
    await page.getByLabel('Driver code').waitFor();
    await screenshot(page, 'reflow-320-driver-login');
    const loginOverflow = await sidewaysOverflow(page);
    await page.setViewportSize({ width: 360, height: 640 });
    await page.getByLabel('Driver code').fill('j101');
    await page.getByLabel('PIN').fill('1111');
    await page.getByRole('button', { name: 'Log in' }).tap();
    await page.getByRole('button', { name: 'Start shift' }).tap();
    await page.getByRole('heading', { name: /^Next \(/ }).waitFor();
    const driverId = await page.evaluate(
      "JSON.parse(localStorage.getItem('yard.session')).principal.driverId",
    );
    const yardId = (await apiCall('GET', '/api/yard')).body.items[0].id as string;
    // The demo hands its queued jobs to a driver starting a shift: take them back, then give one.
    const open = await apiCall(
      'GET',
      `/api/yard-task?yardId=${yardId}&status=QUEUED,ASSIGNED,IN_PROGRESS&limit=500`,
    );
    const items = open.body.items as { id: string; status: string }[];
    for (const t of [...items].sort((a, b) => Number(a.status !== 'QUEUED') - Number(b.status !== 'QUEUED')))
      await apiCall('PATCH', `/api/yard-task/${t.id}`, { status: 'CANCELLED', cancelReason: 'reflow test' });
    await page.getByText('No task for you right now.').waitFor();
    const locations = (await apiCall('GET', `/api/yard/${yardId}/location?limit=500`)).body.items as {
      id: string;
      kind: string;
    }[];
    const trailer = (await apiCall('GET', `/api/trailer?yardId=${yardId}`)).body.items[0];
    const created = await apiCall('POST', '/api/yard-task', {
      yardId,
      type: 'pull_to_door',
      trailerId: trailer.id,
      fromLocationId: locations.find((l) => l.kind === 'spot')?.id,
      toLocationId: locations.find((l) => l.kind === 'door')?.id,
      priority: 3,
      notes:
        'Live unload: reefer at -18 °C, check the seal before you hook it up, then back it onto the door.',
      dueAt: new Date(Date.now() + 3_600_000).toISOString(),
      driverId,
    });
    expect(created.status).toBe(201);
    const card = page.locator('article.task-card');
    await card.locator('.notes').waitFor();

    const failures: Record<string, string[]> = loginOverflow.length ? { login: loginOverflow } : {};
    const phones = [
      { name: '360', width: 360, height: 640 },
      { name: '320', width: 320, height: 568 },
      { name: '640-zoom200', width: 640, height: 450 },
    ];
    for (const size of phones) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(200);
      await screenshot(page, `reflow-${size.name}-driver-task-card`);
      const found = await sidewaysOverflow(page);
      // Each fact, scrolled to the window's bottom edge (where a thumb reads on) and to its top,
      // is the element found at its own centre and its corners: nothing lies over it.
      const covered = await page.evaluate(() => {
        const out: string[] = [];
        const card = document.querySelector('article.task-card');
        if (!card) return ['no task card'];
        const facts: [string, Element | null][] = [
          ['title', card.querySelector('h2')],
          ...Array.from(card.querySelectorAll('.task-facts > div')).map(
            (d) =>
              [d.querySelector('dt')?.textContent ?? '?', d.querySelector('dd')] as [string, Element | null],
          ),
        ];
        for (const [label, el] of facts) {
          if (!el) {
            out.push(`${label}: missing`);
            continue;
          }
          for (const block of ['end', 'start'] as const) {
            el.scrollIntoView({ block });
            const r = el.getBoundingClientRect();
            const points = [
              [r.left + r.width / 2, r.top + r.height / 2],
              [r.left + 2, r.top + 2],
              [r.right - 2, r.bottom - 2],
            ];
            for (const [x, y] of points) {
              const hit = document.elementFromPoint(x as number, y as number);
              if (!hit || !(el === hit || el.contains(hit)))
                out.push(
                  `${label} (scrolled to ${block}) is covered by ${hit?.tagName} "${hit?.textContent?.trim().slice(0, 20)}"`,
                );
            }
          }
        }
        return out;
      });
      if (found.length + covered.length > 0) failures[size.name] = [...found, ...covered];
    }
    await page.context().close();
    expect(failures).toEqual({});
  }, 120_000);
});
