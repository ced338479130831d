import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { RETRY_DELAYS_MS } from '../../../shared/modules/webhooks/backoff.js';
import { Client, query } from '../../helpers/http.js';
import { SmtpSink } from '../../helpers/smtp-sink.js';
import { loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from '../appointments/fixture.js';

const HOUR = 3_600_000;

/** A closed loopback port: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * Failures retried and shown (docs/configuration.md "Email to carriers"): a mail that cannot be sent is
 * tried by the retry schedule for 24 hours, then failed with its last error; an admin puts it back
 * in the queue and it is sent.
 */
describe('a mail retried for 24 hours, then failed, then sent again by an admin', () => {
  let t: TestApp;
  let admin: Client;
  const clock = new ManualClock(Date.parse(NOW));
  const sink = new SmtpSink();

  beforeAll(async () => {
    sink.port = await closedPort();
    t = await startTestApp({ clock, env: { YARD_ROLE: 'cloud', YARD_EMAIL_ALLOW_LOCAL_SMTP: 'true' } });
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  it('follows the schedule, gives up at 24 hours, and is sent after a retry', async () => {
    const y = await bookableYard(admin);
    const carrier = await admin.post('/api/carrier', {
      name: 'Prairie Freight',
      contact: { email: 'd@prairie.example' },
    });
    await admin.put('/api/settings/email', {
      enabled: true,
      host: '127.0.0.1',
      port: sink.port,
      security: 'none',
      fromAddress: 'gate@yard.example.com',
    });
    const booked = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: carrier.body.id,
      startAt: '2026-03-03T08:00:00-06:00',
    });
    expect(booked.status).toBe(201);
    const created = clock.now();
    const row = async () => (await query(t.db, 'SELECT * FROM email_message'))[0];
    const attemptsAt: number[] = [];
    while ((await row()).status === 'pending') {
      const { next_attempt_at } = await row();
      clock.set(Number(next_attempt_at));
      attemptsAt.push(clock.now() - created);
      expect(await t.services.email.worker!.runDue()).toBe(1);
      expect(attemptsAt.length).toBeLessThan(20);
    }
    // The first at once, then one per wait of the schedule (each within 20 % of it; its last wait
    // repeats), the last one cut to the end of the 24 hours.
    expect(attemptsAt[0]).toBe(0);
    expect(attemptsAt.at(-1)).toBe(24 * HOUR);
    for (let i = 1; i < attemptsAt.length; i++) {
      const delay = RETRY_DELAYS_MS[Math.min(i, RETRY_DELAYS_MS.length) - 1]!;
      const waited = attemptsAt[i]! - attemptsAt[i - 1]!;
      expect(waited).toBeLessThanOrEqual(delay * 1.2);
      if (i < attemptsAt.length - 1) expect(waited).toBeGreaterThanOrEqual(delay * 0.8);
    }
    expect(attemptsAt.length).toBeGreaterThanOrEqual(RETRY_DELAYS_MS.length + 2);
    const failed = await row();
    expect(failed).toMatchObject({ status: 'failed', attempts: attemptsAt.length });
    expect(failed.last_error).toMatch(/ECONNREFUSED/);
    // A day later the session has expired: log in again.
    admin = new Client(t.url, await loginAdmin(t.url));
    const settings = await admin.get('/api/settings/email');
    expect(settings.status, settings.text).toBe(200);
    expect(settings.body.queue).toMatchObject({ pending: 0, failed: 1, lastError: failed.last_error });
    const shown = await admin.get('/api/settings/email/message?status=failed');
    expect(shown.body.items).toEqual([
      expect.objectContaining({
        id: failed.id,
        status: 'failed',
        attempts: attemptsAt.length,
        nextAttemptAt: null,
      }),
    ]);

    await sink.start();
    const retried = await admin.post(`/api/settings/email/message/${failed.id}/retry`);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({
      status: 'pending',
      nextAttemptAt: new Date(clock.now()).toISOString(),
    });
    expect(retried.body.giveUpAt).toBe(new Date(clock.now() + 24 * HOUR).toISOString());
    const again = await admin.post(`/api/settings/email/message/${failed.id}/retry`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invalid-transition');
    expect(
      (await admin.post('/api/settings/email/message/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f/retry')).status,
    ).toBe(404);

    expect(await t.services.email.worker!.runDue()).toBe(1);
    const [received] = await sink.waitFor(1);
    expect(received!.envelopeTo).toEqual(['d@prairie.example']);
    expect(await row()).toMatchObject({ status: 'sent', attempts: attemptsAt.length + 1 });
  });
});
