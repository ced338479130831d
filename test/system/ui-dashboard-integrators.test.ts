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
import { Client } from '../helpers/http.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { readDb } from '../helpers/sync-processes.js';
import { verify, WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The dashboard's Admin > Email, Admin > Webhooks and the carrier user in the user form, in
 * Chromium against the demo edge (standalone: it sends mail and webhooks itself), with a real SMTP
 * server and a real https receiver in the test process (both on loopback, which the edge is told to
 * allow, as a lab would). Each step checks what the admin sees and what the servers received.
 */
const SMTP_USER = 'yard-mail';
const SMTP_PASSWORD = 'smtp-secret-for-the-ui-test';

let edge: DemoEdge;
let browser: Browser;
let page: Page;
let api: Client;
let sink: SmtpSink;
let receiver: WebhookReceiver;
/** A demo carrier with upcoming bookings to cancel, given a contact email. */
let carrier: { id: string; name: string; upcoming: string[] };

const text = (l: Locator) => expect.poll(() => l.textContent(), { timeout: 15_000 });
const shown = (l: Locator) => l.waitFor({ state: 'visible', timeout: 15_000 });
const gone = (l: Locator) => l.waitFor({ state: 'hidden', timeout: 15_000 });

async function cancel(appointmentId: string) {
  const res = await api.post(`/api/appointment/${appointmentId}/cancel`, { reason: 'Load not ready' });
  expect(res.status, res.text).toBe(200);
}

async function axeClean(name: string) {
  expect(await seriousA11yViolations(page), name).toEqual([]);
}

beforeAll(async () => {
  sink = await new SmtpSink({ username: SMTP_USER, password: SMTP_PASSWORD }).start();
  receiver = await new WebhookReceiver().start();
  edge = await startDemoEdge({
    env: {
      YARD_EMAIL_ALLOW_LOCAL_SMTP: 'true',
      YARD_WEBHOOKS_ALLOW_LOCAL_ENDPOINTS: 'true',
      YARD_WEBHOOKS_CA_FILE: receiver.caFile,
    },
  });
  const login = await new Client(edge.url).post('/api/auth/login', edge.admin);
  api = new Client(edge.url, login.body.token);
  const list = await api.get(
    `/api/appointment?status=scheduled&from=${encodeURIComponent(new Date().toISOString())}&limit=200`,
  );
  expect(list.status, list.text).toBe(200);
  const byCarrier = new Map<string, string[]>();
  for (const a of list.body.items as { id: string; carrierId: string }[]) {
    byCarrier.set(a.carrierId, [...(byCarrier.get(a.carrierId) ?? []), a.id]);
  }
  const [carrierId, upcoming] = [...byCarrier].sort((a, b) => b[1].length - a[1].length)[0]!;
  expect(upcoming.length).toBeGreaterThanOrEqual(2);
  const c = await api.get(`/api/carrier/${carrierId}`);
  const patched = await api.patch(`/api/carrier/${carrierId}`, {
    contact: { name: 'Dispatch desk', email: 'dispatch@carrier.example' },
  });
  expect(patched.status, patched.text).toBe(200);
  carrier = { id: carrierId, name: c.body.name, upcoming };
  browser = await launchChromium();
  page = await openPage(browser, { viewport: { width: 1440, height: 900 } });
  await page.goto(`${edge.url}/dashboard/admin/email`);
  await logIn(page, edge.admin.username, edge.admin.password);
  await shown(page.getByRole('heading', { name: 'Email to carriers' }));
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await edge?.stop();
  await sink?.stop();
  await receiver?.stop();
});

describe('Admin > Email', () => {
  it('stores the SMTP server with a write-only password, keeps it when left blank, and sends a test mail', async () => {
    await text(page.getByTestId('email-state')).toContain('Email is off: no server is set.');
    const form = page.getByRole('form', { name: 'Mail server (SMTP)' });
    await form.getByLabel('Server (required)').fill('127.0.0.1');
    await form.getByLabel('Port (required)').fill(String(sink.port));
    await form.getByLabel('Security').selectOption('none');
    await form.getByLabel('User name').fill(SMTP_USER);
    await form.getByLabel('Password', { exact: true }).fill(SMTP_PASSWORD);
    await form.getByLabel('From address (required)').fill('gate@yard.example');
    await form.getByRole('button', { name: 'Save email settings' }).click();
    await text(page.getByTestId('email-state')).toContain('Email is on, through 127.0.0.1.');
    // Write-only: the field is empty again, and says a password is kept.
    await expect.poll(() => form.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    await text(form.locator('#email-password-hint')).toContain(
      'A password is stored: leave blank to keep it.',
    );
    const stored = await api.get('/api/settings/email');
    expect(stored.body).toMatchObject({ configured: true, enabled: true, password: '********' });
    expect(JSON.stringify(stored.body)).not.toContain(SMTP_PASSWORD);

    // A change with the password left blank keeps it: the test mail still authenticates.
    await form.getByLabel('From name').fill('Demo yard gate');
    await form.getByRole('button', { name: 'Save email settings' }).click();
    await expect
      .poll(async () => (await api.get('/api/settings/email')).body.fromName)
      .toBe('Demo yard gate');
    const test = page.getByRole('form', { name: 'Send a test mail' });
    await test.getByLabel('To').fill('ops@yard.example');
    await test.getByRole('button', { name: 'Send test' }).click();
    await text(test.getByRole('status')).toContain('Sent to ops@yard.example.');
    const mails = await sink.waitFor(1);
    expect(mails[0]!.mail.to).toMatchObject({ text: 'ops@yard.example' });
    await axeClean('email settings');
    await screenshot(page, 'dashboard-admin-email');
  });

  it('shows a mail that could not be sent with its error, and Retry sends a failed one', async () => {
    await sink.stop();
    await cancel(carrier.upcoming[0]!);
    const outbox = page.getByTestId('email-outbox');
    const row = outbox.getByRole('row', { name: /Cancellation/ });
    // The first try fails while the server is down; the list shows why.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Read the list again' }).click();
          return (await row.count()) > 0 ? row.textContent() : '';
        },
        { timeout: 20_000 },
      )
      .toMatch(/dispatch@carrier\.example\s*Waiting.*(ECONNREFUSED|connect|refused)/i);

    // 24 hours of retries, simulated: the mail is given up (as the sender marks it).
    const id = readDb(edge.dbFile, (db) => {
      const r = db.prepare("SELECT id FROM email_message WHERE kind = 'cancellation'").get() as {
        id: string;
      };
      return r.id;
    });
    const db = new Database(edge.dbFile);
    db.pragma('busy_timeout = 5000');
    db.prepare("UPDATE email_message SET status = 'failed' WHERE id = ?").run(id);
    db.close();
    await sink.start();
    await page.getByRole('button', { name: 'Read the list again' }).click();
    await text(row).toContain('Failed');
    await axeClean('email outbox with a failure');
    await screenshot(page, 'dashboard-admin-email-failed');
    await page
      .getByRole('button', { name: 'Retry the cancellation mail to dispatch@carrier.example' })
      .click();
    await text(page.getByRole('status').filter({ hasText: 'queued again' })).toContain(
      'The cancellation mail to dispatch@carrier.example is queued again.',
    );
    const got = await sink.waitFor(2, 20_000);
    expect(got[1]!.mail.to).toMatchObject({ text: 'dispatch@carrier.example' });
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Read the list again' }).click();
        return row.textContent();
      })
      .toContain('Sent');
  });
});

