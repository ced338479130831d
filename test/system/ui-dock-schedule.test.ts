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
 * The dashboard's dock schedule in Chromium against the demo edge (a standalone site books, six
 * dock doors, America/Chicago): the office books from the free times, moves a booking by
 * keyboard (focus, arrows, Enter) and by dragging, is told in words when the time is taken, and
 * cancels with a reason; each step checked through the API. A booking made elsewhere appears live.
 * axe finds no serious violation on the schedule and its dialogs.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
let yardId: string;
let loadTypeId: string;
let carrier: { id: string; name: string };
/** A week ahead in the yard: past the demo's own bookings (today and tomorrow), and no no-show sweep. */
let day: string;
const TZ = 'America/Chicago';

type Json = Record<string, unknown> & { items?: Record<string, unknown>[] };
async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

/** The yard-local wall clock of an instant: "10:00". */
function localClock(iso: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: TZ, hour: '2-digit', minute: '2-digit' }).format(
    Date.parse(iso),
  );
}
/** The instant of a yard-local wall-clock time on the test day. */
function localInstant(hhmm: string): string {
  // Chicago is UTC-6 (CST) or UTC-5 (CDT): take the one whose wall clock matches.
  for (const offset of ['-06:00', '-05:00']) {
    const iso = new Date(`${day}T${hhmm}:00${offset}`).toISOString();
    if (localClock(iso) === hhmm) return iso;
  }
  throw new Error(`no instant for ${hhmm}`);
}

const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 30_000 });
const gone = (l: Locator) => l.waitFor({ state: 'hidden', timeout: 30_000 });

async function appointment(id: string) {
  const got = await apiCall('GET', `/api/appointment/${id}`);
  expect(got.status).toBe(200);
  return got.body as Json & {
    startAt: string;
    doorName: string;
    status: string;
    cancelReason: string | null;
  };
}

/** The block of an appointment on screen, by its code (part of its accessible name). */
const block = (code: string) => page.getByRole('button', { name: new RegExp(`code ${code}$`) });

