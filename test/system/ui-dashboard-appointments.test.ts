import { readFile } from 'node:fs/promises';
import { DateTime } from 'luxon';
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
import { settled, sidewaysOverflow } from './reflow-check.js';

/**
 * The dashboard's appointments area in Chromium against the demo edge (standalone: it owns the
 * scheduling config, load types and bookings). A dispatcher sets up the yard's scheduling config
 * (hours with a lunch break and one open until midnight, a closed date, the numbers, meeting the
 * server's refusal on a field first), adds, edits and deletes load types, raises a door's capacity,
 * then reads the detention report of an appointment that was checked in and out through the gate
 * (its times, wait, turn and detention, the gate movements with their pictures) and downloads its
 * CSV, and reads the on-time figures. Each step is checked against the API. The browser runs in
 * Tokyo's zone: what it shows is in the yard's (America/Chicago). At 320 x 640 every screen of the
 * area reflows (screenshots dashboard-appointments-320-*.png).
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

const CHICAGO = 'America/Chicago';

/** A yard-local day as the API's window (from its midnight to the next), worked out apart from the UI's code. */
/** The detention test's appointment starts here: five hours ago, on a half-hour. */
const PAST_START = Math.floor((Date.now() - 5 * 3_600_000) / (30 * 60_000)) * (30 * 60_000);

function yardDay(date: string): string {
  const from = DateTime.fromISO(date, { zone: CHICAGO }).startOf('day');
  return `from=${encodeURIComponent(from.toUTC().toISO() as string)}&to=${encodeURIComponent(from.plus({ days: 1 }).toUTC().toISO() as string)}`;
}

