import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PDFParse } from 'pdf-parse';
import type { Browser, Download, Locator, Page } from 'playwright-core';
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
import { AppProcess, freePort } from '../helpers/sync-processes.js';

/**
 * The dashboard's billing screens in Chromium against the demo edge (standalone: it owns billing;
 * its demo data has the Dallas yard's billing configs and a month of history). A user with the
 * billing role reads the configs, calculates last month's summary and its per-day overage table,
 * generates an invoice, issues it, downloads its PDF and the month's CSVs, voids it and adds a
 * credit; each step is checked against the API. The browser runs in Tokyo's zone: what it shows is
 * in the yard's (America/Chicago) because the screens say so, not by accident.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let adminToken: string;
let yardId: string;
let carriers: Array<{ id: string; name: string; scac: string }>;
const clerk = { username: 'billing.clerk', password: 'correct-horse-battery' };

async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}

const text = (l: Locator) => expect.poll(() => l.textContent(), { timeout: 10_000 });
const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 10_000 });

/** Money as an en-US browser shows it (the page's locale): 303100 USD -> "$3,031.00". */
const usd = (minor: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(minor / 100);

/** The yard's previous month (America/Chicago), `YYYY-MM`. */
function lastMonth(): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Chicago',
    year: 'numeric',
    month: '2-digit',
  }).formatToParts(Date.now());
  const y = Number(parts.find((p) => p.type === 'year')?.value);
  const m = Number(parts.find((p) => p.type === 'month')?.value);
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

const carrier = (scac: string) => {
  const c = carriers.find((x) => x.scac === scac);
  if (!c) throw new Error(`no demo carrier ${scac}`);
  return c;
};

async function downloaded(click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const pending = page.waitForEvent('download', { timeout: 15_000 });
  await click();
  const download: Download = await pending;
  const path = await download.path();
  return { name: download.suggestedFilename(), bytes: await readFile(path) };
}

