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
 * Who owns what, on the dashboard's master data and admin screens, against the demo as a user
 * starts it (`npm start`: the cloud with its broker and the edge dal1 linked to it): at the edge
 * the cloud's records (carriers, yards, users, global settings) are read-only and say where to
 * change them, the shared ones (drivers) stay editable; at the cloud the site's gates are.
 */
const admin = { username: 'admin', password: 'demo-admin-pass' };
let demo: DemoCloud;
let cloudUrl: string;
let edgeUrl: string;
let browser: Browser;

const text = (l: Locator) => expect.poll(() => l.textContent(), { timeout: 15_000 });
const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 15_000 });

async function signedIn(url: string): Promise<Page> {
  const page = await openPage(browser);
  await page.goto(url);
  await logIn(page, admin.username, admin.password);
  return page;
}

async function adminToken(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  return ((await res.json()) as { token: string }).token;
}

beforeAll(async () => {
  demo = await startDemoCloud();
  cloudUrl = demo.url;
  edgeUrl = demo.edgeUrl;
  browser = await launchChromium();
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

describe('at the linked edge', () => {
  it('carriers are read-only and say to change them in the cloud, as the server answers (409 cloud-owned)', async () => {
    const page = await signedIn(`${edgeUrl}/dashboard/master/carriers`);
    try {
      const section = page.locator('section.records');
      await text(section.locator('.read-only-note')).toContain('Managed in the cloud: change it there');
      const view = page.getByRole('button', { name: 'View Prairie Haulers' });
      await shown(view);
      expect(await page.getByRole('button', { name: 'New carrier' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Edit / }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Delete / }).count()).toBe(0);
      await screenshot(page, 'dashboard-master-linked-edge');
      expect(await seriousA11yViolations(page)).toEqual([]);
      await view.click();
      const dialog = page.getByRole('dialog');
      await text(dialog).toContain('Managed in the cloud');
      expect(await dialog.getByLabel('Name (required)').isDisabled()).toBe(true);
      expect(await dialog.getByRole('button', { name: 'Save changes' }).count()).toBe(0);

      // The rule is the server's; the screen only says it beforehand.
      const token = await adminToken(edgeUrl);
      const list = await fetch(`${edgeUrl}/api/carrier?q=Prairie`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const carrier = ((await list.json()) as { items: { id: string }[] }).items[0]!;
      const refused = await fetch(`${edgeUrl}/api/carrier/${carrier.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Renamed at the edge' }),
      });
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { code: string }).code).toBe('cloud-owned');
    } finally {
      await page.context().close();
    }
  });

  it('users and global settings are read-only; drivers (shared records) stay editable', async () => {
    const page = await signedIn(`${edgeUrl}/dashboard/admin/users`);
    try {
      await text(page.locator('section.records .read-only-note')).toContain('Managed in the cloud');
      expect(await page.getByRole('button', { name: 'New user' }).count()).toBe(0);

      await page.getByRole('link', { name: 'Settings' }).click();
      const global = page.getByRole('row', { name: /attachments\.maxBytes/ });
      await text(global).toContain('Managed in the cloud');
      expect(await global.getByRole('button').count()).toBe(0);
      const site = page.getByRole('row', { name: /tasks\.autoAssign/ });
      await shown(site.getByRole('button', { name: 'Change tasks.autoAssign' }));

      await page.goto(`${edgeUrl}/dashboard/master/drivers`);
      await shown(page.getByRole('button', { name: /^Edit / }).first());
      expect(await page.locator('section.records .read-only-note').count()).toBe(0);
    } finally {
      await page.context().close();
    }
  });
});

describe('at the cloud', () => {
  it("the site's gates are read-only and say they are recorded by the site; carriers are editable", async () => {
    const page = await signedIn(`${cloudUrl}/dashboard/master/gates`);
    try {
      await text(page.locator('section.records .read-only-note')).toContain('Recorded by the site');
      await shown(page.getByRole('button', { name: /^View / }).first());
      expect(await page.getByRole('button', { name: 'New gate' }).count()).toBe(0);

      await page.getByRole('link', { name: 'Carriers' }).click();
      await shown(page.getByRole('button', { name: 'New carrier' }));
      await shown(page.getByRole('button', { name: 'Edit Prairie Haulers' }));
    } finally {
      await page.context().close();
    }
  });
});
