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
 * The gate clerk's check-in, in Debian's Chromium against the demo edge started as a user starts
 * it: a truck and a new trailer with a driver the admission check refuses, admitted by override;
 * a field error from the server on its field; the gate's picture and the simulated relay's pulse;
 * the movement row in the edge's database; a walk-in driver registered from the check-in.
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;
let token: string;

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

beforeAll(async () => {
  edge = await startDemoEdge();
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  token = ((await login.json()) as { token: string }).token;
  browser = await launchChromium();
  page = await openPage(browser);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('gate house: check-in', () => {
  it('checks in a truck and a new trailer with a refused driver by override; picture, relay, row', async () => {
    const carriers = (await apiCall('GET', '/api/carrier?q=PRHL')).body.items;
    const blocked = await apiCall('POST', '/api/driver', {
      kind: 'carrier',
      carrierId: carriers[0].id,
      firstName: 'Rex',
      lastName: 'Stopper',
      phone: '+12145550777',
      status: 'blocked',
      blockedReason: 'unpaid yard fines',
    });
    expect(blocked.status).toBe(201);

    await page.goto(`${edge.url}/gate/`);
    await logIn(page, edge.admin.username, edge.admin.password);
    await page.getByRole('heading', { name: 'Check in' }).waitFor();
    const trailer = page.getByRole('combobox', { name: 'Trailer number' });
    // The appointment code comes first (UI.md: a scanner types into it); a walk-in leaves it empty.
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('ci-code');
    // The suggested spot: S01-S04 hold the demo's trailers, S09 is promised to a yard task.
    await expect.poll(() => page.getByLabel('Spot').inputValue()).not.toBe('');
    const spotText = await page.locator('#ci-spot option:checked').textContent();
    expect(spotText).toBe('S05 (suggested)');
    await screenshot(page, 'ui-check-in-empty');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await trailer.fill('NEWU 482113');
    await page.getByText('New trailer: it is registered with this check-in.').waitFor();
    await page.getByRole('combobox', { name: 'Truck plate' }).fill('TX 9911');
    await page.getByRole('combobox', { name: 'Carrier (name or SCAC)' }).fill('prhl');
    await page.getByRole('option', { name: /Prairie Haulers/ }).click();
    const driver = page.getByRole('combobox', { name: /^Driver/ });
    await driver.fill('Rex');
    await page.getByRole('option', { name: /Rex Stopper/ }).waitFor();
    await driver.press('ArrowDown'); // the arrows move through the list, Enter picks
    await driver.press('ArrowUp');
    await driver.press('Enter');
    await page.getByText('Refused', { exact: true }).waitFor();
    await page.getByText('The driver is blocked: unpaid yard fines.').waitFor();
    await page.getByLabel('Admit anyway: reason (recorded)').fill('Fines paid at the office, receipt 5521');
    // A seal the server refuses (over 40 characters): its message lands on the seal field.
    await page.getByLabel('Seal number').fill('S'.repeat(41));
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    const sealError = page.locator('#ci-seal-error');
    await sealError.waitFor();
    expect(await sealError.textContent()).toMatch(/40/);
    expect(await page.getByLabel('Seal number').getAttribute('aria-invalid')).toBe('true');
    expect(db().prepare("SELECT count(*) AS n FROM movement WHERE seal_number LIKE 'SSSS%'").get()).toEqual({
      n: 0,
    });

    await page.getByLabel('Seal number').fill('SL-4242');
    await screenshot(page, 'ui-check-in-refused-driver-override');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.keyboard.press('Control+Enter');

    await page.getByRole('heading', { name: /Checked in: NEWU 482113/ }).waitFor();
    await page.getByText(/Recorded, and North gate \(in\) opened/).waitFor();
    const picture = page.locator('.pictures img');
    await picture.waitFor();
    await expect
      .poll(() => picture.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    expect(await picture.getAttribute('src')).toMatch(/^blob:/);
    // The form is cleared for the next truck, the focus back on the first field (the code).
    expect(await trailer.inputValue()).toBe('');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('ci-code');
    await screenshot(page, 'ui-check-in-confirmation');
    expect(await seriousA11yViolations(page)).toEqual([]);

    const row = db()
      .prepare(
        `SELECT m.id, m.override_reason, m.seal_number, m.load_status, l.name AS spot, t.number, m.gate_id,
                m.attachment_ids
           FROM movement m JOIN location l ON l.id = m.location_id JOIN trailer t ON t.id = m.trailer_id
          WHERE m.driver_id = ?`,
      )
      .get(blocked.body.id) as Record<string, string>;
    expect(row).toMatchObject({
      override_reason: 'Fines paid at the office, receipt 5521',
      seal_number: 'SL-4242',
      load_status: 'loaded',
      spot: 'S05',
      number: 'NEWU 482113',
    });
    expect(JSON.parse(row.attachment_ids ?? '[]')).toHaveLength(1);
    const actuations = await apiCall('GET', `/api/hardware/gate/${row.gate_id}/actuations`);
    expect(actuations.body.items[0]).toMatchObject({ movementId: row.id, result: 'ok' });

    // The next suggestion moved on: S05 is taken now.
    await expect.poll(() => page.locator('#ci-spot option:checked').textContent()).toBe('S06 (suggested)');
    // Another desk checks a trailer in onto S06: the suggestion moves on live, and the clerk is told.
    const s06 = db().prepare("SELECT id, yard_id FROM location WHERE name = 'S06'").get() as Record<
      string,
      string
    >;
    const elsewhere = await apiCall('POST', '/api/movement', {
      yardId: s06.yard_id,
      direction: 'in',
      trailer: { number: 'OTHR 100200' },
      locationId: s06.id,
    });
    expect(elsewhere.status).toBe(201);
    await expect.poll(() => page.locator('#ci-spot option:checked').textContent()).toBe('S07 (suggested)');
    await page.getByText('S06 was just taken at another desk').waitFor();
  });

  it('registers a walk-in driver from the check-in and comes back with the driver filled in', async () => {
    const driver = page.getByRole('combobox', { name: /^Driver/ });
    await driver.fill('Wanda Walkin');
    await page.getByRole('button', { name: 'Not found? Register a walk-in driver' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByLabel('First name').inputValue()).toBe('Wanda');
    expect(await dialog.getByLabel('Last name').inputValue()).toBe('Walkin');
    await dialog.getByLabel('Phone').fill('214 555');
    await dialog.getByRole('combobox', { name: 'Carrier (name or SCAC)' }).fill('LSLG');
    await dialog.getByRole('option', { name: /Lone Star Logistics/ }).click();
    await dialog.getByRole('button', { name: 'Register driver' }).click();
    // The server's rule on the phone, shown on the phone field; nothing written.
    await dialog.locator('#dr-phone-error').waitFor();
    await dialog.getByLabel('Phone').fill('+1 214 555 0199');
    await dialog.getByRole('button', { name: 'Register driver' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await driver.inputValue()).toBe('Wanda Walkin');
    await page.getByText('Allowed in').waitFor();
    const saved = db()
      .prepare(
        "SELECT kind, phone, carrier_id FROM driver WHERE first_name = 'Wanda' AND last_name = 'Walkin'",
      )
      .all();
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ kind: 'carrier', phone: '+12145550199' });

    await page.goto(`${edge.url}/gate/drivers`);
    await page.getByRole('heading', { name: 'Known drivers' }).waitFor();
    await page.getByLabel('Find by name, phone or licence').fill('walkin');
    await page.getByRole('cell', { name: 'Wanda Walkin', exact: true }).waitFor();
    await screenshot(page, 'ui-drivers');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: /^Check in\W+Wanda Walkin/ }).click();
    await page.getByRole('heading', { name: 'Check in' }).waitFor();
    expect(await page.getByRole('combobox', { name: /^Driver/ }).inputValue()).toBe('Wanda Walkin');
  });

  it('keeps the typed check-in over a reload and over an ended session (login dialog over the screen)', async () => {
    await page.goto(`${edge.url}/gate/`);
    const trailer = page.getByRole('combobox', { name: 'Trailer number' });
    await trailer.fill('KEEP 000111');
    await page.getByLabel('Seal number').fill('SL-77');
    await page.reload();
    await page.getByRole('heading', { name: 'Check in' }).waitFor();
    expect(await trailer.inputValue()).toBe('KEEP 000111');
    expect(await page.getByLabel('Seal number').inputValue()).toBe('SL-77');

    // The session ends on the server, as when a token expires.
    await page.evaluate(`(async () => {
      const { token } = JSON.parse(localStorage.getItem('yard.session'));
      await fetch('/api/auth/logout', { method: 'POST', headers: { authorization: 'Bearer ' + token } });
    })()`);
    // The live stream hears of it (or the next call gets 401): the login dialog opens over the form.
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Your session has ended' }).waitFor();
    await dialog.getByLabel('Password').fill(edge.admin.password);
    await dialog.getByRole('button', { name: 'Log in', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await trailer.inputValue()).toBe('KEEP 000111');
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    await page.getByRole('heading', { name: /Checked in: KEEP 000111/ }).waitFor();
    const row = db().prepare("SELECT seal_number FROM movement WHERE seal_number = 'SL-77'").all();
    expect(row).toHaveLength(1);
  });

  it('offers to record anyway a trailer the yard already holds, with the server warning', async () => {
    const trailer = page.getByRole('combobox', { name: 'Trailer number' });
    await trailer.fill('lslg 5300'); // the demo's trailer LSLG5300, typed loosely
    await page.getByRole('option', { name: /LSLG5300/ }).click();
    await page.getByText(/recorded as in a yard already/).waitFor();
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    await page.getByText(/Trailer LSLG5300 is already in this yard/).waitFor();
    await page.getByRole('button', { name: 'Record anyway' }).click();
    await page.getByRole('heading', { name: /Checked in: LSLG5300/ }).waitFor();
    await page.getByText(/Recorded anyway:/).waitFor();
    const rows = db()
      .prepare(
        "SELECT m.warnings FROM movement m JOIN trailer t ON t.id = m.trailer_id WHERE t.number = 'LSLG5300' ORDER BY m.at",
      )
      .all() as { warnings: string }[];
    expect(rows).toHaveLength(2);
    expect(rows[1]?.warnings).toMatch(/already-in-yard/);
  });
  it('asks before registering a second trailer under a known number, and names the right container check digit', async () => {
    const trailer = page.getByRole('combobox', { name: 'Trailer number' });
    const carrier = page.getByRole('combobox', { name: 'Carrier (name or SCAC)' });
    const checkIn = page.getByRole('button', { name: /Check in and open gate/ });
    const count = (number: string) =>
      (db().prepare('SELECT count(*) AS n FROM trailer WHERE number = ?').get(number) as { n: number }).n;
    // The demo's LSLG5303 is Lone Star's; the clerk types it but picks another carrier.
    expect(count('LSLG5303')).toBe(1);
    await trailer.fill('LSLG5303');
    await carrier.fill('prhl');
    await page.getByRole('option', { name: /Prairie Haulers/ }).click();
    await checkIn.click();
    const ask = page.getByRole('alert').filter({ hasText: 'already known' });
    await ask
      .getByText(/A trailer with number LSLG5303 is already known: LSLG5303 of Lone Star Logistics/)
      .waitFor();
    await screenshot(page, 'ui-check-in-same-number');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(count('LSLG5303')).toBe(1);
    await ask.getByRole('button', { name: 'It is a different trailer: check it in' }).click();
    await page.getByRole('heading', { name: /Checked in: LSLG5303/ }).waitFor();
    expect(count('LSLG5303')).toBe(2);
    const warned = db()
      .prepare(
        "SELECT m.warnings FROM movement m JOIN trailer t ON t.id = m.trailer_id WHERE t.number = 'LSLG5303' ORDER BY m.created_at DESC",
      )
      .get() as { warnings: string };
    expect(warned.warnings).toMatch(/same-number-confirmed/);

    // A container number with a wrong check digit: the right one is named and can be used at once.
    await trailer.fill('CSQU 305438 0');
    await checkIn.click();
    const digit = page.getByRole('alert').filter({ hasText: 'check digit' });
    await digit
      .getByText('CSQU 305438 0 fails the container check digit: the last digit should be 3 (CSQU 305438 3).')
      .waitFor();
    await screenshot(page, 'ui-check-in-check-digit');
    expect(count('CSQU 305438 0')).toBe(0);
    await digit.getByRole('button', { name: 'Use CSQU 305438 3' }).click();
    expect(await trailer.inputValue()).toBe('CSQU 305438 3');
    await checkIn.click();
    await page.getByRole('heading', { name: /Checked in: CSQU 305438 3/ }).waitFor();
    expect(count('CSQU 305438 3')).toBe(1);
  });
});
