import { readFile } from 'node:fs/promises';
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

/**
 * The dashboard's appointments area in Chromium against the demo edge (standalone: it owns the
 * scheduling config, load types and bookings). A dispatcher sets up the yard's scheduling config
 * (hours with a lunch break and one open until midnight, a closed date, the numbers, meeting the
 * server's refusal on a field first), adds, edits and deletes load types, raises a door's capacity,
 * then reads the detention report of an appointment that was checked in and out through the gate
 * (its times, wait, turn and detention, the gate movements with their pictures) and downloads its
 * CSV, and reads the on-time figures. Each step is checked against the API. The browser runs in
 * Tokyo's zone: what it shows is in the yard's (America/Chicago).
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
let yardId: string;
const dispatcher = { username: 'dock.planner', password: 'correct-horse-battery' };

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
  return {
    status: res.status,
    text,
    etag: res.headers.get('etag'),
    body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : undefined,
  };
}

const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 10_000 });
const gone = (l: Locator) => l.waitFor({ state: 'hidden', timeout: 10_000 });
const text = (l: Locator) => expect.poll(() => l.textContent(), { timeout: 10_000 });

async function downloaded(click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const pending = page.waitForEvent('download', { timeout: 15_000 });
  await click();
  const download: Download = await pending;
  return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
}

const config = () => apiCall('GET', `/api/appointment/config/${yardId}`).then((r) => r.body);
const loadTypes = async () =>
  (await apiCall('GET', `/api/appointment/load-type?yardId=${yardId}`)).body.items as Array<{
    id: string;
    name: string;
    direction: string;
    durationMinutes: number;
    doorIds: string[];
    carrierVisible: boolean;
  }>;
const doors = async () =>
  (await apiCall('GET', `/api/yard/${yardId}/location?kind=door`)).body.items as Array<{
    id: string;
    name: string;
    capacity: number;
  }>;

beforeAll(async () => {
  edge = await startDemoEdge();
  browser = await launchChromium();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  const created = await apiCall('POST', '/api/user', {
    ...dispatcher,
    role: 'dispatcher',
    displayName: 'Dock planner',
  });
  expect(created.status, created.text).toBe(201);
  yardId = (await apiCall('GET', '/api/yard')).body.items[0].id;
  // A known start: bookings off, no hours (the demo data may have set up the yard already).
  const before = await apiCall('GET', `/api/appointment/config/${yardId}`);
  const reset = await apiCall(
    'PUT',
    `/api/appointment/config/${yardId}`,
    { enabled: false, openHours: {}, closedDates: [] },
    { 'If-Match': before.etag ?? '"v0"' },
  );
  expect(reset.status, reset.text).toBeLessThan(300);
  page = await openPage(browser, { locale: 'en-US', timezoneId: 'Asia/Tokyo', acceptDownloads: true });
  await page.goto(`${edge.url}/dashboard/appointments/config`);
  await logIn(page, dispatcher.username, dispatcher.password);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('the appointments area, as a dispatcher', () => {
  it('scheduling config: hours with a break and until midnight, a closed date, the numbers; a refusal lands on its field', async () => {
    const form = page.getByRole('form', { name: 'Scheduling config' });
    await shown(form);
    // The navigation names the area and the sub-page.
    await shown(page.getByRole('navigation', { name: 'Appointments' }).getByRole('link', { name: 'Scheduling config' }));
    await form.getByLabel('Take bookings in this yard').check();

    const monday = form.getByRole('group', { name: 'Monday' });
    await monday.getByRole('button', { name: 'Add opening hours on Monday' }).click();
    await monday.getByLabel('Opens').nth(0).fill('06:00');
    await monday.getByLabel('Closes').nth(0).fill('12:00');
    await monday.getByRole('button', { name: 'Add opening hours on Monday' }).click();
    await monday.getByLabel('Opens').nth(1).fill('13:00');
    // Closes at 00:00: open until midnight (24:00 to the API).
    await monday.getByLabel('Closes').nth(1).fill('00:00');
    await form.getByRole('button', { name: 'Copy Monday to Tuesday–Friday' }).click();
    const saturday = form.getByRole('group', { name: 'Saturday' });
    await saturday.getByRole('button', { name: 'Add opening hours on Saturday' }).click();
    await saturday.getByLabel('Opens').fill('08:00');
    await saturday.getByLabel('Closes').fill('07:00');

    const year = new Date().getUTCFullYear() + 1;
    await form.getByLabel('Add a closed date').fill(`${year}-12-25`);
    await form.getByRole('button', { name: 'Add date' }).click();
    await shown(form.getByRole('list', { name: 'Closed dates' }).getByText(`Dec 25, ${year}`));

    await form.getByLabel('Slot length (minutes)').fill('30');
    await form.getByLabel('Late after (minutes)').fill('30');
    await form.getByLabel('No-show after (minutes)').fill('20');

    // Saturday closes before it opens: refused here, nothing sent.
    await form.getByRole('button', { name: 'Save scheduling config' }).click();
    await text(form.locator('#hours-6-0-to-error')).toContain('Closes before it opens');
    expect((await config()).enabled).toBe(false);
    await saturday.getByLabel('Closes').fill('12:00');

    // No-show before the late time: the server refuses it, on that field, and nothing changes.
    await form.getByRole('button', { name: 'Save scheduling config' }).click();
    await shown(form.locator('#config-noShowAfterMinutes-error'));
    await shown(form.getByText('Nothing was saved: check the marked fields.'));
    expect((await config()).enabled).toBe(false);

    await form.getByLabel('No-show after (minutes)').fill('45');
    await form.getByRole('button', { name: 'Save scheduling config' }).click();
    await shown(form.getByText('The scheduling config of Dallas Cross-Dock is saved.'));
    const weekday = [
      { from: '06:00', to: '12:00' },
      { from: '13:00', to: '24:00' },
    ];
    expect(await config()).toMatchObject({
      enabled: true,
      openHours: { '1': weekday, '2': weekday, '3': weekday, '4': weekday, '5': weekday, '6': [{ from: '08:00', to: '12:00' }] },
      closedDates: [`${year}-12-25`],
      slotMinutes: 30,
      lateGraceMinutes: 30,
      noShowAfterMinutes: 45,
    });
    expect((await config()).openHours['7']).toBeUndefined();
    await screenshot(page, 'dashboard-appointments-config');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('load types: create with allowed doors and office only, edit, delete after a confirmation', async () => {
    await page.getByRole('navigation', { name: 'Appointments' }).getByRole('link', { name: 'Load types' }).click();
    await shown(page.getByRole('heading', { name: 'Load types', level: 2 }));
    await page.getByRole('button', { name: 'New load type' }).click();
    const form = page.getByRole('form', { name: 'New load type' });
    await form.getByLabel('Name').fill('Reefer live unload');
    await form.getByLabel('Direction').selectOption({ label: 'Inbound (unload)' });
    await form.getByLabel('Door time (minutes)').fill('45');
    await form.getByLabel('Door 6').check();
    await form.getByLabel('Door 5').check();
    await form.getByLabel('Carriers may book it').uncheck();
    await screenshot(page, 'dashboard-appointments-load-type-form');
    await form.getByRole('button', { name: 'Save load type' }).click();
    await shown(page.getByText('Load type Reefer live unload is saved.'));
    const row = page.getByRole('row', { name: /^Reefer live unload/ });
    await text(row).toBe('Reefer live unloadInbound (unload)45 minDoor 5, Door 6No, office onlyEditDelete');
    const byName = new Map((await doors()).map((d) => [d.name, d.id]));
    const saved = (await loadTypes()).find((t) => t.name === 'Reefer live unload');
    expect(saved).toMatchObject({
      direction: 'inbound',
      durationMinutes: 45,
      carrierVisible: false,
    });
    expect([...(saved?.doorIds ?? [])].sort()).toEqual([byName.get('Door 5'), byName.get('Door 6')].sort());

    // A door time the server refuses (over a day) lands on its field; nothing changes.
    await page.getByRole('button', { name: 'Edit load type Reefer live unload' }).click();
    const edit = page.getByRole('form', { name: 'Edit load type Reefer live unload' });
    await edit.getByLabel('Door time (minutes)').fill('2000');
    await edit.getByRole('button', { name: 'Save load type' }).click();
    await shown(edit.locator('#lt-duration-error'));
    expect((await loadTypes()).find((t) => t.name === 'Reefer live unload')?.durationMinutes).toBe(45);
    await edit.getByLabel('Door time (minutes)').fill('90');
    await edit.getByLabel('Door 6').uncheck();
    await edit.getByRole('button', { name: 'Save load type' }).click();
    await text(row).toBe('Reefer live unloadInbound (unload)90 minDoor 5No, office onlyEditDelete');
    expect((await loadTypes()).find((t) => t.name === 'Reefer live unload')).toMatchObject({
      durationMinutes: 90,
      doorIds: [byName.get('Door 5')],
    });

    // Another one, every door, then deleted.
    await page.getByRole('button', { name: 'New load type' }).click();
    const other = page.getByRole('form', { name: 'New load type' });
    await other.getByLabel('Name').fill('Drop and hook');
    await other.getByLabel('Door time (minutes)').fill('15');
    await other.getByRole('button', { name: 'Save load type' }).click();
    await text(page.getByRole('row', { name: /^Drop and hook/ }).getByRole('cell').nth(2)).toBe('Every door');
    await page.getByRole('button', { name: 'Delete load type Drop and hook' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete load type Drop and hook?' });
    await confirm.getByRole('button', { name: 'Delete load type' }).click();
    await gone(confirm);
    await shown(page.getByText('Load type Drop and hook is deleted.'));
    expect((await loadTypes()).some((t) => t.name === 'Drop and hook')).toBe(false);
    await screenshot(page, 'dashboard-appointments-load-types');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('door capacity: a door takes two appointments at once', async () => {
    await page.getByRole('navigation', { name: 'Appointments' }).getByRole('link', { name: 'Door capacity' }).click();
    await page.getByRole('button', { name: 'Edit Door 3' }).click();
    const dialog = page.getByRole('dialog', { name: /Edit door Door 3/ });
    await dialog.getByLabel('Capacity (required)').fill('2');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await gone(dialog);
    await text(page.getByRole('row', { name: /^Door 3/ }).getByRole('cell').nth(0)).toBe('2');
    expect((await doors()).find((d) => d.name === 'Door 3')?.capacity).toBe(2);
    // Only doors are listed here: no spots.
    expect(await page.getByRole('row', { name: /^S01/ }).count()).toBe(0);
    await screenshot(page, 'dashboard-appointments-doors');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});
