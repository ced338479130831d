import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoEdge,
  launchChromium,
  openPage,
  screenshot,
  seriousA11yViolations,
  startDemoEdge,
} from '../helpers/browser.js';

/**
 * The yard driver's phone app, in Debian's Chromium with a phone's viewport and touch, against the
 * demo edge as a user starts it: log in with code and PIN (a wrong PIN said in words), start the
 * shift, an assignment by the office appears without a reload, Start and Complete by tapping (the
 * task's row and events in the edge's database), the office's cancellation said on the screen,
 * cancel with a quick reason, location fixes stored, end the shift.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;

const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  geolocation: { latitude: 32.7767, longitude: -96.797, accuracy: 8 },
  permissions: ['geolocation'],
};

async function apiCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

function db() {
  return new Database(edge.dbFile, { readonly: true, fileMustExist: true });
}

function row<T>(sql: string, ...args: unknown[]): T {
  const d = db();
  try {
    return d.prepare(sql).get(...args) as T;
  } finally {
    d.close();
  }
}

function rows<T>(sql: string, ...args: unknown[]): T[] {
  const d = db();
  try {
    return d.prepare(sql).all(...args) as T[];
  } finally {
    d.close();
  }
}

beforeAll(async () => {
  edge = await startDemoEdge();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  browser = await launchChromium();
  page = await openPage(browser, PHONE);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('driver app on a phone', () => {
  let driverId: string;
  let yardId: string;
  let taskId: string;

  it('logs in with driver code and PIN; a wrong PIN is said in words', async () => {
    await page.goto(`${edge.url}/driver/`);
    await page.getByRole('heading', { name: 'Yard driver: log in' }).waitFor();
    const pin = page.getByLabel('PIN');
    expect(await pin.getAttribute('inputmode')).toBe('numeric');
    await screenshot(page, 'ui-driver-login');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await page.getByLabel('Driver code').fill('j101');
    await pin.fill('9999');
    await page.getByRole('button', { name: 'Log in' }).tap();
    await page.getByText('Wrong driver code or PIN').waitFor();
    expect(await pin.inputValue()).toBe('');

    await pin.fill('1111');
    await page.getByRole('button', { name: 'Log in' }).tap();
    await page.getByRole('heading', { name: 'You are off shift' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Off shift' }).waitFor();
    driverId = await page.evaluate("JSON.parse(localStorage.getItem('yard.session')).principal.driverId");
    expect(driverId).toBeTruthy();
  });

  it('starts the shift; the office cancels a task on the list and the phone says so', async () => {
    await page.getByRole('button', { name: 'Start shift' }).tap();
    await page.getByRole('status').filter({ hasText: 'On shift' }).waitFor();
    const session = row<{ yard_id: string; device_id: string; ended_at: number | null }>(
      'SELECT yard_id, device_id, ended_at FROM driver_session WHERE driver_id = ?',
      driverId,
    );
    expect(session.ended_at).toBeNull();
    expect(session.device_id).toMatch(/^phone-/);
    yardId = session.yard_id;
    await page.getByRole('heading', { name: /^Next \(/ }).waitFor();

    // The demo hands its queued jobs out to a driver who starts a shift, one at a time: the office
    // takes them all back by cancelling (the queued ones first, or they would be handed out next),
    // and each cancellation of one of the driver's tasks reaches the phone live with its reason.
    const open = await apiCall(
      'GET',
      `/api/yard-task?yardId=${yardId}&status=QUEUED,ASSIGNED,IN_PROGRESS&limit=500`,
    );
    expect(open.status).toBe(200);
    const items = open.body.items as { id: string; status: string; driverId: string | null }[];
    const queuedFirst = [...items].sort(
      (a, b) => Number(a.status !== 'QUEUED') - Number(b.status !== 'QUEUED'),
    );
    for (const t of queuedFirst) {
      const cancelled = await apiCall('PATCH', `/api/yard-task/${t.id}`, {
        status: 'CANCELLED',
        cancelReason: 'done by the day shift',
      });
      expect(cancelled.status).toBe(200);
    }
    if (items.some((t) => t.driverId === driverId))
      await page
        .getByText(/was cancelled: done by the day shift/)
        .first()
        .waitFor();
    await page.getByText('No task for you right now.').waitFor();
  });

  it('an assignment by the office appears without a reload; Start and Complete are stored', async () => {
    const locations = (await apiCall('GET', `/api/yard/${yardId}/location?limit=500`)).body.items as {
      id: string;
      name: string;
      kind: string;
    }[];
    const door = locations.find((l) => l.kind === 'door') ?? locations[0];
    const spot = locations.find((l) => l.kind === 'spot') ?? locations[1];
    const trailer = (await apiCall('GET', `/api/trailer?yardId=${yardId}`)).body.items[0];
    const carrier = (await apiCall('GET', `/api/carrier/${trailer.carrierId}`)).body;
    const created = await apiCall('POST', '/api/yard-task', {
      yardId,
      type: 'pull_to_door',
      trailerId: trailer.id,
      fromLocationId: spot?.id,
      toLocationId: door?.id,
      priority: 3,
      notes: 'Live unload, driver test',
      dueAt: new Date(Date.now() + 3_600_000).toISOString(),
      driverId,
    });
    expect(created.status).toBe(201);
    taskId = created.body.id;

    const card = page.locator('article.task-card');
    await card.getByText('Live unload, driver test').waitFor();
    await card.getByText(`${spot?.name} → ${door?.name}`).waitFor();
    await card.getByText('Urgent').waitFor();
    // The trailer the driver has to find: its number and carrier (from the driver's task list).
    await card.getByText(trailer.number).waitFor();
    await card.getByText(carrier.name).waitFor();
    const start = page.getByRole('button', { name: 'Start', exact: true });
    const box = await start.boundingBox();
    expect(box?.height).toBeGreaterThanOrEqual(56);
    await screenshot(page, 'ui-driver-task-card');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await start.tap();
    const complete = page.getByRole('button', { name: 'Complete', exact: true });
    await complete.waitFor();
    expect(row<{ status: string }>('SELECT status FROM yard_task WHERE id = ?', taskId).status).toBe(
      'IN_PROGRESS',
    );
    await complete.tap();
    await page.getByText('No task for you right now.').waitFor();
    const done = row<{ status: string; completed_at: number | null }>(
      'SELECT status, completed_at FROM yard_task WHERE id = ?',
      taskId,
    );
    expect(done.status).toBe('COMPLETED');
    expect(done.completed_at).not.toBeNull();
    const events = rows<{ to_status: string; actor_kind: string }>(
      'SELECT to_status, actor_kind FROM task_event WHERE task_id = ? ORDER BY at, created_at',
      taskId,
    );
    // Created and assigned at once by the office (QUEUED then ASSIGNED), then the driver's two taps.
    expect(events.map((e) => e.to_status)).toEqual(['QUEUED', 'ASSIGNED', 'IN_PROGRESS', 'COMPLETED']);
    expect(events.slice(2).map((e) => e.actor_kind)).toEqual(['driver', 'driver']);
  });

  it('shows the queue, opens a task by its link, cancels it with a quick reason', async () => {
    const make = async (notes: string, priority: number) => {
      const res = await apiCall('POST', '/api/yard-task', {
        yardId,
        type: 'inspect',
        priority,
        notes,
        driverId,
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const first = await make('First in line', 2);
    const second = await make('Second in line', 1);
    await page.locator('article.task-card').getByText('First in line').waitFor();
    const queued = page.getByRole('link', { name: /Inspect/ });
    await queued.waitFor();
    await screenshot(page, 'ui-driver-queue');

    await queued.tap();
    expect(new URL(page.url()).pathname).toBe(`/driver/task/${second}`);
    await page.locator('article.task-card').getByText('Second in line').waitFor();
    await page.getByRole('button', { name: 'Cancel task…' }).tap();
    const dialog = page.getByRole('dialog', { name: 'Cancel this task?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel task' }).tap();
    await dialog.getByText('Choose a reason.').waitFor();
    await dialog.getByLabel('Spot blocked').tap();
    await screenshot(page, 'ui-driver-cancel-dialog');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel task' }).tap();
    await dialog.waitFor({ state: 'hidden' });
    // Back on the shift: the next task is the current one again.
    await expect.poll(() => new URL(page.url()).pathname).toBe('/driver/');
    await page.locator('article.task-card').getByText('First in line').waitFor();
    const cancelled = row<{ status: string; cancel_reason: string }>(
      'SELECT status, cancel_reason FROM yard_task WHERE id = ?',
      second,
    );
    expect(cancelled).toEqual({ status: 'CANCELLED', cancel_reason: 'Spot blocked' });
    const event = row<{ reason: string; actor_kind: string }>(
      "SELECT reason, actor_kind FROM task_event WHERE task_id = ? AND to_status = 'CANCELLED'",
      second,
    );
    expect(event).toEqual({ reason: 'Spot blocked', actor_kind: 'driver' });

    // A deep link (what a notification opens) shows that task after a fresh load.
    await page.goto(`${edge.url}/driver/task/${first}`);
    await page.locator('article.task-card').getByText('First in line').waitFor();
    await page.getByRole('link', { name: '← All my tasks' }).waitFor();
  });

  it('says when location is refused and when the phone is offline; what was assigned meanwhile shows', async () => {
    // Another driver's phone, location not allowed for the site.
    const other = await openPage(browser, { ...PHONE, permissions: [] });
    try {
      await other.goto(`${edge.url}/driver/`);
      await other.getByLabel('Driver code').fill('J102');
      await other.getByLabel('PIN').fill('2222');
      await other.getByRole('button', { name: 'Log in' }).tap();
      await other.getByRole('heading', { name: 'You are off shift' }).waitFor();
      await screenshot(other, 'ui-driver-off-shift');
      // A second yard: the driver says where the shift is.
      const second = await apiCall('POST', '/api/yard', {
        code: 'FTW1',
        name: 'Fort Worth',
        timeZone: 'America/Chicago',
      });
      expect(second.status).toBe(201);
      await other.reload();
      const yardPick = other.getByLabel('Yard');
      await yardPick.waitFor();
      await other.getByRole('button', { name: 'Start shift' }).tap();
      await other.getByText('Choose the yard you work in today.').waitFor();
      await yardPick.selectOption(yardId);
      await other.getByRole('button', { name: 'Start shift' }).tap();
      await other.getByText('Location is off for this app').waitFor();
      await other.getByText('On shift in Dallas').waitFor();
      await other.getByRole('status').filter({ hasText: 'On shift' }).waitFor();
      await other.context().setOffline(true);
      await other.getByRole('status').filter({ hasText: 'Offline' }).waitFor();
      // Assigned while the phone is offline: it shows once the link is back (the stream resumes).
      const otherId = await other.evaluate(
        "JSON.parse(localStorage.getItem('yard.session')).principal.driverId",
      );
      const res = await apiCall('POST', '/api/yard-task', {
        yardId,
        type: 'inspect',
        priority: 1,
        notes: 'Assigned while offline',
        driverId: otherId,
      });
      expect(res.status).toBe(201);
      await other.context().setOffline(false);
      await other.getByRole('status').filter({ hasText: 'On shift' }).waitFor();
      await other.locator('article.task-card').getByText('Assigned while offline').waitFor();
      expect(await seriousA11yViolations(other)).toEqual([]);
    } finally {
      await other.context().close();
    }
  });

  it('sends the location fixes and ends the shift', async () => {
    await page.context().setGeolocation({ latitude: 32.7769, longitude: -96.7972, accuracy: 6 });
    await page.context().setGeolocation({ latitude: 32.7771, longitude: -96.7975, accuracy: 5 });
    await page.getByText('· location on').waitFor();
    await page.getByRole('button', { name: 'End shift' }).tap();
    await page.getByRole('heading', { name: 'You are off shift' }).waitFor();
    const session = row<{ id: string; ended_at: number | null; end_reason: string }>(
      'SELECT id, ended_at, end_reason FROM driver_session WHERE driver_id = ? ORDER BY started_at DESC',
      driverId,
    );
    expect(session.ended_at).not.toBeNull();
    expect(session.end_reason).toBe('end of shift');
    const points = rows<{ lat: number; lon: number }>(
      'SELECT lat, lon FROM session_location WHERE session_id = ? ORDER BY at',
      session.id,
    );
    expect(points.length).toBeGreaterThanOrEqual(1);
    expect(points.at(-1)?.lat).toBeCloseTo(32.7771, 4);
  });
});