beforeAll(async () => {
  edge = await startDemoEdge();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  yardId = (await apiCall('GET', '/api/yard')).body.items?.[0]?.id as string;
  day = new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(Date.now() + 8 * 24 * 3600_000);
  const allDay = [{ from: '06:00', to: '20:00' }];
  const config = await apiCall('PUT', `/api/appointment/config/${yardId}`, {
    enabled: true,
    openHours: Object.fromEntries(['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, allDay])),
    slotMinutes: 15,
    leadTimeMinMinutes: 0,
  });
  expect(config.status).toBe(200);
  const type = await apiCall('POST', '/api/appointment/load-type', {
    yardId,
    // Its own load type: the demo has a "Live unload" already.
    name: 'Schedule test unload',
    durationMinutes: 60,
  });
  expect(type.status).toBe(201);
  loadTypeId = type.body.id as string;
  const carriers = (await apiCall('GET', '/api/carrier')).body.items ?? [];
  carrier = { id: carriers[0]?.id as string, name: carriers[0]?.name as string };
  browser = await launchChromium();
  // A browser in another zone than the yard's, reading 24 h times: the schedule shows the yard's clock.
  page = await openPage(browser, { locale: 'en-GB', timezoneId: 'Asia/Tokyo' });
  await page.goto(`${edge.url}/dashboard/appointments/schedule?date=${day}`);
  await logIn(page, edge.admin.username, edge.admin.password);
  await shown(page.getByRole('list', { name: 'Door 6: appointments' }));
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('dashboard: dock schedule', () => {
  let id: string;
  let code: string;

  it('the office books from the free times; the block shows the status in words', async () => {
    await page.getByRole('button', { name: 'Book an appointment' }).click();
    const dialog = page.getByRole('dialog', { name: /Book a dock appointment/ });
    await shown(dialog);
    // The demo has load types of its own: choose this test's.
    await dialog.getByLabel('Load type', { exact: true }).selectOption(loadTypeId);
    const time = dialog.getByLabel('Time', { exact: true });
    await expect.poll(() => time.isEnabled(), { timeout: 10_000 }).toBe(true);
    // Offered: the free times of the day, 06:00 to 19:00 (a 60 min load in 06:00-20:00).
    const offered = await time.locator('option').allTextContents();
    expect(offered.filter((o) => /^\d\d:\d\d to /.test(o))).toHaveLength(53);
    await time.selectOption({ label: '10:00 to 11:00 (6 doors free)' });
    await dialog.getByLabel('Door', { exact: true }).selectOption({ label: 'Door 2' });
    await dialog.getByLabel('Carrier').selectOption({ label: carrier.name });
    await dialog.getByLabel('Order or bill of lading numbers').fill('PO-1001, BOL-77');
    await dialog.getByLabel('Trailer number').fill('DOCK 4711');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'dashboard-dock-schedule-book');
    await page.keyboard.press('Enter');
    await gone(dialog);
    await shown(page.getByRole('status').filter({ hasText: /^Booked / }));

    const list = (await apiCall('GET', `/api/appointment?yardId=${yardId}&q=DOCK%204711`)).body.items ?? [];
    expect(list).toHaveLength(1);
    const booked = list[0] as Json & { startAt: string };
    expect(booked).toMatchObject({ doorName: 'Door 2', carrierId: carrier.id, refs: ['PO-1001', 'BOL-77'] });
    expect(booked.trailerNumber).toBe('DOCK 4711');
    expect(localClock(booked.startAt)).toBe('10:00');
    id = booked.id as string;
    code = booked.code as string;
    const b = block(code);
    await shown(b);
    expect(await b.getAttribute('aria-label')).toBe(
      `10:00 to 11:00, ${carrier.name}, Schedule test unload, Scheduled, code ${code}`,
    );
    await expect.poll(() => b.textContent()).toContain('Scheduled');
    expect(await page.getByRole('list', { name: 'Door 2: appointments' }).getByRole('button').count()).toBe(
      1,
    );
  }, 180_000);

  it('reschedules by keyboard: focus the block, arrows to another time and door, Enter; announced', async () => {
    const b = block(code);
    await b.focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const status = page.getByRole('status').filter({ hasText: /Move / });
    await shown(status);
    expect(await status.textContent()).toContain(
      'Door 3, 11:00 to 12:00: Enter to confirm, Escape to leave it.',
    );
    await screenshot(page, 'dashboard-dock-schedule-moving');
    // Nothing is sent before Enter.
    expect(localClock((await appointment(id)).startAt)).toBe('10:00');
    await page.keyboard.press('Enter');
    await shown(page.getByRole('status').filter({ hasText: `${code} moved to Door 3 at 11:00.` }));
    const moved = await appointment(id);
    expect(moved.doorName).toBe('Door 3');
    expect(localClock(moved.startAt)).toBe('11:00');
    // A move changes the time and door only: the refs stay.
    expect(moved.refs).toEqual(['PO-1001', 'BOL-77']);
    await shown(
      page
        .getByRole('list', { name: 'Door 3: appointments' })
        .getByRole('button', { name: /^11:00 to 12:00/ }),
    );
    // Focus stays on the block, so the next move goes on from there; Escape drops a move unsent.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Escape');
    await shown(
      page.getByRole('status').filter({ hasText: `Move cancelled: ${code} stays at Door 3, 11:00` }),
    );
    expect(localClock((await appointment(id)).startAt)).toBe('11:00');
  }, 180_000);

  it('a move onto a taken time is refused in words, with the times still free; nothing changes', async () => {
    // Door 4 at 11:00 is taken by a booking made elsewhere; it appears live.
    const other = await apiCall('POST', '/api/appointment', {
      yardId,
      loadTypeId,
      carrierId: carrier.id,
      startAt: localInstant('11:00'),
      doorId: (await doorId('Door 4')) as string,
    });
    expect(other.status).toBe(201);
    await shown(block(other.body.code as string));
    await block(code).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    const refusal = page.getByRole('alert').filter({ hasText: `${code} was not moved.` });
    await shown(refusal);
    const text = (await refusal.textContent()) ?? '';
    expect(text).toContain('That time is no longer free');
    expect(text).toMatch(/Still free that day: 06:00, 06:15/);
    expect(text).not.toMatch(/slot-taken|409|door[A-Z]|[0-9a-f]{8}-/);
    await screenshot(page, 'dashboard-dock-schedule-refused');
    const still = await appointment(id);
    expect(still.doorName).toBe('Door 3');
    expect(localClock(still.startAt)).toBe('11:00');
  }, 180_000);

  it('reschedules by dragging the block to another door and time', async () => {
    const b = block(code);
    const from = await b.boundingBox();
    const door5 = await page.getByRole('list', { name: 'Door 5: appointments' }).boundingBox();
    if (!from || !door5) throw new Error('no box');
    await page.mouse.move(from.x + 10, from.y + 5);
    await page.mouse.down();
    // Two slot rows down (30 min), into Door 5's column.
    const rowPx = from.height / 4;
    await page.mouse.move(door5.x + 20, from.y + 5 + rowPx, { steps: 4 });
    await page.mouse.move(door5.x + 20, from.y + 5 + 2 * rowPx, { steps: 4 });
    await page.mouse.up();
    await shown(page.getByRole('status').filter({ hasText: `${code} moved to Door 5 at 11:30.` }));
    const moved = await appointment(id);
    expect(moved.doorName).toBe('Door 5');
    expect(localClock(moved.startAt)).toBe('11:30');
    await screenshot(page, 'dashboard-dock-schedule');
    expect(await seriousA11yViolations(page)).toEqual([]);
  }, 180_000);

  it('cancels with a reason: the block leaves the day, the reason is recorded', async () => {
    await block(code).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', {
      name: new RegExp(`${escapeRegExp(carrier.name)} at Door 5, 11:30`),
    });
    await shown(dialog);
    await dialog.getByRole('button', { name: 'Cancel appointment…' }).click();
    await dialog.getByRole('button', { name: 'Cancel the appointment' }).click();
    await shown(dialog.getByText('Say why the appointment is cancelled'));
    await dialog.getByLabel('Reason for cancelling').fill('Carrier called: the load is not ready');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'dashboard-dock-schedule-cancel');
    await page.keyboard.press('Enter');
    await gone(dialog);
    await gone(block(code));
    const cancelled = await appointment(id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.cancelReason).toBe('Carrier called: the load is not ready');
    await shown(page.getByText(new RegExp(`Cancelled: ${code}`)));
  }, 180_000);
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function doorId(name: string): Promise<string | undefined> {
  const doors = (await apiCall('GET', `/api/yard/${yardId}/location?kind=door`)).body.items ?? [];
  return doors.find((d) => d.name === name)?.id as string | undefined;
}
