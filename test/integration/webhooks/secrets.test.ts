import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { Client } from '../../helpers/http.js';
import { captureLog } from '../../helpers/log-capture.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { bookableYard, NOW } from '../appointments/fixture.js';

/**
 * A webhook's signing secret is shown once (docs/security.md "Outbound addresses and secrets"):
 * never in a later answer, never in the logs, also when deliveries fail (debug level).
 */
describe('webhook signing secrets', () => {
  const capture = captureLog('debug');
  let receiver: WebhookReceiver;
  let t: TestApp;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({
      clock: new ManualClock(Date.parse(NOW)),
      log: capture.log,
      env: {
        YARD_ROLE: 'cloud',
        YARD_WEBHOOKS_ALLOW_LOCAL_ENDPOINTS: 'true',
        YARD_WEBHOOKS_CA_FILE: receiver.caFile,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('appear in no answer but the one that made them, and in no log line', async () => {
    const admin = new Client(t.url, t.adminToken);
    const y = await bookableYard(admin);
    const created = await admin.post('/api/webhook', { url: receiver.url, events: ['appointment.created'] });
    const rotated = await admin.patch(`/api/webhook/${created.body.id}`, { rotateSecret: true });
    const secrets = [created.body.secret as string, rotated.body.secret as string];
    receiver.answer = (n) => (n === 1 ? { status: 500, body: 'try later' } : { status: 204 });
    const booked = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: '2026-03-03T08:00:00-06:00',
    });
    expect(booked.status).toBe(201);
    await t.services.webhooks.dispatcher!.runDue();
    const answers = [
      await admin.get('/api/webhook'),
      await admin.get(`/api/webhook/${created.body.id}`),
      await admin.get(`/api/webhook/${created.body.id}/delivery`),
      await admin.patch(`/api/webhook/${created.body.id}`, { description: 'TMS' }),
    ];
    expect(answers[2]!.body.items[0].attempts[0]).toMatchObject({
      httpStatus: 500,
      responseBody: 'try later',
    });
    const logged = JSON.stringify(capture.lines);
    expect(logged.length).toBeGreaterThan(100);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_/);
      for (const a of answers) expect(a.text).not.toContain(secret.slice(6));
      expect(logged).not.toContain(secret.slice(6));
    }
  });
});
