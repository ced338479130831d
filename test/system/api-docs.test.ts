import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../shared/http/page-headers.js';
import { type DemoEdge, launchChromium, screenshot, startDemoEdge, watchedPage } from '../helpers/browser.js';

/**
 * The interactive API docs at /docs in Chromium, as the demo edge serves them: the page carries the
 * web apps' security headers (docs/api.md "Web apps") and works under them (no violation reported),
 * "Authorize" and "Try it out" answer, the pasted token is not kept in the browser's storage, and
 * another site cannot frame the page.
 */
let edge: DemoEdge;
let browser: Browser;

beforeAll(async () => {
  edge = await startDemoEdge();
  browser = await launchChromium();
}, 150_000);
afterAll(async () => {
  await browser?.close();
  await edge?.stop();
});

async function adminToken(): Promise<string> {
  const res = await fetch(`${edge.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(edge.admin),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

describe('/docs in a browser', { timeout: 240_000 }, () => {
  it("loads under the apps' CSP; Authorize and Try it out work; the token is not stored", async () => {
    const { page, problems } = await watchedPage(browser);
    const res = await page.goto(`${edge.url}/docs`);
    expect(res?.status()).toBe(200);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-content-type-options']).toBe('nosniff');

    // Swagger UI renders the operations as they scroll into view: the first tag's are there once it
    // has read the whole document (slow on a busy machine).
    const op = page.locator('.opblock', { has: page.locator('[data-path="/api/sync/status"]') });
    await op.waitFor({ timeout: 90_000 });
    await screenshot(page, 'docs-loaded');

    const token = await adminToken();
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.modal-ux');
    const bearer = dialog.locator('.auth-container', { hasText: 'bearerAuth' });
    await bearer.locator('input').fill(token);
    await bearer.getByRole('button', { name: 'Apply credentials' }).click();
    await bearer.getByRole('button', { name: 'Remove authorization' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).first().click();

    await op.locator('.opblock-summary-control').click();
    await op.getByRole('button', { name: 'Try it out' }).click();
    await op.getByRole('button', { name: 'Execute' }).click();
    const answer = op.locator('.live-responses-table .response');
    await answer.locator('.response-col_status', { hasText: '200' }).waitFor({ timeout: 60_000 });
    expect(await answer.locator('.response-col_description').innerText()).toContain('"mode": "standalone"');
    await screenshot(page, 'docs-try-it-out');

    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(stored).not.toContain(token);
    // Nothing Swagger UI did was refused by the policy, and every file it asked for was there.
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a page of another site cannot frame /docs', async () => {
    const { page, problems } = await watchedPage(browser);
    // Another origin: the same host by another name.
    const other = edge.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${other}/healthz`);
    await page.setContent(`<iframe src="${edge.url}/docs" title="docs"></iframe>`);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    await expect.poll(() => problems.some((p) => /frame-ancestors/.test(p))).toBe(true);
    expect(
      await frame
        ?.locator('#swagger-ui')
        .count()
        .catch(() => 0),
    ).toBe(0);
    await page.close();
  });
});
