import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
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
import { freeDemoDoors } from '../helpers/demo-doors.js';
import { sidewaysOverflow } from './reflow-check.js';

/**
 * Appointments at the gate house (docs/domain.md "At the gate"), in Debian's Chromium against the
 * standalone demo edge as a user starts it (it books, too): a clerk scans an appointment code, the
 * booking fills the check-in and suggests its door, and one more action checks the truck in with
 * the gate opening; the Expected arrivals screen follows other clients' changes live (no reload,
 * no list request); a code that matches nothing is said so and never dropped silently.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;
let yardId: string;
const QUARTER = 15 * 60_000;

async function apiCall(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
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

const byName = (items: any[], name: string) => items.find((i) => i.name === name || i.scac === name);

/** Books an appointment today through the API, as the office would (override: any time of today). */
async function book(fields: Record<string, unknown>) {
  const res = await apiCall('POST', '/api/appointment', {
    yardId,
    override: { reason: 'gate house test' },
    ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; code: string; startAt: string };
}

/** The Expected screen's row of an appointment, and its status badge. */
const row = (code: string) => page.locator(`#appt-${code}`);
const badge = (code: string) => row(code).locator('.badge');

let due: { id: string; code: string };
let late: { id: string; code: string };
let other: { id: string; code: string };
let doors: Record<string, string>;
let carriers: Record<string, string>;

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  const clerk = await apiCall('POST', '/api/user', {
    username: 'clerk1',
    password: 'clerk1-password-1',
    role: 'gate',
    displayName: 'Pat Gate',
  });
  expect(clerk.status).toBe(201);
  yardId = (await apiCall('GET', '/api/yard')).body.items[0].id;
  // "Today" must hold an hour before and after now whenever the suite runs: the yard is moved to
  // the whole-hour zone where it is about noon (Etc/GMT-7 is UTC+7).
  const shift = 12 - new Date().getUTCHours();
  const noonZone = shift === 0 ? 'Etc/GMT' : `Etc/GMT${shift > 0 ? '-' : '+'}${Math.abs(shift)}`;
  const moved = await apiCall('PATCH', `/api/yard/${yardId}`, { timeZone: noonZone });
  expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  const config = await apiCall('PUT', `/api/appointment/config/${yardId}`, {
    enabled: true,
    openHours: Object.fromEntries(
      ['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, [{ from: '00:00', to: '24:00' }]]),
    ),
    leadTimeMinMinutes: 0,
    // The one due now stays due (and arrives on time) for at least 30 minutes of a slow run: it
    // starts on the last quarter hour; the one an hour earlier is late whatever the run's pace.
    lateGraceMinutes: 45,
    noShowAfterMinutes: 600, // no sweep makes the late one a no-show while the test runs
  });
  expect(config.status, JSON.stringify(config.body)).toBe(200);
  const loadType = await apiCall('POST', '/api/appointment/load-type', {
    yardId,
    name: 'Gate test live unload',
    direction: 'inbound',
    durationMinutes: 60,
  });
  expect(loadType.status).toBe(201);
  const locations = (await apiCall('GET', `/api/yard/${yardId}/location?kind=door&limit=100`)).body.items;
  doors = Object.fromEntries(
    ['Door 3', 'Door 4', 'Door 5', 'Door 6'].map((n) => [n, byName(locations, n).id]),
  );
  await freeDemoDoors(apiCall, yardId, Object.values(doors));
  const carrierList = (await apiCall('GET', '/api/carrier?limit=100')).body.items;
  carriers = Object.fromEntries(['LSLG', 'PRHL', 'GCCA'].map((s) => [s, byName(carrierList, s).id]));
  // Today, on the quarter hour: the one now is due, the one an hour before is late (grace 45 min).
  const now = Math.floor(Date.now() / QUARTER) * QUARTER;
  const at = (ms: number) => new Date(ms).toISOString();
  due = await book({
    loadTypeId: loadType.body.id,
    startAt: at(now),
    doorId: doors['Door 4'],
    carrierId: carriers.LSLG,
    trailerNumber: 'LSLG5399',
    truckPlate: 'TX 4410',
    driverName: 'Dale Brooks',
    driverPhone: '+12145550123',
    refs: ['PO-88121'],
  });
  late = await book({
    loadTypeId: loadType.body.id,
    startAt: at(now - 4 * QUARTER),
    doorId: doors['Door 5'],
    carrierId: carriers.PRHL,
    trailerNumber: 'PRHL5304',
    truckPlate: 'TX 5520',
  });
  other = await book({
    loadTypeId: loadType.body.id,
    startAt: at(now),
    doorId: doors['Door 6'],
    carrierId: carriers.GCCA,
    trailerNumber: 'GCCA5305',
  });
  page = await openPage(browser);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('gate house: appointments', () => {
  it('shows today by time with due and late, and follows other clients live without reloading', async () => {
    await page.goto(`${edge.url}/gate/expected`);
    await logIn(page, 'clerk1', 'clerk1-password-1');
    await page.getByRole('heading', { name: /Expected arrivals today/ }).waitFor();
    await expect.poll(() => badge(due.code).textContent()).toBe('due');
    expect(await badge(late.code).textContent()).toBe('late');
    expect(await row(late.code).textContent()).toMatch(/1 h \d+ min after start/);
    expect(await badge(other.code).textContent()).toBe('due');
    // By time: the late one (an hour earlier) comes before the two due now.
    const codes = await page.locator('table.expected tbody tr .code').allTextContents();
    expect(codes.indexOf(late.code)).toBeLessThan(codes.indexOf(due.code));
    await screenshot(page, 'ui-gate-expected');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // From here on nothing may reload the page or ask for the list again: changes come as events.
    await page.evaluate('window.__sameDocument = true');
    const listRequests: string[] = [];
    page.on('request', (r) => {
      if (/\/api\/appointment\?/.test(r.url())) listRequests.push(r.url());
    });

    // Another desk checks the GCCA truck in with its appointment: the row says arrived.
    const elsewhere = await apiCall('POST', '/api/movement', {
      yardId,
      direction: 'in',
      trailer: { number: 'GCCA5305' },
      carrierId: carriers.GCCA,
      appointmentId: other.id,
    });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(201);
    await expect.poll(() => badge(other.code).textContent()).toBe('arrived');
    await page
      .getByRole('status')
      .filter({ hasText: `Appointment ${other.code}` })
      .waitFor({ state: 'attached' });

    // The office books a new one for now and then cancels it: it appears, then leaves the list.
    const added = await book({
      loadTypeId: (await apiCall('GET', `/api/appointment/load-type?yardId=${yardId}`)).body.items.find(
        (t: { name: string }) => t.name === 'Gate test live unload',
      ).id,
      startAt: new Date(Math.floor(Date.now() / QUARTER) * QUARTER).toISOString(),
      doorId: doors['Door 3'],
      carrierId: carriers.LSLG,
      trailerNumber: 'LSLG5398',
    });
    await expect.poll(() => badge(added.code).textContent()).toBe('due');
    await screenshot(page, 'ui-gate-expected-live');
    const cancelled = await apiCall('POST', `/api/appointment/${added.id}/cancel`, {
      reason: 'carrier called off',
    });
    expect(cancelled.status).toBe(200);
    await expect.poll(() => row(added.code).count()).toBe(0);

    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(listRequests).toEqual([]);
  }, 90_000);

  it('a scanned code fills the check-in, suggests the door, and the truck is in with the gate open in 2 actions', async () => {
    await page.getByRole('link', { name: /Check in/ }).click();
    await page.getByRole('heading', { name: 'Check in' }).waitFor();
    // The code field is first and has the focus: the scanner types into it.
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('ci-code');
    let actions = 0;
    // 1: the scanner types the code and Enter (as a keyboard does).
    actions += 1;
    await page.keyboard.type(`${due.code.toLowerCase()}\n`);
    await page
      .getByText(/Appointment found: Lone Star Logistics, Gate test live unload at [^,]+, Door 4\./)
      .waitFor();
    expect(await page.getByRole('combobox', { name: 'Trailer number' }).inputValue()).toBe('LSLG5399');
    expect(await page.getByRole('combobox', { name: 'Truck plate' }).inputValue()).toBe('TX 4410');
    expect(await page.getByRole('combobox', { name: 'Carrier (name or SCAC)' }).inputValue()).toBe(
      'Lone Star Logistics (LSLG)',
    );
    expect(await page.getByRole('combobox', { name: /^Driver/ }).inputValue()).toBe('Dale Brooks');
    await page.getByText('Allowed in').waitFor(); // the known driver, checked at once
    expect(await page.getByLabel('Load').inputValue()).toBe('loaded'); // an inbound load type
    expect(await page.locator('#ci-spot option:checked').textContent()).toBe('Door 4 (booked, suggested)');
    await screenshot(page, 'ui-gate-check-in-appointment');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // 2: check in and open the gate.
    actions += 1;
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    await page.getByRole('heading', { name: /Checked in: LSLG5399 \/ TX 4410/ }).waitFor();
    await page.getByText(/Recorded, and North gate \(in\) opened/).waitFor();
    await page.getByText(new RegExp(`${due.code}, Lone Star Logistics at`)).waitFor();
    expect(actions).toBeLessThanOrEqual(3);
    await screenshot(page, 'ui-gate-check-in-appointment-done');

    const movement = db()
      .prepare(
        `SELECT m.id, m.gate_id, m.appointment_id, l.name AS place, d.first_name AS driver
           FROM movement m LEFT JOIN location l ON l.id = m.location_id LEFT JOIN driver d ON d.id = m.driver_id
          WHERE m.appointment_id = ?`,
      )
      .get(due.id) as Record<string, string>;
    expect(movement).toMatchObject({ appointment_id: due.id, place: 'Door 4', driver: 'Dale' });
    const actuations = await apiCall('GET', `/api/hardware/gate/${movement.gate_id}/actuations`);
    expect(actuations.body.items[0]).toMatchObject({ movementId: movement.id, result: 'ok' });
    const appointment = db()
      .prepare('SELECT arrived_at, arrival, movement_id FROM appointment WHERE id = ?')
      .get(due.id) as Record<string, unknown>;
    expect(appointment).toMatchObject({ arrival: 'on_time', movement_id: movement.id });
    expect(appointment.arrived_at).not.toBeNull();
    // The form is empty for the next truck, the focus back in the code field.
    expect(await page.getByLabel('Appointment code').inputValue()).toBe('');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('ci-code');
  }, 90_000);

  it('checks the late one in from its Expected row; a code that matches nothing is said so', async () => {
    await page.keyboard.press('Alt+e');
    await page.getByRole('heading', { name: /Expected arrivals today/ }).waitFor();
    // Checked in to its door: the yard event made it docked (the list followed live).
    await expect.poll(() => badge(due.code).textContent()).toMatch(/arrived|docked/);
    await row(late.code)
      .getByRole('button', { name: `Check in ${late.code}` })
      .click();
    await page.getByRole('heading', { name: 'Check in' }).waitFor();
    await page.getByText(/Appointment found: Prairie Haulers/).waitFor();
    expect(await page.getByRole('combobox', { name: 'Trailer number' }).inputValue()).toBe('PRHL5304');
    await page.getByText('Known trailer.').waitFor();
    await page.keyboard.press('Control+Enter');
    await page.getByRole('heading', { name: /Checked in: PRHL5304/ }).waitFor();
    const arrival = db().prepare('SELECT arrival FROM appointment WHERE id = ?').get(late.id);
    expect(arrival).toEqual({ arrival: 'late' });

    const code = page.getByLabel('Appointment code');
    await code.fill('ZZZZ9999');
    await code.press('Enter');
    await page.getByText('No appointment today with code ZZZZ9999.', { exact: false }).waitFor();
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('combobox', { name: 'Trailer number' }).fill('WALK 100200');
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    await page.getByText(/matches no appointment: correct it, or clear it/).waitFor();
    await screenshot(page, 'ui-gate-check-in-unknown-code');
    expect(await seriousA11yViolations(page)).toEqual([]);
    const walkIn = () =>
      db()
        .prepare(
          "SELECT m.appointment_id FROM movement m JOIN trailer t ON t.id = m.trailer_id WHERE t.number = 'WALK 100200'",
        )
        .all();
    expect(walkIn()).toEqual([]);
    // Cleared, it is a walk-in as before.
    await code.fill('');
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    await page.getByRole('heading', { name: /Checked in: WALK 100200/ }).waitFor();
    expect(walkIn()).toEqual([{ appointment_id: null }]);
  }, 90_000);
});

describe('gate house: finding the day’s appointment by ref, by carrier + trailer, on the Expected screen', () => {
  let byRef: { id: string; code: string };
  let lsShared: { id: string; code: string };
  let prShared: { id: string; code: string };

  it('the Expected screen filters by code, ref, carrier and trailer; "Show the completed ones" sits beside its box and reflows at 320 px', async () => {
    const loadTypeId = (await apiCall('GET', `/api/appointment/load-type?yardId=${yardId}`)).body.items.find(
      (t: { name: string }) => t.name === 'Gate test live unload',
    ).id;
    const soon = Math.floor(Date.now() / QUARTER) * QUARTER + 4 * QUARTER;
    const at = (ms: number) => new Date(ms).toISOString();
    byRef = await book({
      loadTypeId,
      startAt: at(soon),
      doorId: doors['Door 3'],
      carrierId: carriers.GCCA,
      trailerNumber: 'GCCA5311',
      refs: ['PO-55120', 'BOL-77031'],
    });
    // One trailer number, two carriers' bookings today: only the carrier tells them apart.
    lsShared = await book({
      loadTypeId,
      startAt: at(soon),
      doorId: doors['Door 5'],
      carrierId: carriers.LSLG,
      trailerNumber: 'SHRD5312',
    });
    prShared = await book({
      loadTypeId,
      startAt: at(soon + QUARTER),
      doorId: doors['Door 6'],
      carrierId: carriers.PRHL,
      trailerNumber: 'SHRD5312',
    });
    // A completed one, so "Show the completed ones" is there (completed by hand, as a clerk may).
    for (const to of ['docked', 'completed']) {
      const res = await apiCall('POST', `/api/appointment/${other.id}/status`, { to, reason: 'gate test' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }

    await page.keyboard.press('Alt+e');
    await page.getByRole('heading', { name: /Expected arrivals today/ }).waitFor();
    await row(prShared.code).waitFor();
    const filter = page.getByLabel('Find (code, ref, carrier or trailer)');
    const codes = () => page.locator('table.expected tbody tr .code').allTextContents();
    await filter.fill('bol-77031');
    await expect.poll(codes).toEqual([byRef.code]);
    await filter.fill('prairie shrd 5312'); // carrier + trailer: the Prairie Haulers one only
    await expect.poll(codes).toEqual([prShared.code]);
    await screenshot(page, 'ui-gate-expected-filter');
    await filter.fill(lsShared.code.toLowerCase());
    await expect.poll(codes).toEqual([lsShared.code]);
    await filter.fill('nothing like this');
    await page.getByText('No appointment of today matches nothing like this.').waitFor();
    await filter.fill('');
    await expect.poll(async () => (await codes()).length).toBeGreaterThanOrEqual(4);
    expect(await codes()).not.toContain(other.code); // completed: hidden until asked for

    // The checkbox beside its words, on the filter box's line, and it works.
    const box = page.getByRole('checkbox', { name: /Show the completed ones \(\d+\)/ });
    const words = page.getByText(/^Show the completed ones/);
    const [b, w, f] = await Promise.all([box.boundingBox(), words.boundingBox(), filter.boundingBox()]);
    expect(b!.x + b!.width).toBeLessThanOrEqual(w!.x); // left of its words
    expect(w!.x - (b!.x + b!.width)).toBeLessThan(16); // right beside them
    expect(Math.abs(b!.y + b!.height / 2 - (w!.y + w!.height / 2))).toBeLessThan(3); // centred on them
    expect(Math.abs(b!.y + b!.height / 2 - (f!.y + f!.height / 2))).toBeLessThan(4); // on the box's line
    expect(b!.x).toBeGreaterThan(f!.x + f!.width); // beside the filter box
    await screenshot(page, 'ui-gate-expected-tools');
    await box.check();
    await expect.poll(codes).toContain(other.code);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // 320 CSS px: the page does not scroll sideways, the two controls stack, the box still beside its words.
    await page.setViewportSize({ width: 320, height: 640 });
    await page.waitForTimeout(300);
    expect(await sidewaysOverflow(page)).toEqual([]);
    const [nb, nw, nf] = await Promise.all([box.boundingBox(), words.boundingBox(), filter.boundingBox()]);
    expect(nb!.y).toBeGreaterThan(nf!.y + nf!.height); // under the filter box
    expect(nb!.x + nb!.width).toBeLessThanOrEqual(nw!.x);
    expect(nw!.x + nw!.width).toBeLessThanOrEqual(320);
    await screenshot(page, 'ui-gate-expected-320');
    await box.uncheck();
    await page.setViewportSize({ width: 1280, height: 900 });

    // Enter in the box: with two rows left nothing happens; with one, its check-in opens, looked up.
    await filter.fill('shrd5312');
    await expect.poll(codes).toEqual([lsShared.code, prShared.code]);
    await filter.press('Enter');
    await page.waitForTimeout(300);
    expect(new URL(page.url()).pathname).toBe('/gate/expected');
    await filter.fill('bol-77031');
    await expect.poll(codes).toEqual([byRef.code]);
    await filter.press('Enter');
    await page.getByRole('heading', { name: 'Check in' }).waitFor();
    await page.getByText(/Appointment found: Gulf Coast/).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
  }, 90_000);

  it('a ref typed in the appointment field fills the check-in, and the movement carries the appointment', async () => {
    await page.getByRole('link', { name: /Check in/ }).click();
    await page.getByRole('heading', { name: 'Check in' }).waitFor();
    const field = page.getByLabel('Appointment code');
    await field.fill('bol-77031');
    await field.press('Enter');
    await page
      .getByText(/Appointment found: Gulf Coast[^,]*, Gate test live unload at [^,]+, Door 3\./)
      .waitFor();
    expect(await field.inputValue()).toBe(byRef.code); // the code replaces the ref, as a scan would
    expect(await page.getByRole('combobox', { name: 'Trailer number' }).inputValue()).toBe('GCCA5311');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('heading', { name: /Checked in: GCCA5311/ }).waitFor();
    const movement = db()
      .prepare(
        "SELECT m.appointment_id FROM movement m JOIN trailer t ON t.id = m.trailer_id WHERE t.number = 'GCCA5311'",
      )
      .all();
    expect(movement).toEqual([{ appointment_id: byRef.id }]);
    expect(
      db().prepare('SELECT movement_id IS NOT NULL AS linked FROM appointment WHERE id = ?').get(byRef.id),
    ).toEqual({ linked: 1 });
  }, 90_000);

  it('a trailer number two carriers booked lists both; the clerk picks the carrier’s with the keyboard and checks in', async () => {
    const field = page.getByLabel('Appointment code');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('ci-code');
    await page.keyboard.type('shrd5312\n');
    const list = page.getByRole('listbox', { name: "Today's appointments that match" });
    await page.getByText('2 appointments today match shrd5312').waitFor();
    const options = list.getByRole('option');
    expect(await options.count()).toBe(2);
    expect(await options.nth(0).textContent()).toContain('Lone Star Logistics');
    expect(await options.nth(1).textContent()).toContain('Prairie Haulers');
    expect(await field.getAttribute('aria-expanded')).toBe('true');
    await screenshot(page, 'ui-gate-check-in-choose-appointment');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // Down to the Prairie Haulers booking, Enter: the form fills from it.
    await page.keyboard.press('ArrowDown');
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page
      .getByText(/Appointment found: Prairie Haulers, Gate test live unload at [^,]+, Door 6\./)
      .waitFor();
    expect(await list.isHidden()).toBe(true);
    expect(await field.inputValue()).toBe(prShared.code);
    expect(await page.getByRole('combobox', { name: 'Carrier (name or SCAC)' }).inputValue()).toMatch(
      /^Prairie Haulers/,
    );
    expect(await page.locator('#ci-spot option:checked').textContent()).toBe('Door 6 (booked, suggested)');
    await screenshot(page, 'ui-gate-check-in-chosen-appointment');
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    await page.getByRole('heading', { name: /Checked in: SHRD5312/ }).waitFor();
    const movements = db()
      .prepare(
        "SELECT m.appointment_id, m.carrier_id FROM movement m JOIN trailer t ON t.id = m.trailer_id WHERE t.number = 'SHRD5312'",
      )
      .all();
    expect(movements).toEqual([{ appointment_id: prShared.id, carrier_id: carriers.PRHL }]);
    const status = db().prepare('SELECT arrived_at IS NOT NULL AS arrived FROM appointment WHERE id = ?');
    expect(status.get(prShared.id)).toEqual({ arrived: 1 });
    expect(status.get(lsShared.id)).toEqual({ arrived: 0 });
  }, 90_000);
});
