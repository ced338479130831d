import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUserWorded } from '../../shared/ui/common/api/words.js';
import {
  type DemoEdge,
  launchChromium,
  logIn,
  openPage,
  screenshot,
  startDemoEdge,
} from '../helpers/browser.js';

/**
 * What the apps say when the server refuses, read as a clerk reads it, on the demo edge in
 * Chromium: a check-in of a trailer the yard already holds, a walk-in driver with an empty name
 * and a licence number but no region, an invoice generated over the month's draft. Every message
 * on screen is in the user's words (common/api/words.ts): no problem code, no id, no HTTP verb, no
 * field name in camelCase, none of zod's "expected".
 */
let edge: DemoEdge;
let browser: Browser;
let page: Page;

const RAW = [
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i,
  /\b(PUT|POST|PATCH|DELETE)\b/,
  /\b[a-z]+[A-Z][A-Za-z]*\b/,
  /expected|Too small|Invalid input|force: true|already-in-yard|invoice-exists|site-catching-up|validation-failed/,
];

/** The messages on screen: alerts, form messages and field errors, as shown. */
async function messages(p: Page): Promise<string[]> {
  const texts = await p
    .locator('[role="alert"], .message, .field .error')
    .evaluateAll((els) =>
      els
        .filter((e) => (e as HTMLElement).offsetParent !== null)
        .map((e) => (e as HTMLElement).innerText.trim()),
    );
  return [...new Set(texts.filter(Boolean))];
}

async function expectUserWorded(p: Page): Promise<string[]> {
  const shown = await messages(p);
  expect(shown.length).toBeGreaterThan(0);
  for (const text of shown) {
    for (const raw of RAW) expect(text, text).not.toMatch(raw);
    // Whole messages, line by line (a button's label may share the box).
    for (const line of text.split('\n').filter((l) => l.trim())) expect(isUserWorded(line), line).toBe(true);
  }
  return shown;
}

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
  page = await openPage(browser);
  await page.goto(`${edge.url}/gate/`);
  await logIn(page, edge.admin.username, edge.admin.password);
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('messages a user can see', () => {
  it('a check-in of a trailer already in the yard', async () => {
    await page.goto(`${edge.url}/gate/`);
    const trailer = page.getByRole('combobox', { name: 'Trailer number' });
    await trailer.fill('lslg 5300'); // the demo's LSLG5300, in the yard
    await page.getByRole('option', { name: /LSLG5300/ }).click();
    await page.getByRole('button', { name: /Check in and open gate/ }).click();
    await page.locator('[role="alert"]').first().waitFor();
    await screenshot(page, 'ui-words-already-in-yard');
    await page.getByText(/LSLG5300 is already in this yard/).waitFor();
    const shown = await expectUserWorded(page);
    expect(shown.join(' ')).toMatch(/Check it out first, or record the check-in anyway/);
    await screenshot(page, 'ui-words-already-in-yard');
  });

  it('a walk-in driver with an empty first name and a licence number but no region', async () => {
    await page.goto(`${edge.url}/gate/drivers`);
    await page.getByLabel('Last name').fill('Brooks');
    await page.getByLabel('Licence number').fill('TX998877');
    await page.getByRole('button', { name: 'Register driver' }).click();
    await page.locator('#dr-firstName-error').waitFor();
    const shown = await expectUserWorded(page);
    expect(await page.locator('#dr-firstName-error').innerText()).toBe('Must not be empty.');
    expect(shown.join(' ')).not.toMatch(/Too small|>=1/);
    // The name given: the licence rule (checked once the form's values are well-formed) speaks.
    await page.getByLabel('First name').fill('Dale');
    await page.getByRole('button', { name: 'Register driver' }).click();
    await page
      .getByText(/licence region/i)
      .first()
      .waitFor();
    const then = await expectUserWorded(page);
    expect(then.join(' ')).not.toMatch(/licenseNumber|licenseRegion|go together/);
    await screenshot(page, 'ui-words-driver-register');
  });

  it('generating an invoice over the month’s existing draft', async () => {
    await page.goto(`${edge.url}/dashboard/billing/invoices`);
    const generate = page.getByRole('form', { name: 'Generate an invoice' });
    await generate.waitFor();
    await generate.getByLabel('Carrier').selectOption({ label: 'Lone Star Logistics (LSLG)' });
    await generate.getByRole('button', { name: 'Generate draft' }).click();
    await page.getByRole('heading', { name: /^Invoice DAL1-/ }).waitFor();
    await page.goto(`${edge.url}/dashboard/billing/invoices`);
    await generate.waitFor();
    await generate.getByLabel('Carrier').selectOption({ label: 'Lone Star Logistics (LSLG)' });
    await generate.getByRole('button', { name: 'Generate draft' }).click();
    await page.getByText(/already exists for this yard, carrier and month/).waitFor();
    const shown = await expectUserWorded(page);
    expect(shown.join(' ')).not.toMatch(/replace the draft/);
    await screenshot(page, 'ui-words-invoice-exists');
  });
});
