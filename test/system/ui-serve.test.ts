import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoEdge,
  launchChromium,
  logIn,
  screenshot,
  startDemoEdge,
  watchedPage,
} from '../helpers/browser.js';

/**
 * The built web apps as the demo edge serves them, in Chromium: the pages work under their
 * Content-Security-Policy (no violation reported), with brotli copies, and deep links load the app.
 * Needs `npm run build:ui` first.
 */
let edge: DemoEdge;
let browser: Browser;

beforeAll(async () => {
  edge = await startDemoEdge();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

describe('the web apps in a browser', () => {
  it('the gate app loads under its CSP, brotli-encoded, and its deep links open the screen', async () => {
    const { page, problems } = await watchedPage(browser);
    const home = await page.goto(`${edge.url}/`);
    expect(home?.status()).toBe(200);
    await page.getByRole('heading', { name: /log in/ }).waitFor();
    await screenshot(page, 'serve-home');

    const first = await page.goto(`${edge.url}/gate/`);
    expect(first?.status()).toBe(200);
    expect(first?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(first?.headers()['content-encoding']).toBe('br');
    await logIn(page, edge.admin.username, edge.admin.password);
    await page.getByRole('link', { name: /Check out/ }).waitFor();
    await page.getByRole('navigation').waitFor();
    await screenshot(page, 'serve-gate');

    // A deep link typed or reloaded: the server answers the app's page, the router the screen.
    const deep = await page.goto(`${edge.url}/gate/check-out`);
    expect(deep?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Check out' }).waitFor();
    expect(await page.getByText('There is no such screen').count()).toBe(0);
    await screenshot(page, 'serve-gate-deep-link');
    expect(problems).toEqual([]);

    // The watch works: an inline script, which the policy forbids, is reported.
    await page.addScriptTag({ content: 'window.inlineRan = true;' }).catch(() => undefined);
    await expect.poll(() => problems.some((p) => /script-src/.test(p))).toBe(true);
    expect(await page.evaluate(() => (window as { inlineRan?: boolean }).inlineRan)).toBeUndefined();
    await page.close();
  });

  it('/gate redirects to /gate/', async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${edge.url}/gate`);
    expect(new URL(page.url()).pathname).toBe('/gate/');
    expect(problems).toEqual([]);
    await page.close();
  });
});
