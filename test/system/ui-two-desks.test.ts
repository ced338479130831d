import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoEdge,
  launchChromium,
  logIn,
  openPage,
  screenshot,
  startDemoEdge,
} from '../helpers/browser.js';

/**
 * Two gate desks, each its own browser, on the demo edge started as a user starts it: a trailer
 * checked in through the screens at one desk appears in the other desk's yard inventory and
 * movement log without a reload (live events), and the row is in the edge's database.
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

describe('two gate desks', () => {
  it('a check-in made at one desk appears at the other without reload', async () => {
    const deskA = await openPage(browser);
    const deskB = await openPage(browser);
    await deskA.goto(`${edge.url}/gate/yard`);
    await logIn(deskA, edge.admin.username, edge.admin.password);
    await deskA.getByRole('heading', { name: /Yard inventory/ }).waitFor();
    await deskA.getByRole('banner').getByText('Live', { exact: true }).waitFor();
    const rows = deskA.locator('table.inventory tbody th[scope="row"]');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    const before = await rows.count();

    await deskB.goto(`${edge.url}/gate/`);
    await logIn(deskB, edge.admin.username, edge.admin.password);
    const trailer = deskB.getByRole('combobox', { name: 'Trailer number' });
    await trailer.fill('DESK 770001');
    await deskB.getByText('New trailer: it is registered with this check-in.').waitFor();
    await deskB.getByLabel('Seal number').fill('SL-7700');
    await deskB.getByRole('button', { name: /Check in and open gate/ }).click();
    await deskB.getByRole('heading', { name: /Checked in: DESK 770001/ }).waitFor();

    // Desk A was not touched: the row arrives over /api/events.
    await deskA.getByRole('rowheader', { name: 'DESK 770001' }).waitFor();
    expect(await rows.count()).toBe(before + 1);
    await screenshot(deskA, 'two-desks-inventory-live');

    await deskA.getByRole('link', { name: /Movements/ }).click();
    await deskA.getByText('DESK 770001').first().waitFor();

    const db = new Database(edge.dbFile, { readonly: true, fileMustExist: true });
    try {
      const row = db
        .prepare(
          `SELECT m.direction, m.seal_number, t.yard_id IS NOT NULL AS in_yard FROM movement m JOIN trailer t ON t.id = m.trailer_id
            WHERE t.number = 'DESK 770001'`,
        )
        .get();
      expect(row).toEqual({ direction: 'in', seal_number: 'SL-7700', in_yard: 1 });
    } finally {
      db.close();
    }
  });
});
