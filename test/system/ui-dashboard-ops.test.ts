import Database from 'better-sqlite3';
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
 * The office dashboard's operations in Chromium against the demo edge (simulated relays, demo
 * yard with trailers, locations and driver J101): open a gate with a reason and read it in the
 * opening log; a viewer sees Open off and why; create a yard task, assign it to a driver on shift,
 * cancel it with a reason, each checked through the API. (The 504 site-offline words are unit-tested
 * in test/unit/ui/dashboard-gate-words.test.ts; a cloud with an offline site is the cloud test's.)
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
let yardId: string;

type Json = Record<string, unknown> & { items?: Record<string, unknown>[] };
async function apiCall(method: string, path: string, body?: unknown, bearer = token) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 10_000 });
const gone = (l: Locator) => l.waitFor({ state: 'hidden', timeout: 10_000 });
const text = (l: Locator) => expect.poll(() => l.textContent(), { timeout: 10_000 });

beforeAll(async () => {
  edge = await startDemoEdge();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  yardId = (await apiCall('GET', '/api/yard')).body.items?.[0]?.id as string;
  // Assignment is the dispatcher's here: the demo's auto-dispatch would hand our task out first.
  expect((await apiCall('PUT', '/api/settings', { settings: { 'tasks.autoAssign': false } })).status).toBe(
    200,
  );
  browser = await launchChromium();
  page = await openPage(browser);
  await page.goto(`${edge.url}/dashboard/gates`);
  await logIn(page, edge.admin.username, edge.admin.password);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('dashboard: gates', () => {
  it('an admin opens a gate with a reason; the opening log and the API record show it', async () => {
    const north = page.getByRole('article', { name: 'North gate (in)' });
    await shown(north);
    await shown(north.getByText('Relay simulated'));
    const open = north.getByRole('button', { name: 'Open North gate (in)' });
    expect(await open.isEnabled()).toBe(true);
    const gateId = (
      (await apiCall('GET', '/api/hardware/status')).body.gates as { gateId: string; name: string }[]
    ).find((g) => g.name === 'North gate (in)')?.gateId as string;

    await open.click();
    const dialog = page.getByRole('dialog', { name: 'Open North gate (in)' });
    await shown(dialog);
    await dialog.getByRole('button', { name: 'Open the gate' }).click();
    await shown(dialog.getByText('Say why the gate is opened from the office'));
    const reason = 'Escort for an oversize load, called from the office';
    await dialog.getByLabel('Reason').fill(reason);
    await page.keyboard.press('Enter');
    await shown(dialog.getByText(/North gate \(in\) opened \(simulated relay/));
    await dialog.getByRole('button', { name: 'Close' }).click();
    await gone(dialog);

    const audit = (await apiCall('GET', `/api/hardware/gate/${gateId}/actuations`)).body.items ?? [];
    expect(audit[0]).toMatchObject({ result: 'ok', reason, requestedBy: 'admin', requestedVia: 'local' });
    const db = new Database(edge.dbFile, { readonly: true });
    try {
      expect(
        db
          .prepare('SELECT result, reason FROM gate_actuation WHERE gate_id = ? ORDER BY at DESC LIMIT 1')
          .get(gateId),
      ).toEqual({ result: 'ok', reason });
    } finally {
      db.close();
    }
    // The log on screen: newest first, who, why, what, through which side.
    const row = north
      .getByRole('table', { name: /Opening log of North gate \(in\)/ })
      .locator('tbody tr')
      .first();
    await text(row).toContain(reason);
    await text(row).toContain('admin');
    await text(row).toContain('opened');
    await text(row).toContain('at the site');
    await text(north.locator('.gate-last')).toContain(reason);
    await screenshot(page, 'dashboard-gates');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('a viewer sees every gate but Open is off, with why', async () => {
    const created = await apiCall('POST', '/api/user', {
      username: 'office.viewer',
      displayName: 'Office viewer',
      role: 'viewer',
      password: 'viewer-pass-123',
    });
    expect(created.status).toBe(201);
    const viewer = await openPage(browser);
    try {
      await viewer.goto(`${edge.url}/dashboard/gates`);
      await logIn(viewer, 'office.viewer', 'viewer-pass-123');
      const north = viewer.getByRole('article', { name: 'North gate (in)' });
      await shown(north);
      const open = north.getByRole('button', { name: 'Open North gate (in)' });
      await shown(open);
      expect(await open.isDisabled()).toBe(true);
      // The why is the button's description, so a screen reader says it with the button.
      const why = 'Your role (viewer) may not open gates: admins and gate clerks may.';
      await shown(north.getByText(why));
      const describedBy = await open.getAttribute('aria-describedby');
      expect(await viewer.locator(`#${describedBy}`).textContent()).toBe(why);
      expect(await seriousA11yViolations(viewer)).toEqual([]);
      // The tasks screen reads, but offers no changes.
      await viewer.goto(`${edge.url}/dashboard/tasks`);
      await shown(viewer.getByText('Read only: dispatchers and admins create and change tasks.'));
      expect(await viewer.getByRole('link', { name: 'New task' }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: /^(Assign|Cancel|Unassign)/ }).count()).toBe(0);
    } finally {
      await viewer.context().close();
    }
  });
});

describe('dashboard: yard tasks', () => {
  let taskId: string;
  let trailer: { id: string; number: string };
  let spot: { id: string; name: string };
  let door: { id: string; name: string };

  it('creates a task from the form; a field the server refuses says so on the field', async () => {
    const locations = (await apiCall('GET', `/api/yard/${yardId}/location?limit=500`)).body.items as {
      id: string;
      name: string;
      kind: string;
    }[];
    spot = locations.find((l) => l.kind === 'spot') as typeof spot;
    door = locations.find((l) => l.kind === 'door') as typeof door;
    trailer = (await apiCall('GET', `/api/trailer?yardId=${yardId}&inYard=true`)).body
      .items?.[0] as typeof trailer;
    // The task is made without a From: the jockey picks the trailer up where it stands.
    const standsOn = locations.find((l) => l.id === (trailer as { locationId?: string }).locationId);
    expect(standsOn, 'the demo trailer stands on a known spot').toBeDefined();
    spot = standsOn as typeof spot;

    await page.goto(`${edge.url}/dashboard/tasks`);
    await shown(page.getByRole('heading', { name: /^Yard tasks of/ }));
    await page.getByRole('link', { name: 'New task' }).click();
    const form = page.getByRole('form', { name: /^New task in/ });
    await shown(form);
    await form.getByLabel('Type').selectOption({ label: 'Pull to door' });
    // A pull to door without its trailer and door is refused on those two fields; nothing is made.
    const count = async () =>
      (await apiCall('GET', `/api/yard-task?yardId=${yardId}&limit=500`)).body.items?.length;
    const none = await count();
    await form.getByRole('button', { name: 'Create the task' }).click();
    await shown(form.locator('#nt-trailer-error').getByText('Choose the trailer to move.'));
    await shown(form.locator('#nt-to-error').getByText('Choose where the trailer goes.'));
    expect(await form.getByLabel('To', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'dashboard-task-new-incomplete-move');
    expect(await count()).toBe(none);
    const trailerInput = form.getByRole('combobox', { name: 'Trailer', exact: true });
    await trailerInput.fill(trailer.number.slice(0, 6));
    await page.getByRole('option', { name: new RegExp(trailer.number) }).click();
    expect(await trailerInput.inputValue()).toBe(trailer.number);
    await form.getByLabel('To', { exact: true }).selectOption({ label: door.name });
    await form.getByLabel('Priority').selectOption({ label: 'Urgent' });
    // Longer than the API takes: its validation error lands under Notes, nothing is created.
    await form.getByLabel('Notes (optional)').fill('x'.repeat(2001));
    const before = (await apiCall('GET', `/api/yard-task?yardId=${yardId}&limit=500`)).body.items?.length;
    await form.getByRole('button', { name: 'Create the task' }).click();
    const notesError = form.locator('#nt-notes-error');
    await shown(notesError);
    expect(await form.getByLabel('Notes (optional)').getAttribute('aria-invalid')).toBe('true');
    expect((await apiCall('GET', `/api/yard-task?yardId=${yardId}&limit=500`)).body.items?.length).toBe(
      before,
    );

    await form.getByLabel('Notes (optional)').fill('Reefer: keep the unit running');
    await gone(notesError);
    await gone(form.getByText('Some fields need a change'));
    await screenshot(page, 'dashboard-task-new');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Create the task' }).click();

    await shown(page.getByText(`Pull to door task created for trailer ${trailer.number}.`));
    expect(new URL(page.url()).pathname).toBe('/dashboard/tasks');
    const queued =
      (await apiCall('GET', `/api/yard-task?yardId=${yardId}&status=QUEUED&limit=500`)).body.items ?? [];
    const mine = queued.find((t) => t.notes === 'Reefer: keep the unit running');
    expect(mine).toMatchObject({
      type: 'pull_to_door',
      trailerId: trailer.id,
      fromLocationId: spot.id,
      toLocationId: door.id,
      priority: 3,
      driverId: null,
    });
    taskId = mine?.id as string;
    const row = page.getByRole('region', { name: /^Queued/ }).locator(`tr[data-task-id="${taskId}"]`);
    await shown(row);
    await text(row).toContain(trailer.number);
    await text(row).toContain(`${spot.name} → ${door.name}`);
    await text(row).toContain('Urgent');
  });

  it('a task made elsewhere appears without a reload', async () => {
    const created = await apiCall('POST', '/api/yard-task', {
      yardId,
      type: 'inspect',
      toLocationId: door.id,
      priority: 0,
      notes: 'Made through the API while the list is open',
    });
    expect(created.status).toBe(201);
    const row = page.locator(`tr[data-task-id="${created.body.id as string}"]`);
    await shown(row);
    await text(row).toContain('Made through the API while the list is open');
    await text(row).toContain('Low');
  });

  it('assigns the task to a driver on shift: the list and the API show the driver', async () => {
    const driverLogin = await fetch(`${edge.url}/api/auth/driver-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ driverCode: 'J101', pin: '1111' }),
    });
    expect(driverLogin.status).toBe(200);
    const driver = (await driverLogin.json()) as { token: string; principal: { driverId: string } };
    const started = await apiCall('POST', '/api/yard-task/driver/session/start', { yardId }, driver.token);
    expect(started.status).toBe(201);

    const row = page.locator(`tr[data-task-id="${taskId}"]`);
    await row.getByRole('button', { name: /^Assign / }).click();
    const dialog = page.getByRole('dialog', { name: /^Assign Pull to door/ });
    await shown(dialog);
    const picker = dialog.getByLabel('Driver');
    // The session started a moment ago reached the picker live: J101 is on shift and available.
    await expect
      .poll(
        async () => (await picker.locator('option').allTextContents()).find((o) => o.includes('(J101)')),
        {
          timeout: 10_000,
        },
      )
      .toMatch(/\(J101\): on shift, available/);
    const j101 = (await picker.locator('option').allTextContents()).find((o) =>
      o.includes('(J101)'),
    ) as string;
    await picker.selectOption({ label: j101 });
    await dialog.getByRole('button', { name: 'Assign to this driver' }).click();
    await gone(dialog);

    const assigned = page.getByRole('region', { name: /^Assigned/ }).locator(`tr[data-task-id="${taskId}"]`);
    await shown(assigned);
    await text(assigned).toContain('(J101)');
    await shown(page.getByText(/is assigned to .*\(J101\)\./));
    const task = (await apiCall('GET', `/api/yard-task/${taskId}`)).body;
    expect(task).toMatchObject({ status: 'ASSIGNED', driverId: driver.principal.driverId });
    await screenshot(page, 'dashboard-tasks');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('unassigns it: back in the queue without a driver, in the list and the API', async () => {
    const assigned = page.getByRole('region', { name: /^Assigned/ }).locator(`tr[data-task-id="${taskId}"]`);
    await assigned.getByRole('button', { name: /^Unassign / }).click();
    const queued = page.getByRole('region', { name: /^Queued/ }).locator(`tr[data-task-id="${taskId}"]`);
    await shown(queued);
    await text(queued).toContain('nobody yet');
    await shown(page.getByText(/is queued again, without a driver\./));
    expect((await apiCall('GET', `/api/yard-task/${taskId}`)).body).toMatchObject({
      status: 'QUEUED',
      driverId: null,
    });
  });

  it('cancels the task with a reason: it moves to the recent list, cancelled in the API', async () => {
    const row = page.locator(`tr[data-task-id="${taskId}"]`).first();
    await row.getByRole('button', { name: /^Cancel / }).click();
    const dialog = page.getByRole('dialog', { name: /^Cancel Pull to door/ });
    await shown(dialog);
    await dialog.getByRole('button', { name: 'Cancel the task' }).click();
    await shown(dialog.getByText('Say why the task is cancelled'));
    await dialog.getByLabel('Reason').fill('Door 1 blocked, reschedule tomorrow');
    await dialog.getByRole('button', { name: 'Cancel the task' }).click();
    await gone(dialog);

    const done = page.getByRole('region', { name: 'Recently completed or cancelled' });
    const doneRow = done.locator(`tr[data-task-id="${taskId}"]`);
    await shown(doneRow);
    await text(doneRow).toContain('Cancelled');
    await text(doneRow).toContain('Door 1 blocked, reschedule tomorrow');
    expect(
      await page
        .getByRole('region', { name: /^Assigned/ })
        .locator(`tr[data-task-id="${taskId}"]`)
        .count(),
    ).toBe(0);
    const task = (await apiCall('GET', `/api/yard-task/${taskId}`)).body;
    expect(task).toMatchObject({ status: 'CANCELLED', cancelReason: 'Door 1 blocked, reschedule tomorrow' });
  });

  it('a change someone else made first is refused (412): the screen says so and shows the task as it is now', async () => {
    const created = await apiCall('POST', '/api/yard-task', {
      yardId,
      type: 'inspect',
      priority: 2,
      notes: 'Stale copy test',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // This browser gets no live events (as when its stream is down), so its list goes stale.
    const stale = await openPage(browser);
    try {
      await stale.route('**/api/events*', (route) => route.abort());
      await stale.goto(`${edge.url}/dashboard/tasks`);
      await logIn(stale, edge.admin.username, edge.admin.password);
      const row = stale.locator(`tr[data-task-id="${id}"]`);
      await shown(row);
      await text(row).toContain('High');
      expect((await apiCall('PATCH', `/api/yard-task/${id}`, { priority: 0 })).status).toBe(200);

      await row.getByRole('button', { name: /^Cancel / }).click();
      const dialog = stale.getByRole('dialog', { name: /^Cancel Inspect/ });
      await dialog.getByLabel('Reason').fill('No longer needed');
      await dialog.getByRole('button', { name: 'Cancel the task' }).click();
      await shown(
        stale.getByText('Someone changed this task since the list was loaded. The list has been reloaded'),
      );
      await text(row).toContain('Low');
      expect((await apiCall('GET', `/api/yard-task/${id}`)).body).toMatchObject({
        status: 'QUEUED',
        priority: 0,
      });
    } finally {
      await stale.context().close();
    }
  });
});
