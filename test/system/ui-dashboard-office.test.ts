import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, logIn, openPage, screenshot, seriousA11yViolations } from '../helpers/browser.js';
import { seed } from '../helpers/builders.js';
import { Client } from '../helpers/http.js';
import { MOSQUITTO_PASSWD, MosquittoProcess, mosquittoInstalled } from '../helpers/mosquitto-process.js';
import { AppProcess, freePort, readDb } from '../helpers/sync-processes.js';
import { driverLogin } from '../helpers/sync-traffic.js';
import { ADMIN, loginAdmin } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait-for.js';
import { cloudMasterData, type MasterData } from '../integration/sync/link-fixture.js';

/**
 * The office's day at the cloud (docs/web-apps.md, the dashboard), with everything as a user runs it: Debian's Mosquitto
 * with the deploy config and ACL, the site provisioned with `npm run site:add` (the CLI), the cloud
 * and the edge as their own processes (`npm run cloud`, `npm run edge` with the written config), and
 * Chromium on the cloud's dashboard. Each step checks what the office sees and what landed where:
 * the edge's database, the edge's API.
 */
if (!mosquittoInstalled) console.warn('SKIPPED: mosquitto is not installed (apt-get install mosquitto).');

const SITE = 'dal1';
const dir = mkdtempSync(join(tmpdir(), 'yard-office-'));
const paths = {
  cloud: join(dir, 'cloud'),
  edge: join(dir, 'edge'),
  broker: join(dir, 'broker'),
  out: join(dir, 'out'),
  passwd: join(dir, 'broker', 'passwd'),
};
const edgeDb = join(paths.edge, 'yard.db');
const CLOUD_PASSWORD = 'cloud-password-for-the-office-test';

let mosquitto: MosquittoProcess;
let cloud: AppProcess;
let edge: AppProcess;
let cloudApi: Client;
let edgeApi: Client;
let m: MasterData;
let gateId: string;
let browser: Browser;
let page: Page;

/** The first instant of the month before this one, and that month as `YYYY-MM` (UTC). */
function lastMonth(): { start: number; period: string } {
  const now = new Date();
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
  return { start, period: new Date(start).toISOString().slice(0, 7) };
}