describe('Admin > Webhooks', () => {
  let secret = '';

  it('creates an endpoint with chosen events and carrier, shows the secret once with a copy button', async () => {
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Webhooks' }).click();
    await shown(page.getByRole('heading', { name: 'Webhooks' }));
    await text(page.locator('section.integrators')).toContain('No endpoints yet.');
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook endpoint' });
    await dialog.getByLabel('URL (required)').fill(receiver.url);
    await dialog.getByLabel('Description').fill('Carrier TMS');
    await dialog.getByLabel('Appointment booked').check();
    await dialog.getByLabel('Appointment cancelled').check();
    await dialog.getByLabel('Every carrier').uncheck();
    await dialog.getByLabel(carrier.name).check();
    await axeClean('new endpoint form');
    await screenshot(page, 'dashboard-admin-webhook-new');
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    await gone(dialog);
    secret = (await page.getByTestId('webhook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await shown(page.getByRole('button', { name: 'Copy secret' }));
    const row = page.getByTestId('webhook-endpoints').getByRole('row', { name: /Carrier TMS/ });
    await text(row).toContain('Appointment booked, Appointment cancelled');
    await text(row).toContain(carrier.name);
    await text(row).toContain('Enabled');
    const [stored] = (await api.get('/api/webhook')).body.items;
    expect(stored).toMatchObject({
      url: receiver.url,
      events: ['appointment.created', 'appointment.cancelled'],
      carrierIds: [carrier.id],
      yardIds: null,
    });
    expect(JSON.stringify(stored)).not.toContain(secret);
    await axeClean('webhooks with the secret');
    await screenshot(page, 'dashboard-admin-webhooks');
  });

  it('logs each attempt with the receiver’s answer, and Replay sends it again with the same webhook-id', async () => {
    receiver.answer = (n) => (n === 1 ? { status: 500, body: 'busy, try later' } : { status: 204 });
    await cancel(carrier.upcoming[1]!);
    // The first attempt is answered 500; the retry ~5 s later is delivered.
    await receiver.until(2);
    const [first, second] = receiver.received;
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(verify(secret, second!)).toMatchObject({ type: 'appointment.cancelled' });

    await page.getByRole('button', { name: `Deliveries to ${receiver.url}` }).click();
    const log = page.getByTestId('webhook-deliveries');
    const delivery = log.getByRole('listitem').filter({ hasText: 'Appointment cancelled' });
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Read the log again' }).click();
        return delivery.textContent();
      })
      .toContain('Delivered');
    const attempts = delivery.getByRole('table');
    await text(attempts.getByRole('row', { name: /^1 / })).toMatch(/HTTP 500\s*busy, try later/);
    await text(attempts.getByRole('row', { name: /^2 / })).toContain('HTTP 204');
    await axeClean('delivery log');
    await screenshot(page, 'dashboard-admin-webhook-deliveries');

    await delivery.getByRole('button', { name: /^Replay/ }).click();
    await receiver.until(3);
    expect(receiver.received[2]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verify(secret, receiver.received[2]!)).toMatchObject({ type: 'appointment.cancelled' });
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Read the log again' }).click();
        return attempts.getByRole('row', { name: /^3 \(replay\)/ }).count();
      })
      .toBe(1);
  });

  it('pauses, enables and deletes an endpoint', async () => {
    const row = page.getByTestId('webhook-endpoints').getByRole('row', { name: /Carrier TMS/ });
    await page.getByRole('button', { name: `Pause ${receiver.url}` }).click();
    await text(row).toContain('Paused');
    expect((await api.get('/api/webhook')).body.items[0].enabled).toBe(false);
    await page.getByRole('button', { name: `Enable ${receiver.url}` }).click();
    await text(row).toContain('Enabled');
    await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Are you sure?' });
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click();
    await text(page.locator('section.integrators')).toContain('No endpoints yet.');
    expect((await api.get('/api/webhook')).body.items).toEqual([]);
  });
});

