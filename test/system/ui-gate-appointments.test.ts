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
  const config = await apiCall('PUT', `/api/appointment/config/${yardId}`, {
    enabled: true,
    openHours: Object.fromEntries(
      ['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, [{ from: '00:00', to: '24:00' }]]),
    ),
    leadTimeMinMinutes: 0,
    lateGraceMinutes: 15,
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
  const carrierList = (await apiCall('GET', '/api/carrier?limit=100')).body.items;
  carriers = Object.fromEntries(['LSLG', 'PRHL', 'GCCA'].map((s) => [s, byName(carrierList, s).id]));
  // Today, on the quarter hour: the one now is due, the one an hour before is late (grace 15 min).
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
