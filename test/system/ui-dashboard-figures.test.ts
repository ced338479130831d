import Database from 'better-sqlite3';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoCloud,
  type DemoEdge,
  launchChromium,
  logIn,
  openPage,
  screenshot,
  seriousA11yViolations,
  startDemoCloud,
  startDemoEdge,
} from '../helpers/browser.js';

/**
 * The dashboard's landing page and yard figures in Chromium against the standalone demo edge: the
 * site's own status and gates, then the yard's figures matching the API, the movement chart drawn
 * by uPlot, and a check-in made over the API showing in the figures without a reload.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
/** Every script the dashboard page asked for: uPlot must come only with the chart. */
const scripts: string[] = [];

async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const text = (l: Locator, timeout = 10_000) => expect.poll(() => l.textContent(), { timeout });
const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 10_000 });

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  page = await openPage(browser, { viewport: { width: 1366, height: 900 } });
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(r.url());
  });
  await page.goto(`${edge.url}/dashboard/`);
  await logIn(page, edge.admin.username, edge.admin.password);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('the sites page at a standalone edge', () => {
  it("shows this site as standalone, with its gates' relays", async () => {
    await shown(page.getByRole('heading', { name: 'This site', level: 1 }));
    const status = (await apiCall('GET', '/api/sync/status')).body;
    expect(status.mode).toBe('standalone');
    await shown(page.getByText('Standalone site, no cloud'));
    await shown(page.getByText(`Site id: ${status.siteId}`));

    const hardware = (await apiCall('GET', '/api/hardware/status')).body;
    const gates = page.locator('table.gate-table tbody tr');
    await expect.poll(() => gates.count(), { timeout: 10_000 }).toBe(hardware.gates.length);
    for (const g of hardware.gates as { name: string; state: string }[]) {
      const row = page.getByRole('row', { name: new RegExp(g.name.replace(/[()]/g, '\\$&')) });
      await text(row).toContain(g.state);
    }
    // No dead letters at a fresh demo site: says so instead of a Retry button.
    expect(await page.getByRole('button', { name: /Retry/ }).count()).toBe(0);
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((u) => /uPlot/i.test(u))).toEqual([]);
    await screenshot(page, 'dashboard-sites');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('a dead letter shows with Retry for an organisation-wide admin; Retry applies it again and says how it went', async () => {
    // A row refused by the sync engine, as the applier leaves it (written into the site's own database).
    const db = new Database(edge.dbFile);
    try {
      db.prepare(
        'INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(
        'cloud',
        1,
        'carrier',
        '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
        'validation-failed',
        '{}',
        Date.now(),
      );
    } finally {
      db.close();
    }
    await page.reload();
    const retry = page.getByRole('button', { name: 'Retry the dead letters of this site' });
    await shown(retry);
    await retry.click();
    const said = page.locator('.dead-letters [role="status"]');
    await text(said).toMatch(/of 1 applied|Nothing left to retry/);
    const left = new Database(edge.dbFile, { readonly: true });
    try {
      const { n } = left.prepare('SELECT count(*) AS n FROM dead_letter').get() as { n: number };
      // What the screen says matches the table: refused again (still there) or applied (gone).
      if (n === 1) await text(said).toContain('0 of 1 applied; 1 still refused');
      else await text(said).toContain('1 of 1 applied.');
    } finally {
      left.close();
    }
  });
});

describe('the yard figures', () => {
  let yardId: string;

  it('match the API: trailers in the yard, load status, open tasks, the longest dwell', async () => {
    await page.evaluate(() => {
      (globalThis as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: /^Yard/ }).click();
    const yard = (await apiCall('GET', '/api/yard')).body.items[0];
    yardId = yard.id;
    await shown(page.getByRole('heading', { name: `${yard.name} (${yard.code})`, level: 1 }));

    const figures = (await apiCall('GET', `/api/dashboard/yard/trailer?yardId=${yardId}`)).body.items[0];
    expect(figures.trailersInYard).toBeGreaterThan(0);
    const big = page.locator('[data-figure="trailers-in-yard"]');
    await text(big).toMatch(new RegExp(`^${figures.trailersInYard} of ${yard.capacity} trailer spaces`));
    await shown(page.getByText("Capacity: the yard record's trailer spaces."));
    const loaded = page.getByRole('table', { name: 'By load status' }).getByRole('row', { name: /Loaded/ });
    await text(loaded).toContain(String(figures.byLoadStatus.loaded));

    const tasks = (await apiCall('GET', `/api/yard-task/summary/${yardId}`)).body;
    const open = tasks.counts.QUEUED + tasks.counts.ASSIGNED + tasks.counts.IN_PROGRESS;
    await text(page.locator('[data-figure="open-tasks"]')).toMatch(
      new RegExp(`^${open} \\(${tasks.counts.QUEUED} waiting`),
    );

    // Longest dwell first: the table's first trailer is the one that arrived first.
    const inYard = (await apiCall('GET', `/api/trailer?yardId=${yardId}&inYard=true&limit=500`)).body
      .items as {
      number: string;
      arrivedAt: string;
    }[];
    const oldest = [...inYard].sort((a, b) => Date.parse(a.arrivedAt) - Date.parse(b.arrivedAt))[0]!;
    const dwellRows = page.locator('table.dwell-table tbody tr');
    await expect.poll(() => dwellRows.count()).toBe(Math.min(20, inYard.length));
    await text(dwellRows.first().locator('th')).toBe(oldest.number);
  });

  it('draws the movements with uPlot (lazily loaded), with the same figures in words', async () => {
    const canvas = page.locator('.movement-chart canvas').first();
    await canvas.waitFor({ timeout: 15_000 });
    const size = await canvas.evaluate((el) => {
      const c = el as unknown as { width: number; height: number };
      return { width: c.width, height: c.height };
    });
    expect(size.width).toBeGreaterThan(100);
    expect(size.height).toBeGreaterThan(100);
    expect(scripts.some((u) => /uPlot/i.test(u))).toBe(true);
    const m = (await apiCall('GET', `/api/dashboard/movement?yardId=${yardId}&bucket=hour`)).body;
    await text(page.locator('.chart-summary')).toContain(
      `${m.totals.in} check-ins and ${m.totals.out} check-outs`,
    );
    // Day buckets: the switch reads the 30 days.
    await page.getByLabel('Last 30 days, by day').check();
    const days = (await apiCall('GET', `/api/dashboard/movement?yardId=${yardId}&bucket=day`)).body;
    await text(page.locator('.chart-summary')).toContain(`In the last 30 days: ${days.totals.in} check-ins`);
    await page.getByLabel('Last 24 hours, by hour').check();
    await text(page.locator('.chart-summary')).toContain('In the last 24 hours');
  });

  it('a check-in made over the API shows in the figures without a reload', async () => {
    const before = (await apiCall('GET', `/api/dashboard/yard/trailer?yardId=${yardId}`)).body.items[0];
    const m = (await apiCall('GET', `/api/dashboard/movement?yardId=${yardId}&bucket=hour`)).body;
    const made = await apiCall('POST', '/api/movement', {
      yardId,
      direction: 'in',
      trailer: { number: 'FIG9001' },
      loadStatus: 'loaded',
    });
    expect(made.status).toBe(201);
    const after = (await apiCall('GET', `/api/dashboard/yard/trailer?yardId=${yardId}`)).body.items[0];
    expect(after.trailersInYard).toBe(before.trailersInYard + 1);
    // Debounced by a few seconds, then read again.
    await text(page.locator('[data-figure="trailers-in-yard"]'), 20_000).toMatch(
      new RegExp(`^${after.trailersInYard} of`),
    );
    await text(page.locator('.chart-summary'), 20_000).toContain(`${m.totals.in + 1} check-ins`);
    // The newest arrival is at the bottom of the dwell list when there is room for it.
    if (after.trailersInYard <= 20) {
      await text(page.locator('table.dwell-table tbody tr').last().locator('th')).toBe('FIG9001');
    }
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    await screenshot(page, 'dashboard-yard');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('with a second yard, an overview lists every yard and a click chooses one', async () => {
    const made = await apiCall('POST', '/api/yard', {
      code: 'HOU1',
      name: 'Houston Overflow',
      timeZone: 'America/Chicago',
      capacity: 40,
    });
    expect(made.status).toBe(201);
    // The yard list is read when the dashboard opens.
    await page.reload();
    const overview = page.getByRole('table', { name: /Every yard/ });
    await shown(overview);
    const figures = (await apiCall('GET', '/api/dashboard/yard/trailer')).body.items as {
      yardId: string;
      trailersInYard: number;
    }[];
    const dal = overview.getByRole('row', { name: /Dallas Cross-Dock/ });
    const inDal = figures.find((f) => f.yardId === yardId)!.trailersInYard;
    await text(dal.locator('td').first()).toBe(String(inDal));
    const hou = overview.getByRole('row', { name: /Houston Overflow/ });
    await text(hou.locator('td').first()).toBe('0');
    await hou.getByRole('button', { name: 'Houston Overflow (HOU1)' }).click();
    await shown(page.getByRole('heading', { name: 'Houston Overflow (HOU1)', level: 1 }));
    await text(page.locator('[data-figure="trailers-in-yard"]')).toMatch(/^0 of 40 trailer spaces/);
    await shown(page.getByText('No trailer is in the yard.').first());
    await screenshot(page, 'dashboard-yard-overview');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});

describe('the sites page at the cloud', () => {
  let cloud: DemoCloud | undefined;
  beforeAll(async () => {
    cloud = await startDemoCloud();
  }, 120_000);
  afterAll(async () => {
    await cloud?.stop();
  });

  it('lists the linked site online, with its queues, version and gates, and the summary line', async () => {
    const cloudPage = await openPage(browser, { viewport: { width: 1366, height: 900 } });
    await cloudPage.goto(`${cloud!.url}/dashboard/`);
    await logIn(cloudPage, 'admin', 'demo-admin-pass');
    await shown(cloudPage.getByRole('heading', { name: 'Sites', level: 1 }));
    const row = cloudPage.locator('table.site-table tbody tr[data-site-id="dal1"]');
    await shown(row);
    await text(row.locator('th')).toContain('Dallas Cross-Dock');
    // The edge links within seconds of starting; the row follows.
    await text(row, 20_000).toMatch(/Online.*online since/);
    await text(cloudPage.locator('.site-summary')).toMatch(/1 online\s*0 offline\s*\d+ changes? queued/);
    const login = await fetch(`${cloud!.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'demo-admin-pass' }),
    });
    const cloudToken = ((await login.json()) as { token: string }).token;
    const status = await (
      await fetch(`${cloud!.url}/api/sync/status`, { headers: { authorization: `Bearer ${cloudToken}` } })
    ).json();
    const site = status.sites.find((s: { siteId: string }) => s.siteId === 'dal1');
    if (site.version) await text(row).toContain(site.version);
    // Gates: each state counted, or "not reported" from a site that does not send them.
    await text(row.locator('td').last()).toMatch(
      site.gates === null ? /not reported/ : /\d+ (ok|fault|opening|idle|unknown)/,
    );
    await screenshot(cloudPage, 'dashboard-sites-cloud');
    expect(await seriousA11yViolations(cloudPage)).toEqual([]);
    await cloudPage.context().close();
  });

  it("at the linked edge, the page shows this site's link to the cloud, its queue and last acknowledgement", async () => {
    const edgePage = await openPage(browser, { viewport: { width: 1366, height: 900 } });
    await edgePage.goto(`${cloud!.edgeUrl}/dashboard/`);
    await logIn(edgePage, 'admin', 'demo-admin-pass');
    await shown(edgePage.getByRole('heading', { name: 'This site', level: 1 }));
    const link = edgePage.getByRole('region', { name: 'Cloud link' });
    await text(link, 20_000).toMatch(/State\s*Online online since/);
    await text(link).toMatch(/Changes queued for the cloud\s*\d+/);
    await text(link).toMatch(/Last acknowledged by the cloud\s*\S+/);
    await shown(edgePage.getByRole('row', { name: /North gate \(in\)/ }));
    await screenshot(edgePage, 'dashboard-sites-linked-edge');
    expect(await seriousA11yViolations(edgePage)).toEqual([]);
    await edgePage.context().close();
  });
});