beforeAll(async () => {
  edge = await startDemoEdge();
  browser = await launchChromium();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  adminToken = ((await login.json()) as { token: string }).token;
  const created = await apiCall('POST', '/api/user', {
    ...clerk,
    role: 'billing',
    displayName: 'Billing clerk',
  });
  expect(created.status, created.text).toBe(201);
  yardId = (await apiCall('GET', '/api/yard')).body.items[0].id;
  carriers = (await apiCall('GET', '/api/carrier?limit=100')).body.items;
  page = await openPage(browser, { locale: 'en-US', timezoneId: 'Asia/Tokyo', acceptDownloads: true });
  await page.goto(`${edge.url}/dashboard/billing`);
  await logIn(page, clerk.username, clerk.password);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('billing in the dashboard, as a billing clerk', () => {
  it('configs: the yard rates and each carrier’s rate in force with where it comes from', async () => {
    await shown(page.getByRole('heading', { name: 'Billing: Dallas Cross-Dock' }));
    const config = (await apiCall('GET', `/api/billing/config/${yardId}/with-carriers`)).body;
    const rates = page.getByRole('table', { name: /Carrier agreements/ });
    await shown(rates);
    for (const cc of config.carriers as Array<{
      carrierId: string;
      spaceMonthlyRate: number | null;
      effective: { spaceMonthlyRate: number; overageDailyRate: number };
    }>) {
      const c = carriers.find((x) => x.id === cc.carrierId);
      const row = rates.getByRole('row', { name: new RegExp(`^${c?.name}`) });
      // Space / month: the effective rate, marked own or yard as the carrier's own value is set or null.
      const space = row.getByRole('cell').nth(1);
      await text(space).toBe(
        `${usd(cc.effective.spaceMonthlyRate)}${cc.spaceMonthlyRate === null ? 'yard' : 'own'}`,
      );
      await text(row.getByRole('cell').nth(2)).toBe(`${usd(cc.effective.overageDailyRate)}yard`);
    }
    // Lone Star's agreement: 6 own spaces at its own $140.00.
    const lone = rates.getByRole('row', { name: /^Lone Star Logistics/ });
    await text(lone.getByRole('cell').nth(0)).toBe('6own');
    await text(lone.getByRole('cell').nth(1)).toBe('$140.00own');
    await text(page.locator('.billing-facts')).toContain('8.25 %');

    // The yard's rates: an unknown currency is refused by the server on its field, nothing changes.
    await page.getByRole('button', { name: 'Edit yard rates' }).click();
    const yardForm = page.getByRole('form', { name: 'Edit billing for Dallas Cross-Dock' });
    await shown(yardForm);
    expect(await yardForm.getByLabel('Space per month (USD)').inputValue()).toBe('150.00');
    expect(await yardForm.getByLabel('Tax rate (%)').inputValue()).toBe('8.25');
    await yardForm.getByLabel('Currency').fill('XYZ');
    await yardForm.getByRole('button', { name: 'Save yard billing' }).click();
    await text(yardForm.locator('#yard-config-currency-error')).toContain('not a known ISO 4217 currency');
    expect((await apiCall('GET', `/api/billing/config/${yardId}`)).body.currency).toBe('USD');
    await yardForm.getByRole('button', { name: 'Cancel' }).click();
    await shown(rates);

    // Edit Prairie's agreement: a bad email is refused by the server on its field; then a move fee in dollars.
    const prairie = carrier('PRHL');
    await page.getByRole('button', { name: 'Edit Prairie Haulers (PRHL)' }).click();
    const form = page.getByRole('form', { name: /Edit the agreement of Prairie Haulers/ });
    await shown(form);
    await form.getByLabel('Bill-to email').fill('not an email');
    await form.getByLabel('Move fee (USD)').fill('12.50');
    await form.getByRole('button', { name: 'Save agreement' }).click();
    await shown(form.locator('#carrier-config-billToEmail-error'));
    expect((await apiCall('GET', `/api/billing/config/${yardId}/carrier/${prairie.id}`)).body.moveFee).toBe(
      1200,
    );
    await form.getByLabel('Bill-to email').fill('billing@prairiehaulers.example');
    // The appointment fees (docs/domain.md "Billing"): a late fee of its own; the demo's own no-show
    // fee for Prairie cleared, so the yard's applies (the empty field shows it).
    await form.getByLabel('Late arrival fee (USD)').fill('35.00');
    const noShow = form.getByLabel('No-show fee (USD)');
    expect(await noShow.inputValue()).toBe('75.00');
    await noShow.fill('');
    expect(await noShow.getAttribute('placeholder')).toMatch(/^Yard’s: \$/);
    await screenshot(page, 'dashboard-billing-agreement-fees');
    await form.getByRole('button', { name: 'Save agreement' }).click();
    await shown(page.getByText('The agreement is saved.'));
    const saved = (await apiCall('GET', `/api/billing/config/${yardId}/carrier/${prairie.id}`)).body;
    expect(saved).toMatchObject({
      moveFee: 1250,
      bookedSpaces: 2,
      spaceMonthlyRate: null,
      lateFee: 3500,
      noShowFee: null,
    });
    await text(
      rates
        .getByRole('row', { name: /^Prairie Haulers/ })
        .getByRole('cell')
        .nth(3),
    ).toBe('$12.50own');

    // Gulf Coast's agreement deleted (after a confirmation), then made again from "Add a carrier agreement".
    const gulf = carrier('GCCA');
    await page.getByRole('button', { name: 'Delete the agreement of Gulf Coast Carriers (GCCA)' }).click();
    const confirmDelete = page.getByRole('dialog', { name: /Delete the agreement of Gulf Coast/ });
    await confirmDelete.getByRole('button', { name: 'Delete agreement' }).click();
    await shown(page.getByText('The agreement of Gulf Coast Carriers (GCCA) is deleted.'));
    expect((await apiCall('GET', `/api/billing/config/${yardId}/carrier/${gulf.id}`)).status).toBe(404);
    await text(page.locator('.billing p.muted').last()).toContain(
      'Without an agreement: Gulf Coast Carriers (GCCA).',
    );
    await page.getByRole('button', { name: 'Add a carrier agreement' }).click();
    const add = page.getByRole('form', { name: 'New carrier agreement' });
    await add.getByLabel('Carrier').selectOption({ label: 'Gulf Coast Carriers (GCCA)' });
    await add.getByLabel('Bill-to email').fill('payables@gulfcoastcarriers.example');
    await add.getByRole('button', { name: 'Save agreement' }).click();
    await shown(page.getByText('The agreement is saved.'));
    expect((await apiCall('GET', `/api/billing/config/${yardId}/carrier/${gulf.id}`)).body).toMatchObject({
      bookedSpaces: null,
      moveFee: null,
      billToEmail: 'payables@gulfcoastcarriers.example',
    });
    await shown(page.getByText('Every carrier has an agreement.'));
    await screenshot(page, 'dashboard-billing-configs');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('summary: last month per carrier, and Lone Star’s per-day overage table, as the API computes it', async () => {
    const period = lastMonth();
    await page
      .getByRole('navigation', { name: 'Billing pages' })
      .getByRole('link', { name: 'Summary' })
      .click();
    await shown(page.getByRole('heading', { name: 'Summary' }));
    // The month the yard just finished (in Chicago, not in the browser's Tokyo) is the one chosen.
    expect(await page.getByLabel('Period').inputValue()).toBe(period);
    await page.getByRole('button', { name: /Calculate the summary|Recalculate/ }).click();
    const lone = carrier('LSLG');
    await page.getByRole('button', { name: 'Show Lone Star Logistics (LSLG)' }).click();

    const stored = (await apiCall('GET', `/api/billing/summary?period=${period}&yardIds=${yardId}`)).body;
    const summary = stored.items.find((s: { carrierId: string }) => s.carrierId === lone.id);
    expect(summary.days.length).toBeGreaterThanOrEqual(28);
    const table = page.getByRole('table', { name: /Per carrier|per carrier/ });
    await text(table.getByRole('row', { name: /^Lone Star/ })).toContain(usd(summary.total));
    const charges = page.getByRole('table', { name: 'Charges of Lone Star Logistics (LSLG)' });
    await text(charges.getByRole('row', { name: /^Overage/ })).toContain(usd(summary.lines.overage.amount));
    await text(charges.getByRole('row', { name: /^Total/ })).toContain(usd(summary.total));

    const overage = page.getByRole('table', { name: /Overage per day of Lone Star/ });
    await expect.poll(() => overage.locator('tbody tr').count()).toBe(summary.days.length);
    const busy = summary.days.find((d: { overage: number }) => d.overage > 0);
    expect(busy, 'the demo month has a day above the booked spaces').toBeDefined();
    const [y, m, d] = busy.date.split('-').map(Number);
    const label = new Intl.DateTimeFormat('en-US', {
      timeZone: 'UTC',
      weekday: 'short',
      day: 'numeric',
      month: 'short',
    }).format(Date.UTC(y, m - 1, d));
    const cells = overage.getByRole('row', { name: new RegExp(`^${label}`) }).getByRole('cell');
    await text(cells.nth(0)).toBe(String(busy.peak));
    await text(cells.nth(1)).toBe(String(busy.bookedSpaces));
    await text(cells.nth(2)).toBe(String(busy.overage));
    await text(cells.nth(3)).toBe(usd(busy.amount));
    await text(overage.locator('tfoot')).toContain(usd(summary.lines.overage.amount));
    await screenshot(page, 'dashboard-billing-summary');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  let invoiceId: string;
  let number: string;

  it('generates last month’s invoice for Lone Star and issues it', async () => {
    const period = lastMonth();
    const lone = carrier('LSLG');
    await page
      .getByRole('navigation', { name: 'Billing pages' })
      .getByRole('link', { name: 'Invoices' })
      .click();
    await shown(page.getByText('No invoices yet: generate one for an ended month above.'));
    const generate = page.getByRole('form', { name: 'Generate an invoice' });
    // No carrier chosen: said on the field, nothing generated.
    await generate.getByRole('button', { name: 'Generate draft' }).click();
    await shown(generate.getByText('Choose the carrier to invoice.'));
    await generate.getByLabel('Carrier').selectOption({ label: 'Lone Star Logistics (LSLG)' });
    expect(await generate.getByLabel('Month').inputValue()).toBe(period);
    await generate.getByRole('button', { name: 'Generate draft' }).click();
    const heading = page.getByRole('heading', { name: /^Invoice DAL1-/ });
    await shown(heading);

    const listed = (await apiCall('GET', `/api/billing/invoice/summaries?yardId=${yardId}&period=${period}`))
      .body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ carrierId: lone.id, status: 'draft' });
    invoiceId = listed[0].id;
    number = listed[0].number;
    expect(page.url()).toContain(`/dashboard/billing/invoices/${invoiceId}`);
    await text(heading).toContain(number);
    await text(heading).toContain('Draft');
    const invoice = (await apiCall('GET', `/api/billing/invoice/${invoiceId}`)).body;
    await text(page.locator('.invoice-total')).toContain(usd(invoice.total));
    await text(
      page.getByRole('table', { name: /^Charges for/ }).getByRole('row', { name: /^Yard moves/ }),
    ).toContain(usd(invoice.lines.moves.amount));

    await page.getByRole('button', { name: 'Issue invoice' }).click();
    const dialog = page.getByRole('dialog', { name: `Issue ${number}?` });
    await shown(dialog);
    await dialog.getByRole('button', { name: 'Issue invoice' }).click();
    await shown(page.getByText(`${number} is issued`));
    await text(heading).toContain('Issued');
    expect((await apiCall('GET', `/api/billing/invoice/${invoiceId}`)).body).toMatchObject({
      status: 'issued',
      issuedAt: expect.any(String),
    });
    await screenshot(page, 'dashboard-invoice');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('downloads the PDF and the month’s CSVs for Xero and QuickBooks Online, as the API sends them', async () => {
    const pdf = await downloaded(() => page.getByRole('button', { name: 'Download PDF' }).click());
    expect(pdf.name).toBe(`${number}.pdf`);
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.bytes.subarray(-8).toString('latin1')).toContain('%%EOF');
    const parser = new PDFParse({ data: new Uint8Array(pdf.bytes) });
    try {
      const parsed = await parser.getText();
      expect(parsed.text).toContain(number);
      expect(parsed.text).toContain('Status: issued');
      expect(parsed.text).toContain('Lone Star Logistics');
    } finally {
      await parser.destroy();
    }
    await shown(page.getByText(`Downloaded ${number}.pdf.`));

    const period = lastMonth();
    for (const [button, format, header] of [
      ['CSV for Xero', 'xero', '*ContactName'],
      ['CSV for QuickBooks Online', 'quickbooks', 'InvoiceNo'],
    ] as const) {
      const csv = await downloaded(() => page.getByRole('button', { name: button }).click());
      expect(csv.name).toBe(`invoices-${period}-${format}.csv`);
      const fromApi = await apiCall(
        'GET',
        `/api/billing/invoice/export?period=${period}&format=${format}&yardId=${yardId}`,
      );
      expect(fromApi.status).toBe(200);
      const lines = csv.bytes
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/);
      expect(lines[0]).toBe(fromApi.text.replace(/^\uFEFF/, '').split(/\r?\n/)[0]);
      expect(lines[0]).toContain(header);
      // The issued invoice is in the file, one row per charged line.
      expect(lines.filter((l) => l.includes(number)).length).toBeGreaterThan(1);
    }
  });

  it('voids the issued invoice with a reason (required), and the month can take a credit again', async () => {
    await page.getByRole('button', { name: 'Void invoice' }).click();
    const dialog = page.getByRole('dialog', { name: `Void ${number}?` });
    await shown(dialog);
    await dialog.getByRole('button', { name: 'Void invoice' }).click();
    await shown(dialog.getByText('Say why (it is kept with the invoice).'));
    expect((await apiCall('GET', `/api/billing/invoice/${invoiceId}`)).body.status).toBe('issued');
    const reason = 'Wrong booked spaces; re-invoiced';
    await dialog.getByLabel('Reason for voiding').fill(reason);
    await dialog.getByRole('button', { name: 'Void invoice' }).click();
    await shown(page.getByText(`${number} is void`));
    await shown(page.getByText(`: ${reason}`));
    await text(page.getByRole('heading', { name: /^Invoice DAL1-/ })).toContain('Void');
    expect((await apiCall('GET', `/api/billing/invoice/${invoiceId}`)).body).toMatchObject({
      status: 'void',
      voidReason: reason,
    });
  });

  it('adds a credit adjustment to Lone Star’s last month', async () => {
    const period = lastMonth();
    const lone = carrier('LSLG');
    await page
      .getByRole('navigation', { name: 'Billing pages' })
      .getByRole('link', { name: 'Adjustments' })
      .click();
    await shown(page.getByRole('heading', { name: 'Adjustments' }));
    await page.getByLabel('Carrier', { exact: true }).selectOption({ label: 'Lone Star Logistics (LSLG)' });
    await shown(page.getByText('No adjustments for this month'));
    const form = page.getByRole('form', { name: 'Add an adjustment' });
    await form.getByLabel('Amount (USD)').fill('-25.005');
    await form.getByLabel('Reason').fill('Goodwill: gate closed two hours');
    await form.getByRole('button', { name: 'Add adjustment' }).click();
    await shown(form.getByText('At most 2 decimals in USD.'));
    await form.getByLabel('Amount (USD)').fill('-25.00');
    await form.getByRole('button', { name: 'Add adjustment' }).click();
    await shown(page.getByText('Adjustment of -$25.00 added.'));
    const list = (
      await apiCall(
        'GET',
        `/api/billing/invoice-adjustment?yardId=${yardId}&carrierId=${lone.id}&period=${period}`,
      )
    ).body.items;
    expect(list).toEqual([
      expect.objectContaining({ amount: -2500, description: 'Goodwill: gate closed two hours' }),
    ]);
    await text(page.getByRole('table', { name: /^Adjustments of/ })).toContain(
      'Goodwill: gate closed two hours',
    );
  });

  it('a billing clerk has no admin screens', async () => {
    const nav = page.getByRole('navigation', { name: 'Screens' });
    expect(await nav.getByRole('link', { name: /Billing/ }).count()).toBe(1);
    expect(await nav.getByRole('link', { name: /Admin/ }).count()).toBe(0);
    await page.goto(`${edge.url}/dashboard/admin`);
    await shown(page.getByRole('heading', { name: 'Not available' }));
  });
});

describe('billing at an edge linked to a cloud', () => {
  let linked: AppProcess;
  let dir: string;
  afterAll(async () => {
    await linked?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says billing is managed in the cloud and offers no billing action', async () => {
    // The demo's database (users, yard, billing records) under an edge that is linked to a cloud
    // (an MQTT address, no cloud there): billing is the cloud's, every billing call answers 409.
    dir = mkdtempSync(join(tmpdir(), 'yard-linked-'));
    const db = new Database(edge.dbFile, { readonly: true });
    try {
      await db.backup(join(dir, 'yard.db'));
    } finally {
      db.close();
    }
    linked = new AppProcess('linked edge', 'edge/main.ts', await freePort(), {
      YARD_DATA_DIR: dir,
      YARD_ADMIN_USER: edge.admin.username,
      YARD_ADMIN_PASSWORD: edge.admin.password,
      YARD_MQTT_URL: 'mqtt://127.0.0.1:9',
      YARD_LOG_LEVEL: 'error',
    });
    await linked.start();
    const login = await fetch(`${linked.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(edge.admin),
    });
    const token = ((await login.json()) as { token: string }).token;
    const refused = await fetch(`${linked.url}/api/billing/config/${yardId}/with-carriers`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(refused.status).toBe(409);
    const problem = (await refused.json()) as { code: string; detail: string };
    expect(problem.code).toBe('cloud-owned');

    const there = await openPage(browser, { locale: 'en-US' });
    await there.goto(`${linked.url}/dashboard/billing/invoices`);
    await logIn(there, edge.admin.username, edge.admin.password);
    await shown(there.getByText('Billing is managed in the cloud.'));
    await shown(there.getByText(problem.detail, { exact: false }));
    for (const action of ['Edit yard rates', 'Generate draft', 'Issue invoice', 'Add adjustment']) {
      expect(await there.getByRole('button', { name: action }).count()).toBe(0);
    }
    await screenshot(there, 'dashboard-billing-linked');
    expect(await seriousA11yViolations(there)).toEqual([]);
    await there.context().close();
  }, 90_000);
});