/** Minutes as the office reads them: "10 min", "3 h 50 min", "–" for none. */
function minutes(m: unknown): string {
  if (typeof m !== 'number') return '–';
  const r = Math.round(m);
  return r < 60 ? `${r} min` : `${Math.floor(r / 60)} h ${String(r % 60).padStart(2, '0')} min`;
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
    await shown(
      page.getByRole('navigation', { name: 'Appointments' }).getByRole('link', { name: 'Scheduling config' }),
    );
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
      openHours: {
        '1': weekday,
        '2': weekday,
        '3': weekday,
        '4': weekday,
        '5': weekday,
        '6': [{ from: '08:00', to: '12:00' }],
      },
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
    await page
      .getByRole('navigation', { name: 'Appointments' })
      .getByRole('link', { name: 'Load types' })
      .click();
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
    await text(
      page
        .getByRole('row', { name: /^Drop and hook/ })
        .getByRole('cell')
        .nth(2),
    ).toBe('Every door');
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
    await page
      .getByRole('navigation', { name: 'Appointments' })
      .getByRole('link', { name: 'Door capacity' })
      .click();
    await page.getByRole('button', { name: 'Edit Door 3' }).click();
    const dialog = page.getByRole('dialog', { name: /Edit door Door 3/ });
    await dialog.getByLabel('Capacity (required)').fill('2');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await gone(dialog);
    await text(
      page
        .getByRole('row', { name: /^Door 3/ })
        .getByRole('cell')
        .nth(0),
    ).toBe('2');
    expect((await doors()).find((d) => d.name === 'Door 3')?.capacity).toBe(2);
    // Only doors are listed here: no spots.
    expect(await page.getByRole('row', { name: /^S01/ }).count()).toBe(0);
    await screenshot(page, 'dashboard-appointments-doors');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('detention report: an appointment checked in and out through the gate, its figures, movements with pictures, and the CSV', async () => {
    // An appointment five hours ago (booked by the office with a reason: it is in the past), checked
    // in ten minutes after its start straight to its door, and out four hours after its start.
    const start = PAST_START;
    const iso = (ms: number) => new Date(ms).toISOString();
    const carrier = (await apiCall('GET', '/api/carrier?limit=100')).body.items[0] as {
      id: string;
      name: string;
    };
    const loadType = (await loadTypes()).find((t) => t.name === 'Reefer live unload');
    const door5 = (await doors()).find((d) => d.name === 'Door 5');
    const booked = await apiCall('POST', '/api/appointment', {
      yardId,
      loadTypeId: loadType?.id,
      startAt: iso(start),
      doorId: door5?.id,
      carrierId: carrier.id,
      refs: ['PO-77123'],
      trailerNumber: 'DTNU 500100',
      truckPlate: 'DT 5001',
      override: { reason: 'entered after the fact for the detention claim' },
    });
    expect(booked.status, booked.text).toBe(201);
    const appt = booked.body as { id: string; code: string };
    const gates = (await apiCall('GET', `/api/yard/${yardId}/gate`)).body.items as {
      id: string;
      name: string;
    }[];
    const north = gates.find((g) => g.name === 'North gate (in)');
    const south = gates.find((g) => g.name === 'South gate (out)');
    const checkIn = await apiCall('POST', '/api/movement', {
      yardId,
      gateId: north?.id,
      direction: 'in',
      at: iso(start + 10 * 60_000),
      trailer: { number: 'DTNU 500100', carrierId: carrier.id },
      truck: { plate: 'DT 5001' },
      locationId: door5?.id,
      appointmentId: appt.id,
      snapshot: true,
    });
    expect(checkIn.status, checkIn.text).toBe(201);
    const checkOut = await apiCall('POST', '/api/movement', {
      yardId,
      gateId: south?.id,
      direction: 'out',
      at: iso(start + 4 * 3_600_000),
      trailer: { number: 'DTNU 500100' },
      truck: { plate: 'DT 5001' },
    });
    expect(checkOut.status, checkOut.text).toBe(201);

    const today = DateTime.fromMillis(start, { zone: CHICAGO }).toISODate() as string;
    await page
      .getByRole('navigation', { name: 'Appointments' })
      .getByRole('link', { name: 'Detention report' })
      .click();
    await shown(page.getByRole('heading', { name: 'Detention report' }));
    // The API's own figures for the same day (the yard's midnight to midnight).
    const report = (
      await apiCall(
        'GET',
        `/api/appointment/detention?yardId=${yardId}&carrierId=${carrier.id}&${yardDay(today)}`,
      )
    ).body;
    const item = (report.items as Array<Record<string, unknown>>).find((i) => i.id === appt.id);
    // Hand-worked (docs/domain.md "Wait and detention"): on time, so the clock starts at the booked
    // start; wait 10 min to the door, turn 4 h - 10 min, detention 4 h - 120 min free time.
    expect(item).toMatchObject({
      arrival: 'on_time',
      waitMinutes: 10,
      turnMinutes: 230,
      detentionMinutes: 120,
    });
    const filters = page.getByRole('form', { name: 'Period and carrier' });
    await filters.getByLabel('From').fill(today);
    await filters.getByLabel('To (included)').fill(today);
    await filters.getByRole('button', { name: 'Show' }).click();
    await filters.getByLabel('Carrier').selectOption({ value: carrier.id });
    await expect
      .poll(() => new URL(page.url()).search)
      .toBe(`?from=${today}&to=${today}&carrier=${carrier.id}`);
    const row = page.locator('tbody.detention-row', { hasText: appt.code });
    await shown(row);
    const cells = row.getByRole('row').first().getByRole('cell');
    // Times in the yard's zone (Chicago), though the browser is in Tokyo.
    const clock = (ms: number) =>
      new Intl.DateTimeFormat('en-US', { timeZone: CHICAGO, hour: '2-digit', minute: '2-digit' }).format(ms);
    await text(cells.nth(1)).toContain(clock(start + 10 * 60_000));
    await text(cells.nth(1)).toContain('on time');
    await text(cells.nth(2)).toContain(clock(start + 10 * 60_000));
    await text(cells.nth(3)).toContain(clock(start + 4 * 3_600_000));
    await text(cells.nth(4)).toBe('10 min');
    await text(cells.nth(5)).toBe('3 h 50 min');
    await text(cells.nth(6)).toBe('2 h 00 min');
    // The gate movements with the check-in's camera picture, loaded when opened.
    await row.getByText(`Gate movements of ${appt.code}`).click();
    const picture = row.getByRole('img', { name: /^Check-in .*picture 1$/ });
    await shown(picture);
    await expect
      .poll(() => picture.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    await shown(row.getByText(/^Check-out /));
    await screenshot(page, 'dashboard-appointments-detention');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The CSV: the same appointment with the same figures, under the server's file name.
    const csv = await downloaded(() => page.getByRole('button', { name: 'Download CSV' }).click());
    expect(csv.name).toMatch(/\.csv$/);
    const lines = csv.bytes.toString('utf8').trim().split(/\r?\n/);
    const line = lines.find((l) => l.includes(appt.code));
    expect(line, lines.join('\n')).toBeDefined();
    expect(line).toContain('PO-77123');
    await shown(page.getByText(`Saved ${csv.name}.`));
  });

  it('on-time figures per carrier and per door, as the API counts them for the same days', async () => {
    await page
      .getByRole('navigation', { name: 'Appointments' })
      .getByRole('link', { name: 'On-time figures' })
      .click();
    await shown(page.getByRole('heading', { name: 'On-time figures' }));
    // The day of the detention test's appointment (on time at Door 5): yesterday in the yard's zone
    // when the run is in its first five hours.
    const today = DateTime.fromMillis(PAST_START, { zone: CHICAGO }).toISODate() as string;
    await page.getByLabel('From').fill(today);
    await page.getByLabel('To (included)').fill(today);
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe(`?from=${today}&to=${today}`);
    const perDoor = page.getByRole('table', { name: 'Per door' });
    await shown(perDoor);
    const summary = (await apiCall('GET', `/api/appointment/summary?yardId=${yardId}&${yardDay(today)}`))
      .body as {
      byDoor: Array<Record<string, number | string | null>>;
      byCarrier: Array<Record<string, number | string | null>>;
    };
    const door5 = summary.byDoor.find((d) => d.doorName === 'Door 5');
    expect(door5?.onTime).toBeGreaterThanOrEqual(1);
    const cells = perDoor.getByRole('row', { name: /^Door 5/ }).getByRole('cell');
    await text(cells.nth(0)).toBe(String(door5?.appointments));
    await text(cells.nth(1)).toMatch(
      new RegExp(`^${Math.round(Number(door5?.onTimePercent))}\\s?% \\(${door5?.onTime}\\)$`),
    );
    await text(cells.nth(4)).toBe(String(door5?.noShows));
    await text(cells.nth(5)).toBe(`${minutes(door5?.waitP50Minutes)} / ${minutes(door5?.waitP90Minutes)}`);
    await text(cells.nth(6)).toBe(`${minutes(door5?.turnP50Minutes)} / ${minutes(door5?.turnP90Minutes)}`);
    // Every carrier of the day has its row, and an All row sums them up.
    const perCarrier = page.getByRole('table', { name: 'Per carrier' });
    for (const c of summary.byCarrier) {
      await text(
        perCarrier
          .getByRole('row', { name: new RegExp(`^${c.carrierName}`) })
          .getByRole('cell')
          .nth(0),
      ).toBe(String(c.appointments));
    }
    await shown(perCarrier.getByRole('row', { name: /^All/ }));
    await screenshot(page, 'dashboard-appointments-figures');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('every appointments screen reflows at 320 x 640: nothing scrolls sideways (WCAG 1.4.10)', async () => {
    const narrow = await openPage(browser, {
      locale: 'en-US',
      timezoneId: 'Asia/Tokyo',
      viewport: { width: 320, height: 640 },
    });
    await narrow.goto(`${edge.url}/dashboard/appointments/config`);
    await logIn(narrow, dispatcher.username, dispatcher.password);
    await narrow.getByRole('navigation', { name: 'Appointments' }).waitFor();
    const failures: Record<string, string[]> = {};
    const check = async (name: string) => {
      await settled(narrow);
      await screenshot(narrow, `dashboard-appointments-320-${name}`);
      const found = await sidewaysOverflow(narrow);
      if (found.length > 0) failures[name] = found;
    };
    // The screens with what the steps above left in them: hours, a closed date, load types, a
    // door of capacity 2, the detention report and figures of today's appointment.
    for (const slug of ['config', 'load-types', 'doors', 'detention', 'figures']) {
      await narrow.goto(`${edge.url}/dashboard/appointments/${slug}`);
      await narrow.getByRole('navigation', { name: 'Appointments' }).waitFor();
      await check(slug);
    }
    // The load type form, open.
    await narrow.goto(`${edge.url}/dashboard/appointments/load-types`);
    await narrow.getByRole('button', { name: 'New load type' }).click();
    await shown(narrow.getByRole('form', { name: 'New load type' }));
    await check('load-type-form');
    await narrow.context().close();
    expect(failures).toEqual({});
  });

  it('a billing clerk reads the config and load types but cannot change them', async () => {
    const clerk = { username: 'dock.billing', password: 'correct-horse-battery' };
    const made = await apiCall('POST', '/api/user', {
      ...clerk,
      role: 'billing',
      displayName: 'Billing clerk',
    });
    expect(made.status, made.text).toBe(201);
    const other = await openPage(browser, { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    await other.goto(`${edge.url}/dashboard/appointments/config`);
    await logIn(other, clerk.username, clerk.password);
    const form = other.getByRole('form', { name: 'Scheduling config' });
    await shown(form.getByText('Your role may read this; admins and dispatchers change it.'));
    expect(await form.getByLabel('Slot length (minutes)').inputValue()).toBe('30');
    expect(await form.getByLabel('Slot length (minutes)').isDisabled()).toBe(true);
    expect(await form.getByRole('button', { name: 'Save scheduling config' }).count()).toBe(0);
    await other
      .getByRole('navigation', { name: 'Appointments' })
      .getByRole('link', { name: 'Load types' })
      .click();
    await shown(other.getByRole('row', { name: /^Reefer live unload/ }));
    expect(await other.getByRole('button', { name: 'New load type' }).count()).toBe(0);
    expect(await other.getByRole('button', { name: /^Edit load type/ }).count()).toBe(0);
    await other.context().close();
  });
});
