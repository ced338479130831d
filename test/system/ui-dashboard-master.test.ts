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
 * The dashboard's master data and admin screens in Chromium against the demo edge (standalone: it
 * owns every record): an admin creates and edits a carrier, meets a stale edit (412) and a field
 * error, creates a billing user who then finds no admin area, and creates an API key whose secret
 * is shown once.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;

async function apiCall(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, etag: res.headers.get('etag'), body: text ? JSON.parse(text) : undefined };
}

const text = (l: Locator) => expect.poll(() => l.textContent(), { timeout: 10_000 });
const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 10_000 });
const gone = (l: Locator) => l.waitFor({ state: 'hidden', timeout: 10_000 });
/** The list's own message (the header has a live status of its own). */
const notice = () => page.locator('section.records').getByRole('status');

beforeAll(async () => {
  edge = await startDemoEdge();
  browser = await launchChromium();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  page = await openPage(browser);
  await page.goto(`${edge.url}/dashboard/master/carriers`);
  await logIn(page, edge.admin.username, edge.admin.password);
  await shown(page.getByRole('heading', { name: 'Carriers' }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

async function carrierByName(name: string) {
  const list = await apiCall('GET', `/api/carrier?q=${encodeURIComponent(name)}`);
  return (list.body.items as { id: string; name: string }[]).find((c) => c.name === name);
}

describe('master data: carriers', () => {
  it('creates a carrier from the form and lists it', async () => {
    await page.getByRole('button', { name: 'New carrier' }).click();
    const dialog = page.getByRole('dialog', { name: 'New carrier' });
    await dialog.getByLabel('Name (required)').fill('Lakeside Haulage');
    await dialog.getByLabel('SCAC').fill('lkhl');
    await dialog.getByLabel('Contact email').fill('desk@lakeside.example');
    await dialog.getByRole('button', { name: 'Create carrier' }).click();
    await gone(dialog);
    await text(notice()).toContain('Created carrier Lakeside Haulage');
    const row = page.getByRole('row', { name: /Lakeside Haulage/ });
    await text(row).toContain('LKHL');
    const stored = await apiCall('GET', `/api/carrier/${(await carrierByName('Lakeside Haulage'))!.id}`);
    expect(stored.body).toMatchObject({ scac: 'LKHL', contact: { email: 'desk@lakeside.example' } });
    await screenshot(page, 'dashboard-master-carriers');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('edits the name, sending only the change, and the API has it', async () => {
    await page.getByRole('button', { name: 'Edit Lakeside Haulage' }).click();
    const dialog = page.getByRole('dialog', { name: /Edit carrier Lakeside Haulage/ });
    await dialog.getByLabel('Name (required)').fill('Lakeside Haulage Co');
    expect(await seriousA11yViolations(page)).toEqual([]);
    const patch = page.waitForRequest((r) => r.method() === 'PATCH' && r.url().includes('/api/carrier/'));
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    const sent = await patch;
    expect(sent.postDataJSON()).toEqual({ name: 'Lakeside Haulage Co' });
    expect(sent.headers()['if-match']).toBe('"v1"');
    await gone(dialog);
    await text(notice()).toContain('Saved carrier Lakeside Haulage Co');
    const carrier = await carrierByName('Lakeside Haulage Co');
    const stored = await apiCall('GET', `/api/carrier/${carrier!.id}`);
    expect(stored.body).toMatchObject({ name: 'Lakeside Haulage Co', scac: 'LKHL', version: 2 });
  });

  it('a save over a change made meanwhile is refused with 412, says so and reloads their version', async () => {
    await page.getByRole('button', { name: 'Edit Lakeside Haulage Co' }).click();
    const dialog = page.getByRole('dialog', { name: /Edit carrier/ });
    await shown(dialog.getByLabel('Name (required)'));
    // Someone else renames it between open and save.
    const id = (await carrierByName('Lakeside Haulage Co'))!.id;
    const theirs = await apiCall('PATCH', `/api/carrier/${id}`, { usdot: '7654321' });
    expect(theirs.status).toBe(200);
    await dialog.getByLabel('Name (required)').fill('Lakeside Mine');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    const alert = dialog.getByRole('alert');
    await text(alert).toContain('Someone else changed this carrier since you opened it');
    expect((await apiCall('GET', `/api/carrier/${id}`)).body.name).toBe('Lakeside Haulage Co');
    await dialog.getByRole('button', { name: 'Reload to see their change' }).click();
    await expect.poll(() => dialog.getByLabel('USDOT number').inputValue()).toBe('7654321');
    expect(await dialog.getByLabel('Name (required)').inputValue()).toBe('Lakeside Haulage Co');
    // Made again on their version, the change is saved.
    await dialog.getByLabel('Name (required)').fill('Lakeside Mine');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await gone(dialog);
    expect((await apiCall('GET', `/api/carrier/${id}`)).body).toMatchObject({
      name: 'Lakeside Mine',
      usdot: '7654321',
    });
  });

  it("shows the server's validation error beside its field, and saves nothing", async () => {
    await page.getByRole('button', { name: 'Edit Lakeside Mine' }).click();
    const dialog = page.getByRole('dialog', { name: /Edit carrier/ });
    const usdot = dialog.getByLabel('USDOT number');
    await usdot.fill('12-AB');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await text(dialog.locator('#record-carrier-usdot-error')).toContain('must be up to 8 digits');
    expect(await usdot.getAttribute('aria-invalid')).toBe('true');
    expect(await usdot.getAttribute('aria-describedby')).toBe('record-carrier-usdot-error');
    const id = (await carrierByName('Lakeside Mine'))!.id;
    expect((await apiCall('GET', `/api/carrier/${id}`)).body.usdot).toBe('7654321');
    await dialog.getByRole('button', { name: /Cancel/ }).click();
    await gone(dialog);
  });

  it('deletes a carrier after confirming', async () => {
    await page.getByRole('button', { name: 'Delete Lakeside Mine' }).click();
    const dialog = page.getByRole('dialog', { name: /Delete carrier Lakeside Mine/ });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await gone(dialog);
    await text(notice()).toContain('Deleted carrier Lakeside Mine');
    expect(await carrierByName('Lakeside Mine')).toBeUndefined();
  });
  it('searches, and pages by cursor: "Show more" appends the next page until there is none', async () => {
    for (let n = 1; n <= 55; n++) {
      const made = await apiCall('POST', '/api/carrier', {
        name: `Paging Freight ${String(n).padStart(2, '0')}`,
      });
      expect(made.status).toBe(201);
    }
    await page.reload();
    await page.getByLabel('Name or SCAC').fill('Paging Freight');
    await page.getByRole('button', { name: 'Search' }).click();
    const table = page.getByRole('table', { name: /Carriers/ });
    await text(table.locator('caption')).toContain('50 shown');
    await page.getByRole('button', { name: 'Show more carriers' }).click();
    await text(table.locator('caption')).toContain('55 shown');
    expect(await page.getByRole('button', { name: 'Show more carriers' }).count()).toBe(0);
    expect(await table.getByRole('row', { name: /Lone Star/ }).count()).toBe(0);
    const names = await table.locator('tbody th').allTextContents();
    expect(new Set(names).size).toBe(55);
  });
});

describe('admin: users, API keys, settings', () => {
  it('creates a billing user, who is offered neither Admin nor Master data', async () => {
    await page.goto(`${edge.url}/dashboard/admin/users`);
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user' });
    await dialog.getByLabel('Username (required)').fill('bea.billing');
    await dialog.getByLabel('Display name').fill('Bea from billing');
    await dialog.getByLabel('Role (required)').selectOption('billing');
    await dialog.getByLabel('Password (required)').fill('short');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    // The password rule is the server's: its words land beside the field.
    await text(dialog.locator('#record-user-password-error')).toContain('at least 10 characters');
    await dialog.getByLabel('Password (required)').fill('ledger-and-ink-42');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await gone(dialog);
    const row = page.getByRole('row', { name: /bea\.billing/ });
    await text(row).toContain('Billing');
    await screenshot(page, 'dashboard-admin-users');
    expect(await seriousA11yViolations(page)).toEqual([]);

    const other = await openPage(browser);
    try {
      await other.goto(`${edge.url}/dashboard/`);
      await logIn(other, 'bea.billing', 'ledger-and-ink-42');
      const nav = other.getByRole('navigation').first();
      await shown(nav.getByRole('link', { name: /Billing/ }));
      expect(await nav.getByRole('link', { name: /Admin/ }).count()).toBe(0);
      expect(await nav.getByRole('link', { name: /Master data/ }).count()).toBe(0);
      await other.goto(`${edge.url}/dashboard/admin/users`);
      await shown(other.getByRole('heading', { name: 'Not available' }));
      await text(other.locator('main')).toContain('not open to your role');
      expect(await other.getByRole('button', { name: 'New user' }).count()).toBe(0);
    } finally {
      await other.context().close();
    }
  });

  it("resets the user's password (sent with the listed version as If-Match): the new one signs in", async () => {
    await page.getByRole('button', { name: 'Reset password bea.billing' }).click();
    const dialog = page.getByRole('dialog', { name: /New password for bea\.billing/ });
    await dialog.getByLabel('New password (required)').fill('fresh-ledger-and-ink-7');
    await dialog.getByRole('button', { name: 'Reset password' }).click();
    await gone(dialog);
    await text(notice()).toContain('Set a new password for bea.billing');
    const login = await fetch(`${edge.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bea.billing', password: 'fresh-ledger-and-ink-7' }),
    });
    expect(login.status).toBe(200);
  });

  it('disables the user after confirming: the account can no longer sign in', async () => {
    await page.getByRole('button', { name: 'Disable bea.billing' }).click();
    const dialog = page.getByRole('dialog', { name: /Disable bea\.billing/ });
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await gone(dialog);
    await text(page.getByRole('row', { name: /bea\.billing/ })).toContain('Disabled');
    const login = await fetch(`${edge.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bea.billing', password: 'fresh-ledger-and-ink-7' }),
    });
    expect(login.status).toBe(401);
  });

  it('a dispatcher reads carriers (saying who changes them) and edits locations', async () => {
    const made = await apiCall('POST', '/api/user', {
      username: 'dan.dispatch',
      role: 'dispatcher',
      password: 'dispatch-desk-pass-1',
    });
    expect(made.status).toBe(201);
    const other = await openPage(browser);
    try {
      await other.goto(`${edge.url}/dashboard/master/carriers`);
      await logIn(other, 'dan.dispatch', 'dispatch-desk-pass-1');
      await text(other.locator('section.records .read-only-note')).toContain('changes are made by an admin');
      await shown(other.getByRole('button', { name: 'View Prairie Haulers' }));
      expect(await other.getByRole('button', { name: 'New carrier' }).count()).toBe(0);
      await other.getByRole('link', { name: 'Locations' }).click();
      await shown(other.getByRole('button', { name: 'New location' }));
      expect(await other.locator('section.records .read-only-note').count()).toBe(0);
      expect(await other.getByRole('navigation').first().getByRole('link', { name: /Admin/ }).count()).toBe(
        0,
      );
    } finally {
      await other.context().close();
    }
  });

  it('creates an API key and shows its secret once, which works as X-Api-Key', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'New API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API key' });
    await dialog.getByLabel('Name (required)').fill('dock scheduler');
    await dialog.getByRole('button', { name: 'Create API key' }).click();
    await gone(dialog);
    const secret = page.getByTestId('api-key-secret');
    await shown(secret);
    const key = (await secret.textContent())!;
    await text(page.locator('.panel.created')).toContain('shown only this once');
    const asKey = await fetch(`${edge.url}/api/carrier`, { headers: { 'x-api-key': key } });
    expect(asKey.status).toBe(200);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: /Done: I have stored it/ }).click();
    await gone(secret);
    // Never again: not in the list, not after a reload.
    await page.reload();
    await shown(page.getByRole('row', { name: /dock scheduler/ }));
    expect(await page.content()).not.toContain(key);

    await page.getByRole('button', { name: 'Revoke dock scheduler' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await text(page.getByRole('row', { name: /dock scheduler/ })).toContain('Revoked');
    expect((await fetch(`${edge.url}/api/carrier`, { headers: { 'x-api-key': key } })).status).toBe(401);
  });

  it('lists every setting with its description, scope, default and value, and changes one', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const row = page.getByRole('row', { name: /tasks\.driverTimeoutSec/ });
    await text(row).toContain('Seconds without a device heartbeat');
    await text(row).toContain('(default)');
    await row.getByRole('button', { name: 'Change tasks.driverTimeoutSec' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Value').fill('5');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await shown(dialog.locator('#setting-value-error'));
    await dialog.getByLabel('Value').fill('90');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await gone(dialog);
    await expect.poll(async () => (await row.textContent())?.includes('(default)')).toBe(false);
    expect((await apiCall('GET', '/api/settings/tasks.driverTimeoutSec')).body.value).toBe(90);
    await screenshot(page, 'dashboard-settings');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('disables a camera without reaching it, and the API has it', async () => {
    await page.getByRole('link', { name: 'Cameras' }).click();
    await page.getByRole('button', { name: 'Edit North gate camera' }).click();
    const dialog = page.getByRole('dialog', { name: /Edit camera North gate camera/ });
    const enabled = dialog.getByLabel('Enabled');
    expect(await enabled.isChecked()).toBe(true);
    await enabled.uncheck();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await gone(dialog);
    await text(page.getByRole('row', { name: /North gate camera/ })).toContain('No');
    const cameras = await apiCall('GET', '/api/camera');
    const camera = (cameras.body.items as { name: string; enabled: boolean }[]).find(
      (c) => c.name === 'North gate camera',
    );
    expect(camera?.enabled).toBe(false);
  });

  it('registers an ONVIF camera for a gate (not reached: the box is left unticked)', async () => {
    await page.getByRole('button', { name: 'New camera' }).click();
    const dialog = page.getByRole('dialog', { name: 'New camera' });
    await dialog.getByLabel('Name (required)').fill('South gate overview');
    await dialog.getByLabel('Gate').selectOption({ label: 'South gate (out)' });
    await dialog.getByLabel('ONVIF device address').fill('http://192.168.1.77/onvif/device_service');
    await dialog.getByLabel('ONVIF username').fill('yard');
    await dialog.getByLabel('ONVIF password').fill('camera-secret');
    await dialog.getByRole('button', { name: 'Create camera' }).click();
    await gone(dialog);
    await text(page.getByRole('row', { name: /South gate overview/ })).toContain('South gate (out)');
    const cameras = await apiCall('GET', '/api/camera');
    const camera = (
      cameras.body.items as { name: string; gateId: string; onvif: { xaddr: string; password: string } }[]
    ).find((c) => c.name === 'South gate overview');
    expect(camera?.onvif.xaddr).toBe('http://192.168.1.77/onvif/device_service');
    expect(camera?.onvif.password).toBe('********');
    const gates = await apiCall(
      'GET',
      `/api/yard/${(await apiCall('GET', '/api/yard')).body.items[0].id}/gate`,
    );
    expect(gates.body.items.find((g: { id: string }) => g.id === camera?.gateId)?.name).toBe(
      'South gate (out)',
    );
  });

  it('adds a camera provider account: a config error lands on the config field, then it is saved', async () => {
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('button', { name: 'New integration' }).click();
    const dialog = page.getByRole('dialog', { name: 'New integration' });
    await dialog.getByLabel('Kind (required)').selectOption('http-snapshot');
    await dialog.getByLabel('Name (required)').fill('Dock NVR');
    const config = dialog.getByLabel('Configuration (JSON) (required)');
    await config.fill('{"cameras": [{"id": "dock-1", "name": "Dock 1", "snapshotUrl": "not a url"}]}');
    await dialog.getByRole('button', { name: 'Create integration' }).click();
    await shown(dialog.locator('#record-integration-config-error'));
    expect(await config.getAttribute('aria-invalid')).toBe('true');
    await config.fill(
      '{"auth": {"type": "digest", "username": "yard", "password": "nvr-secret"}, "cameras": [{"id": "dock-1", "name": "Dock 1", "snapshotUrl": "http://192.168.1.50/snapshot.jpg"}]}',
    );
    await dialog.getByRole('button', { name: 'Create integration' }).click();
    await gone(dialog);
    await text(page.getByRole('row', { name: /Dock NVR/ })).toContain('http-snapshot');
    const stored = await apiCall('GET', '/api/integration');
    const made = (stored.body.items as { name: string; config: { auth: { password: string } } }[]).find(
      (i) => i.name === 'Dock NVR',
    );
    expect(made?.config.auth.password).toBe('********');
  });
});