describe('Admin > Webhooks for an admin limited to a yard', () => {
  it('offers only that admin’s yards, already ticked, and creates the endpoint for them', async () => {
    const yardList = (await api.get('/api/yard')).body.items as { id: string; name: string; code: string }[];
    const yard = yardList[0]!;
    const created = await api.post('/api/user', {
      username: 'yard.admin',
      password: 'yard-admin-password-1',
      role: 'admin',
      displayName: 'Yard admin',
      yardIds: [yard.id],
    });
    expect(created.status, created.text).toBe(201);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const scoped = await context.newPage();
      await scoped.goto(`${edge.url}/dashboard/admin/webhooks`);
      await logIn(scoped, 'yard.admin', 'yard-admin-password-1');
      await scoped.getByRole('button', { name: 'New endpoint' }).click();
      const dialog = scoped.getByRole('dialog', { name: 'New webhook endpoint' });
      const yards = dialog.getByRole('group', { name: 'Yards' });
      await yards.getByLabel(`${yard.name} (${yard.code})`).waitFor();
      // The server refuses "every yard" from a scoped admin, so the form does not offer it.
      expect(await yards.getByLabel('Every yard').count()).toBe(0);
      expect(await yards.getByLabel(`${yard.name} (${yard.code})`).isChecked()).toBe(true);
      await dialog.getByLabel('URL (required)').fill(receiver.url);
      await dialog.getByLabel('Description').fill('Yard WMS');
      await dialog.getByLabel('Gate check-in or check-out').check();
      await screenshot(scoped, 'dashboard-admin-webhook-scoped');
      await dialog.getByRole('button', { name: 'Create endpoint' }).click();
      await gone(dialog);
      await shown(scoped.getByTestId('webhook-secret'));
      const stored = ((await api.get('/api/webhook')).body.items as { description: string }[]).find(
        (e) => e.description === 'Yard WMS',
      );
      expect(stored).toMatchObject({ yardIds: [yard.id], events: ['movement.created'] });
    } finally {
      await context.close();
    }
  });
});