describe.skipIf(!mosquittoInstalled)("the office's day at the cloud dashboard", () => {
  beforeAll(async () => {
    for (const p of [paths.cloud, paths.edge, paths.broker, paths.out]) mkdirSync(p, { recursive: true });
    const mqttPort = await freePort();
    const mqttUrl = `mqtt://127.0.0.1:${mqttPort}`;
    const cloudEnv = { YARD_ROLE: 'cloud', YARD_DATA_DIR: paths.cloud, YARD_LOG_LEVEL: 'warn' };
    // `npm run site:add` as an operator runs it, before the cloud starts.
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'cloud/provision-site-cli.ts',
        SITE,
        '--name',
        'Dallas cross-dock',
        '--mqtt-url',
        mqttUrl,
        '--out',
        paths.out,
        '--mosquitto-passwd',
        paths.passwd,
      ],
      { env: { ...process.env, ...cloudEnv }, stdio: 'pipe' },
    );
    execFileSync(MOSQUITTO_PASSWD, ['-b', paths.passwd, 'cloud', CLOUD_PASSWORD]);
    mosquitto = new MosquittoProcess({ dir: paths.broker, port: mqttPort, passwdFile: paths.passwd });
    await mosquitto.start();

    cloud = new AppProcess('cloud', 'cloud/main.ts', await freePort(), {
      ...cloudEnv,
      YARD_MQTT_URL: mqttUrl,
      YARD_MQTT_USERNAME: 'cloud',
      YARD_MQTT_PASSWORD: CLOUD_PASSWORD,
      YARD_ADMIN_USER: ADMIN.username,
      YARD_ADMIN_PASSWORD: ADMIN.password,
    });
    edge = new AppProcess('edge', 'edge/main.ts', await freePort(), {
      YARD_LOG_LEVEL: 'warn',
      YARD_CONFIG_FILE: join(paths.out, `${SITE}.edge.json`),
      YARD_DATA_DIR: paths.edge,
    });
    await Promise.all([cloud.start(), edge.start()]);
    cloudApi = new Client(cloud.url, await loginAdmin(cloud.url));
    m = await cloudMasterData(cloudApi, SITE, 'D');
    await waitFor(
      () =>
        readDb(
          edgeDb,
          (db) =>
            db.prepare('SELECT 1 FROM app_user WHERE username = ?').get(ADMIN.username) &&
            db.prepare('SELECT 1 FROM driver WHERE id = ?').get(m.driverId),
        ),
      { timeoutMs: 30_000, what: "the cloud's admin and driver at the edge" },
    );
    edgeApi = new Client(edge.url, await loginAdmin(edge.url));
    const gate = await seed(edgeApi).gate(m.yardId, {
      name: 'North gate',
      direction: 'both',
      relay: { driver: 'simulated', channel: 1 },
    });
    gateId = gate.id as string;
    browser = await launchChromium();
    page = await openPage(browser, { viewport: { width: 1440, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    for (const p of [edge, cloud]) await p?.kill().catch(() => undefined);
    await mosquitto?.kill().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the site online, offline within the status timeout when the edge stops, and online again', async () => {
    await page.goto(`${cloud.url}/dashboard/`);
    await logIn(page, ADMIN.username, ADMIN.password);
    const row = page.getByRole('row', { name: /Dallas cross-dock/ });
    await row.getByText('Online', { exact: true }).waitFor({ timeout: 20_000 });
    await screenshot(page, 'dashboard-office-sites');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await edge.stop();
    await row.getByText('Offline', { exact: true }).waitFor({ timeout: 20_000 });
    await screenshot(page, 'dashboard-office-site-offline');
    await edge.start();
    edgeApi = new Client(edge.url, await loginAdmin(edge.url));
    await row.getByText('Online', { exact: true }).waitFor({ timeout: 20_000 });
    // Back online, the site reports its gate's relay.
    await row
      .getByText(/1 ok|ok/)
      .first()
      .waitFor({ timeout: 20_000 });
    await screenshot(page, 'dashboard-office-sites-back');
  }, 90_000);

  it("opens a gate remotely with a reason; the edge's actuation audit has it", async () => {
    // Alt+G, as the navigation shows beside "Gates".
    await page.keyboard.press('Alt+g');
    await page.waitForURL(`${cloud.url}/dashboard/gates`);
    const north = page.getByRole('article', { name: /North gate/ });
    await north.getByRole('button', { name: /^Open North gate/ }).click();
    const dialog = page.getByRole('dialog', { name: /^Open North gate/ });
    await dialog.getByLabel('Reason').fill('driver at the intercom, no badge');
    await dialog.getByRole('button', { name: 'Open the gate' }).click();
    await dialog.getByText(/North gate.* opened/).waitFor({ timeout: 20_000 });
    await dialog.getByRole('button', { name: 'Close' }).click();
    // The opening log is the edge's audit, read through the cloud.
    await north
      .getByRole('table', { name: /Opening log/ })
      .getByRole('row', { name: /driver at the intercom, no badge/ })
      .waitFor();
    const audit = await edgeApi.get(`/api/hardware/gate/${gateId}/actuations`);
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.items[0]).toMatchObject({
      reason: 'driver at the intercom, no badge',
      requestedVia: 'cloud',
      result: 'ok',
    });
    await screenshot(page, 'dashboard-office-gates');
    expect(await seriousA11yViolations(page)).toEqual([]);
  }, 60_000);

  it('creates a task at the cloud that reaches the edge and is assigned to a driver on shift there', async () => {
    const driver = await driverLogin(edgeApi, m.driverCode);
    const session = await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId });
    expect(session.status, session.text).toBe(201);
    // The trailer is checked in at the gate house: the office moves trailers that are in the yard.
    const arrival = await edgeApi.post('/api/movement', {
      yardId: m.yardId,
      gateId,
      direction: 'in',
      trailer: { number: 'OFFICE1', carrierId: m.carrierId },
      locationId: m.spotId,
    });
    expect(arrival.status, arrival.text).toBe(201);
    const trailer = { id: arrival.body.trailerId as string };
    await waitFor(async () => (await cloudApi.get(`/api/trailer/${trailer.id}`)).body?.yardId === m.yardId, {
      timeoutMs: 30_000,
      what: 'the check-in at the cloud',
    });
    await page.goto(`${cloud.url}/dashboard/tasks`);
    await page.getByRole('link', { name: 'New task' }).click();
    const form = page.getByRole('form', { name: /^New task in/ });
    await form.getByLabel('Type').selectOption({ label: 'Move' });
    await form.getByRole('combobox', { name: 'Trailer', exact: true }).fill('OFFICE1');
    await page.getByRole('option', { name: /OFFICE1/ }).click();
    await form.getByLabel('From (optional)').selectOption({ label: 'A-D' });
    await form.getByLabel('To', { exact: true }).selectOption({ label: 'D-D' });
    await form.getByRole('button', { name: 'Create the task' }).click();
    await page.getByText(/task created for trailer OFFICE1/).waitFor({ timeout: 20_000 });
    await waitFor(
      () =>
        readDb(edgeDb, (db) =>
          db
            .prepare("SELECT 1 FROM yard_task WHERE trailer_id = ? AND driver_id = ? AND status = 'ASSIGNED'")
            .get(trailer.id, m.driverId),
        ),
      { timeoutMs: 30_000, what: 'the task at the edge, assigned to the driver on shift' },
    );
    // The assignment made at the edge comes back to the cloud: the office sees who has it.
    await page
      .getByRole('region', { name: /^Assigned/ })
      .getByRole('row', { name: /OFFICE1/ })
      .getByText(/Jockey D/)
      .waitFor({ timeout: 30_000 });
    await screenshot(page, 'dashboard-office-tasks');
    expect(await seriousA11yViolations(page)).toEqual([]);
  }, 90_000);

  it("shows the yard's figures and map at the cloud, with the edge's trailer on its spot", async () => {
    await page.goto(`${cloud.url}/dashboard/yard`);
    await page.getByRole('heading', { name: 'Longest in the yard' }).waitFor();
    await page
      .getByRole('table', { name: /longest/i })
      .getByText('OFFICE1')
      .waitFor({ timeout: 20_000 });
    await page.locator('.uplot canvas').first().waitFor();
    await screenshot(page, 'dashboard-office-yard');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // The office places the spot and the door on the yard plan (master data, at the cloud).
    for (const [id, plan] of [
      [m.spotId, { x: 10, y: 30, width: 4, height: 16, rotation: 0 }],
      [m.doorId, { x: 10, y: 4, width: 4, height: 3, rotation: 0 }],
    ] as const) {
      const placed = await cloudApi.patch(`/api/yard/${m.yardId}/location/${id}`, { plan });
      expect(placed.status, placed.text).toBe(200);
    }
    await page.goto(`${cloud.url}/dashboard/map`);
    const spot = page.locator('svg.yard-plan g[data-name="A-D"]');
    expect(await spot.locator('text.trailer').textContent()).toBe('OFFICE1');
    await screenshot(page, 'dashboard-office-map');
    expect(await seriousA11yViolations(page)).toEqual([]);
  }, 60_000);

  it('changes a carrier at the cloud and the edge has the change', async () => {
    await page.goto(`${cloud.url}/dashboard/master/carriers`);
    await page.getByRole('button', { name: 'Edit Carrier D' }).click();
    const dialog = page.getByRole('dialog', { name: /Edit carrier Carrier D/ });
    await dialog.getByLabel('Name (required)').fill('Carrier D Freight');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('row', { name: /Carrier D Freight/ }).waitFor();
    await screenshot(page, 'dashboard-office-carriers');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await waitFor(
      async () => (await edgeApi.get(`/api/carrier/${m.carrierId}`)).body?.name === 'Carrier D Freight',
      { timeoutMs: 30_000, what: "the carrier's new name at the edge" },
    );
  }, 60_000);

  it('generates, issues and downloads an invoice; the PDF parses', async () => {
    const { start, period } = lastMonth();
    const config = await cloudApi.post('/api/billing/config', {
      yardId: m.yardId,
      currency: 'USD',
      taxRateBp: 825,
      graceMinutes: 30,
      spaceMonthlyRate: 15_000,
      overageDailyRate: 2_500,
      moveFee: 1_500,
      gateFee: 500,
      issuerName: 'Dallas Cross-Dock LLC',
      paymentTermsDays: 30,
    });
    expect(config.status, config.text).toBe(201);
    // A stay last month, entered at the gate house after the fact (a back-office entry).
    for (const [direction, at] of [
      ['in', start + 3 * 86_400_000],
      ['out', start + 5 * 86_400_000],
    ] as const) {
      const res = await edgeApi.post('/api/movement', {
        yardId: m.yardId,
        gateId,
        direction,
        at: new Date(at).toISOString(),
        trailer: { number: 'BILL1', carrierId: m.carrierId },
      });
      expect(res.status, res.text).toBe(201);
    }
    // Invoicing waits for a site that is still sending (docs/domain.md "Billing"): as a clerk would,
    // wait until the site reports its queue empty before generating.
    await waitFor(
      async () => {
        const status = await cloudApi.get('/api/sync/status');
        const site = (
          status.body.sites as Array<{ siteId: string; link: string; reportedQueued: number }>
        ).find((s) => s.siteId === SITE);
        return site?.link === 'online' && site.reportedQueued === 0;
      },
      { timeoutMs: 30_000, what: 'the site to report its queue sent' },
    );
    await page.goto(`${cloud.url}/dashboard/billing/invoices`);
    const generate = page.getByRole('form', { name: 'Generate an invoice' });
    await generate.getByLabel('Carrier').selectOption({ label: 'Carrier D Freight (SCD)' });
    await generate.getByLabel('Month').selectOption(period);
    await generate.getByRole('button', { name: 'Generate draft' }).click();
    const heading = page.getByRole('heading', { name: /^Invoice / });
    await heading.waitFor({ timeout: 20_000 }).catch(async (err) => {
      await screenshot(page, 'dashboard-office-invoice-failed');
      throw new Error(`${(err as Error).message}\n${await generate.innerText()}`);
    });
    await page.getByRole('button', { name: 'Issue invoice' }).click();
    await page
      .getByRole('dialog', { name: /^Issue / })
      .getByRole('button', { name: 'Issue invoice' })
      .click();
    await page.getByText(/ is issued/).waitFor();
    const download = page.waitForEvent('download', { timeout: 15_000 });
    await page.getByRole('button', { name: 'Download PDF' }).click();
    const file = await (await download).path();
    const { PDFParse } = await import('pdf-parse');
    const { readFileSync } = await import('node:fs');
    const text = (await new PDFParse({ data: readFileSync(file) }).getText()).text;
    expect(text).toContain('Dallas Cross-Dock LLC');
    await screenshot(page, 'dashboard-office-invoice');
    expect(await seriousA11yViolations(page)).toEqual([]);
  }, 90_000);

  it('a billing user cannot reach the admin screens', async () => {
    await seed(cloudApi).user({ username: 'billing-clerk', password: 'billing-pass-1', role: 'billing' });
    await page.getByRole('button', { name: 'Log out' }).click();
    await logIn(page, 'billing-clerk', 'billing-pass-1');
    await page.getByRole('link', { name: /Billing/ }).waitFor();
    expect(await page.getByRole('link', { name: /^Admin/ }).count()).toBe(0);
    await page.goto(`${cloud.url}/dashboard/admin/users`);
    await page.getByText('Not available').waitFor();
    const users = await new Client(
      cloud.url,
      await loginAs(cloud.url, 'billing-clerk', 'billing-pass-1'),
    ).get('/api/user');
    expect(users.status).toBe(403);
  }, 60_000);
});

async function loginAs(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return ((await res.json()) as { token: string }).token;
}
