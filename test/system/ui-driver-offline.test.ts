import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type BrowserContext, chromium, devices, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  type DemoEdge,
  FLAGS,
  screenshot,
  seriousA11yViolations,
  startDemoEdge,
} from '../helpers/browser.js';

/**
 * The driver app through a Wi-Fi drop, in Debian's Chromium as a phone (Pixel 7 viewport, touch)
 * against the demo edge started as a user starts it: the app's service worker caches the shell;
 * offline the driver completes one task, cancels another and starts a third (all three shown as
 * waiting); a reload without a network still opens the app with the actions still listed; back
 * online they are replayed, each applied exactly once (task rows and task events in the edge's
 * SQLite file), and the task the office reassigned meanwhile comes back as a conflict in words.
 * Also: the manifest passes Chromium's installability checks.
 */
let edge: DemoEdge;
let profile: string;
let context: BrowserContext;
let page: Page;
let adminToken: string;
let yardId: string;
const maria = { code: 'J101', pin: '1111' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Every attempt of a driver action the page made: its route and Idempotency-Key. */
const attempts: { url: string; key: string | undefined }[] = [];

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function db() {
  return new Database(edge.dbFile, { readonly: true, fileMustExist: true });
}

function driverId(code: string): string {
  const row = db().prepare('SELECT id FROM driver WHERE driver_code = ?').get(code) as { id: string };
  return row.id;
}

function taskRow(id: string) {
  return db()
    .prepare('SELECT status, driver_id, cancel_reason, version FROM yard_task WHERE id = ?')
    .get(id) as { status: string; driver_id: string; cancel_reason: string | null; version: number };
}

function transitions(id: string) {
  return db()
    .prepare(
      'SELECT from_status, to_status, actor_kind, reason FROM task_event WHERE task_id = ? ORDER BY at, id',
    )
    .all(id) as {
    from_status: string | null;
    to_status: string;
    actor_kind: string;
    reason: string | null;
  }[];
}

/** A task for Maria in the demo yard, told apart on screen by its notes. */
async function taskFor(driver: string, notes: string, priority: number): Promise<string> {
  const trailers = (await api('GET', `/api/trailer?yardId=${yardId}`)).items;
  const task = await api('POST', '/api/yard-task', {
    yardId,
    type: 'inspect',
    trailerId: trailers[priority % trailers.length].id,
    priority,
    notes,
    driverId: driver,
  });
  return task.id;
}

/** The current task card (the big one), once it is the task with these notes. */
function card(notes: string) {
  return page.locator('article').filter({ hasText: notes });
}

beforeAll(async () => {
  edge = await startDemoEdge();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  adminToken = ((await login.json()) as { token: string }).token;
  yardId = (await api('GET', '/api/yard')).items[0].id;
  // The test hands out the tasks itself (the demo's queued jobs stay queued).
  await api('PUT', '/api/settings', { settings: { 'tasks.autoAssign': false } });
  // A phone's own profile, not an incognito context: Chromium installs nothing from incognito.
  profile = mkdtempSync(join(tmpdir(), 'yard-phone-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: FLAGS,
    headless: true,
    ...devices['Pixel 7'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (r) => {
    if (r.method() === 'POST' && /\/api\/yard-task\/driver\/(start|complete|cancel)$/.test(r.url()))
      attempts.push({ url: r.url(), key: r.headers()['idempotency-key'] });
  });
}, 90_000);

afterAll(async () => {
  await context?.close();
  await edge?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('driver app: offline, replay, conflicts, installable', () => {
  const ids = { a: '', b: '', c: '' };
  /** When A's completion was tapped offline, and when the link came back (same clock as the phone). */
  const times = { completeTapped: 0, online: 0 };

  it('logs in, starts the shift, and the service worker takes the page', async () => {
    await page.goto(`${edge.url}/driver/`);
    await page.getByLabel('Driver code').fill(maria.code);
    await page.getByLabel('PIN').fill(maria.pin);
    await page.getByRole('button', { name: 'Log in' }).tap();
    await page.getByRole('button', { name: 'Start shift' }).tap();
    await page.getByRole('button', { name: 'End shift' }).waitFor();
    // clients.claim(): the first install controls this page without a reload.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
      timeout: 15_000,
    });
    const cached = await page.evaluate(async () => {
      const names = await caches.keys();
      const shell = names.filter((n) => n.startsWith('driver-shell-'));
      const cache = await caches.open(shell[0] ?? 'none');
      return { shell, page: Boolean(await cache.match('/driver/')) };
    });
    expect(cached.shell).toHaveLength(1);
    expect(cached.page).toBe(true);
  });

  it('passes Chromium’s installability checks (manifest, icons, service worker)', async () => {
    const cdp = await context.newCDPSession(page);
    const installability = (await cdp.send('Page.getInstallabilityErrors')) as {
      installabilityErrors: { errorId: string }[];
    };
    expect(installability.installabilityErrors).toEqual([]);
    const manifest = (await cdp.send('Page.getAppManifest')) as {
      url: string;
      errors: { message: string }[];
      parsed?: { name?: string; display?: string; icons?: { purpose?: string[] }[] };
    };
    expect(manifest.url).toBe(`${edge.url}/driver/manifest.webmanifest`);
    expect(manifest.errors).toEqual([]);
    await cdp.detach();
    const icons = await page.evaluate(async () => {
      const out: number[] = [];
      for (const src of ['/driver/icons/icon-192.png', '/driver/icons/icon-maskable-512.png']) {
        const img = new Image();
        img.src = src;
        await img.decode();
        out.push(img.naturalWidth);
      }
      return out;
    });
    expect(icons).toEqual([192, 512]);
  });

  it('offline: a completion, a cancellation and a start are kept on the phone and shown as waiting', async () => {
    const me = driverId(maria.code);
    ids.a = await taskFor(me, 'Job A: reefer check', 3);
    ids.b = await taskFor(me, 'Job B: seal check', 2);
    ids.c = await taskFor(me, 'Job C: tyre check', 1);
    // A is the most urgent: the current card. Started while the link is up.
    await card('Job A: reefer check').getByRole('button', { name: 'Start' }).tap();
    await expect.poll(() => taskRow(ids.a).status).toBe('IN_PROGRESS');
    await card('Job A: reefer check').getByRole('button', { name: 'Complete' }).waitFor();

    await context.setOffline(true);
    await card('Job A: reefer check').getByRole('button', { name: 'Complete' }).tap();
    const waiting = page.getByTestId('pending-actions');
    await waiting.getByText('Actions waiting to be sent (1)').waitFor();
    times.completeTapped = Date.now();
    // B is current now: cancel it with a quick reason.
    await card('Job B: seal check')
      .getByRole('button', { name: /Cancel task/ })
      .tap();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Spot blocked').check();
    await dialog.getByRole('button', { name: 'Cancel task' }).tap();
    await waiting.getByText('Actions waiting to be sent (2)').waitFor();
    // C: started on the phone; meanwhile the office gives it to Sam (the phone cannot hear of it).
    await card('Job C: tyre check').getByRole('button', { name: 'Start' }).tap();
    await waiting.getByText('Actions waiting to be sent (3)').waitFor();
    await api('PATCH', `/api/yard-task/${ids.c}`, { driverId: driverId('J102') });

    const items = waiting.getByRole('listitem');
    expect(await items.allTextContents()).toEqual([
      expect.stringMatching(/^Complete .*: waiting for the link$/),
      expect.stringMatching(/^Cancel .*\(Spot blocked\).*: waiting for the link$/),
      expect.stringMatching(/^Start .*: waiting for the link$/),
    ]);
    // Nothing reached the server.
    expect(taskRow(ids.a).status).toBe('IN_PROGRESS');
    expect(taskRow(ids.b).status).toBe('ASSIGNED');
    await screenshot(page, 'ui-driver-offline-pending');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('a reload without a network opens the app from its cache, the actions still waiting (also a deep link)', async () => {
    const answer = await page.reload();
    expect(answer?.fromServiceWorker()).toBe(true);
    const waiting = page.getByTestId('pending-actions');
    await waiting.getByText('Actions waiting to be sent (3)').waitFor();
    await screenshot(page, 'ui-driver-offline-reload');
    expect(await seriousA11yViolations(page)).toEqual([]);

    const deep = await page.goto(`${edge.url}/driver/task/${ids.b}`);
    expect(deep?.fromServiceWorker()).toBe(true);
    await waiting.getByText('Actions waiting to be sent (3)').waitFor();
    expect(taskRow(ids.a).status).toBe('IN_PROGRESS');
  });

  it('back online: each action applied exactly once, the reassigned task shown as a conflict', async () => {
    await page.goto(`${edge.url}/driver/`).catch(() => undefined); // still offline: from the cache
    times.online = Date.now();
    await context.setOffline(false);
    // The outbox replays on the browser's `online` event: the server's rows change without a tap.
    await expect.poll(() => taskRow(ids.a).status, { timeout: 20_000 }).toBe('COMPLETED');
    await expect.poll(() => taskRow(ids.b).status, { timeout: 20_000 }).toBe('CANCELLED');
    const waiting = page.getByTestId('pending-actions');
    await waiting.getByText(/Actions waiting to be sent/).waitFor({ state: 'detached' });
    const conflict = page.getByTestId('conflicts').locator('.outbox-conflict');
    await conflict.waitFor();
    expect(await conflict.textContent()).toMatch(
      /was reassigned to someone else meanwhile: your Start was not applied\. Check your current task\./,
    );

    expect(taskRow(ids.a)).toMatchObject({ status: 'COMPLETED' });
    // The completion counts from the tap, not from the replay; its event keeps both times.
    const done = db()
      .prepare(
        `SELECT t.completed_at AS completedAt, e.at, e.tapped_at AS tappedAt FROM yard_task t
           JOIN task_event e ON e.task_id = t.id AND e.to_status = 'COMPLETED' WHERE t.id = ?`,
      )
      .get(ids.a) as { completedAt: number; at: number; tappedAt: number };
    expect(done.completedAt).toBeLessThanOrEqual(times.completeTapped);
    expect(done.completedAt).toBeLessThan(times.online);
    expect(done.tappedAt).toBe(done.completedAt);
    expect(done.at).toBeGreaterThanOrEqual(times.online);
    expect(taskRow(ids.b)).toMatchObject({ status: 'CANCELLED', cancel_reason: 'Spot blocked' });
    expect(taskRow(ids.c)).toMatchObject({ status: 'ASSIGNED', driver_id: driverId('J102') });
    expect(transitions(ids.a).map((e) => e.to_status)).toEqual([
      'QUEUED',
      'ASSIGNED',
      'IN_PROGRESS',
      'COMPLETED',
    ]);
    expect(transitions(ids.b).map((e) => [e.to_status, e.reason])).toEqual([
      ['QUEUED', null],
      ['ASSIGNED', null],
      ['CANCELLED', 'Spot blocked'],
    ]);
    expect(transitions(ids.c).map((e) => e.to_status)).toEqual(['QUEUED', 'ASSIGNED', 'ASSIGNED']);

    // Each action carried its own key on every attempt: four actions, four keys, however many tries.
    const keys = new Set(attempts.map((a) => a.key));
    expect([...keys].every((k) => k !== undefined && UUID.test(k))).toBe(true);
    expect(keys.size).toBe(4);
    for (const key of keys)
      expect(new Set(attempts.filter((a) => a.key === key).map((a) => a.url)).size).toBe(1);

    await screenshot(page, 'ui-driver-offline-conflict');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('the conflict stays over a reload until dismissed, and stays dismissed', async () => {
    await page.reload();
    const conflicts = page.getByTestId('conflicts');
    await conflicts.getByText(/was reassigned to someone else/).waitFor();
    await conflicts.getByRole('button', { name: 'Dismiss' }).tap();
    await expect.poll(() => conflicts.locator('.outbox-conflict').count()).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: 'End shift' }).waitFor();
    expect(await conflicts.locator('.outbox-conflict').count()).toBe(0);
  });

  it('a login that ended while offline keeps the action queued; it is sent once after the new login', async () => {
    const d = await taskFor(driverId(maria.code), 'Job D: lights check', 3);
    await card('Job D: lights check').getByRole('button', { name: 'Start' }).waitFor();
    await context.setOffline(true);
    await card('Job D: lights check').getByRole('button', { name: 'Start' }).tap();
    const waiting = page.getByTestId('pending-actions');
    await waiting.getByText('Actions waiting to be sent (1)').waitFor();
    // The token ends on the server meanwhile (as when it expires or the office revokes it).
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem('yard.session') ?? '{}').token);
    const out = await fetch(`${edge.url}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(out.status).toBe(204);

    await context.setOffline(false);
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Log in again' }).waitFor({ timeout: 20_000 });
    expect(await waiting.getByRole('listitem').count()).toBe(1);
    expect(taskRow(d).status).toBe('ASSIGNED');
    await dialog.getByLabel('PIN').fill(maria.pin);
    await dialog.getByRole('button', { name: 'Log in', exact: true }).tap();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => taskRow(d).status, { timeout: 20_000 }).toBe('IN_PROGRESS');
    await waiting.getByText(/Actions waiting to be sent/).waitFor({ state: 'detached' });
    expect(transitions(d).filter((e) => e.to_status === 'IN_PROGRESS')).toHaveLength(1);
  });
});