describe('Admin > Users: carrier users', () => {
  it('creates a carrier user bound to a carrier picked in the form; staff users have no carrier', async () => {
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user' });
    expect(await dialog.getByLabel('Carrier (required)').count()).toBe(0);
    await dialog.getByLabel('Username (required)').fill('carrier.dispatch');
    await dialog.getByLabel('Display name').fill('Carrier dispatch desk');
    await dialog.getByLabel('Role (required)').selectOption('carrier');
    await dialog.getByLabel('Carrier (required)').selectOption(carrier.id);
    await dialog.getByLabel('Password (required)').fill('carrier-password-1');
    await axeClean('carrier user form');
    await screenshot(page, 'dashboard-admin-user-carrier');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await gone(dialog);
    const row = page.getByRole('row', { name: /carrier\.dispatch/ });
    await text(row).toContain('Carrier user');
    await text(row).toContain(carrier.name);
    await axeClean('users with a carrier user');
    await screenshot(page, 'dashboard-admin-users');
    // The carrier user signs in and is bound to that carrier.
    const login = await new Client(edge.url).post('/api/auth/login', {
      username: 'carrier.dispatch',
      password: 'carrier-password-1',
    });
    expect(login.status, login.text).toBe(200);
    const me = await new Client(edge.url, login.body.token).get('/api/auth/me');
    expect(me.body).toMatchObject({ role: 'carrier', carrierId: carrier.id });

    // Editing offers only the roles the server allows: a carrier user stays one, staff stay staff.
    const roles = (dialog: Locator) =>
      dialog.getByLabel('Role (required)').locator('option').allTextContents();
    await page.getByRole('button', { name: 'Edit carrier.dispatch' }).click();
    const editCarrier = page.getByRole('dialog', { name: /Edit user carrier\.dispatch/ });
    await shown(editCarrier);
    expect(await roles(editCarrier)).toEqual(['Carrier user']);
    await editCarrier.getByRole('button', { name: 'Cancel' }).click();
    await gone(editCarrier);
    await page.getByRole('button', { name: `Edit ${edge.admin.username}` }).click();
    const editStaff = page.getByRole('dialog', { name: new RegExp(`Edit user ${edge.admin.username}`) });
    await shown(editStaff);
    const staffRoles = await roles(editStaff);
    expect(staffRoles).toContain('Admin');
    expect(staffRoles).not.toContain('Carrier user');
    await editStaff.getByRole('button', { name: 'Cancel' }).click();
  });
});
