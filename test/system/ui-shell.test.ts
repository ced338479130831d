import type { Browser } from 'playwright-core';
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
 * The frame every app shares, in Debian's Chromium against the demo edge as a user starts it:
 * the login at `/`, the role-aware home sending a gate clerk to the gate house, the header's link
 * badge and live state, logout.
 */
let edge: DemoEdge;
let browser: Browser;

beforeAll(async () => {
  [edge, browser] = await Promise.all([startDemoEdge(), launchChromium()]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

async function createUser(username: string, role: string): Promise<void> {
  const login = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  const { token } = (await login.json()) as { token: string };
  const res = await fetch(`${edge.url}/api/user`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ username, password: `${username}-password-1`, role, displayName: `Pat ${role}` }),
  });
  expect(res.status).toBe(201);
}

describe('the apps frame', () => {
  it('logs a gate clerk in at / and sends them to the gate house, with the link and live badges', async () => {
    await createUser('clerk1', 'gate');
    const page = await openPage(browser);
    await page.goto(`${edge.url}/`);
    await expect
      .poll(() => page.getByRole('heading', { name: 'Yard service: log in' }).isVisible())
      .toBe(true);
    await screenshot(page, 'home-login');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // A wrong password says what went wrong and keeps the username.
    await logIn(page, 'clerk1', 'not-the-password');
    await page.getByText('Wrong username or password').waitFor();
    expect(await page.getByLabel('Username').inputValue()).toBe('clerk1');

    await logIn(page, 'clerk1', 'clerk1-password-1');
    await page.waitForURL(`${edge.url}/gate/`);
    const header = page.getByRole('banner');
    await header.getByText('Standalone site').waitFor();
    await header.getByText('Live', { exact: true }).waitFor();
    await header.getByText('clerk1').waitFor();
    expect(
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents(),
    ).toEqual([
      'Check inAlt+I',
      'ExpectedAlt+E',
      'Check outAlt+O',
      'LanesAlt+L',
      'YardAlt+Y',
      'MovementsAlt+M',
      'DriversAlt+D',
    ]);
    // A reload keeps the shift going (the token is kept until it expires).
    await page.reload();
    await header.getByText('Live', { exact: true }).waitFor();

    await header.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Gate house: log in' }).waitFor();
    const token = await page.evaluate(() =>
      (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(
        'yard.session',
      ),
    );
    expect(token).toBeNull();
    await page.close();
  });

  it('takes a billing user from the home page to the dashboard, without the gate house', async () => {
    await createUser('bill1', 'billing');
    const page = await openPage(browser);
    await page.goto(`${edge.url}/`);
    await logIn(page, 'bill1', 'bill1-password-1');
    // The dashboard is the one app for the billing role: the home goes straight there.
    await page.waitForURL(`${edge.url}/dashboard/`);
    await page.getByRole('link', { name: /Billing/ }).waitFor();
    expect(await page.getByRole('link', { name: /Check in/ }).count()).toBe(0);
    await screenshot(page, 'home-billing');
    await page.close();
  });
});
