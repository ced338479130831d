import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { Client, query } from '../../helpers/http.js';
import { SmtpSink } from '../../helpers/smtp-sink.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { waitFor } from '../../helpers/wait-for.js';
import { bookableYard, NOW } from '../appointments/fixture.js';

/**
 * Sending never blocks a booking (docs/configuration.md "Email to carriers"): with the SMTP server down,
 * here one that takes the connection and never answers, the booking answers 201 at once; the mail
 * stays queued with the error shown, is not retried before its time, and is sent once the server
 * is back and the retry is due.
 */
describe('the SMTP server down during a booking', () => {
  let t: TestApp;
  let admin: Client;
  const clock = new ManualClock(Date.parse(NOW));
  let silent: Server;
  const sockets: Socket[] = [];
  let port: number;
  const sink = new SmtpSink();

  beforeAll(async () => {
    silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    port = (silent.address() as { port: number }).port;
    t = await startTestApp({
      clock,
      start: true,
      env: { YARD_ROLE: 'cloud', YARD_EMAIL_ALLOW_LOCAL_SMTP: 'true', YARD_EMAIL_TIMEOUT_MS: '2000' },
    });
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
    for (const s of sockets) s.destroy();
    silent.close();
  });

  it('books at once, shows the error, and sends the mail once the server is back', async () => {
    const y = await bookableYard(admin);
    const carrier = await admin.post('/api/carrier', {
      name: 'Prairie Freight',
      contact: { email: 'dispatch@prairie.example' },
    });
    const put = await admin.put('/api/settings/email', {
      enabled: true,
      host: '127.0.0.1',
      port,
      security: 'none',
      fromAddress: 'gate@yard.example.com',
    });
    expect(put.status, put.text).toBe(200);

    const started = performance.now();
    const booked = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: carrier.body.id,
      startAt: '2026-03-03T08:00:00-06:00',
    });
    const took = performance.now() - started;
    expect(booked.status, booked.text).toBe(201);
    // The server would hold a sender for its 2 s timeout: the booking does not wait for it.
    expect(took).toBeLessThan(1000);

    // The worker (started with the app) tried, and the mail waits with the error shown.
    const failed = await waitFor(
      async () => {
        const list = await admin.get('/api/settings/email/message');
        const m = list.body.items[0];
        return m?.attempts === 1 ? m : undefined;
      },
      { timeoutMs: 10_000, what: 'the first attempt recorded' },
    );
    expect(failed).toMatchObject({
      kind: 'confirmation',
      status: 'pending',
      toAddress: 'dispatch@prairie.example',
      sentAt: null,
    });
    expect(failed.lastError).toBe('Greeting never received (ETIMEDOUT)');
    const settings = await admin.get('/api/settings/email');
    expect(settings.body.queue).toMatchObject({ pending: 1, failed: 0, lastError: failed.lastError });
    // Not retried before its time (5 s +-20 % on the clock).
    expect(Date.parse(failed.nextAttemptAt) - clock.now()).toBeGreaterThanOrEqual(4000);
    expect(await t.services.email.worker!.runDue()).toBe(0);

    // The server comes back on the same port; the retry falls due.
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
    sink.port = port;
    await sink.start();
    clock.advance(10 * 60_000);
    await t.services.email.worker!.runDue();
    const [received] = await sink.waitFor(1);
    expect(received!.envelopeTo).toEqual(['dispatch@prairie.example']);
    expect(received!.mail.subject).toMatch(/^Appointment booked: /);
    const [row] = await query(t.db, 'SELECT status, attempts, last_error, sent_at FROM email_message');
    expect(row).toMatchObject({ status: 'sent', attempts: 2, last_error: null, sent_at: clock.now() });
    expect(sink.received).toHaveLength(1);
  });
});
