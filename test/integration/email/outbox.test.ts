import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { SmtpSink } from '../../helpers/smtp-sink.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from '../appointments/fixture.js';

/**
 * The email outbox (docs/configuration.md "Email to carriers"): a booking, a reschedule and a cancellation
 * each queue a mail to the carrier's contact in the transaction of the change, and the sender
 * delivers it through a real SMTP server, read back with mailparser. Nothing is queued while email
 * is off; a carrier without a contact email gets a skipped mail, shown.
 */
describe.each(TEST_DIALECTS)('the email outbox at the cloud (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse(NOW));
  const sink = new SmtpSink();
  let y: Awaited<ReturnType<typeof bookableYard>>;
  let carrierId: string;
  const messages = (appointmentId: string) =>
    query(
      t.db,
      'SELECT kind, status, to_address, attempts, last_error, snapshot FROM email_message WHERE appointment_id = ? ORDER BY id',
      appointmentId,
    );
  const book = () =>
    admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId,
      startAt: '2026-03-03T08:00:00-06:00',
      refs: ['PO-77'],
      trailerNumber: 'TR-9',
    });
  const configure = (enabled: boolean) =>
    admin.put('/api/settings/email', {
      enabled,
      host: '127.0.0.1',
      port: sink.port,
      security: 'none',
      fromAddress: 'gate@yard.example.com',
    });

  beforeAll(async () => {
    await sink.start();
    t = await startTestApp({
      dialect,
      clock,
      env: { YARD_ROLE: 'cloud', YARD_EMAIL_ALLOW_LOCAL_SMTP: 'true' },
    });
    admin = new Client(t.url, t.adminToken);
  });
  beforeEach(async () => {
    clock.set(NOW);
    sink.received.length = 0;
    y = await bookableYard(admin);
    const carrier = await admin.post('/api/carrier', {
      name: `Prairie ${Math.random().toString(36).slice(2, 6)}`,
      contact: { name: 'Dispatch', email: 'dispatch@prairie.example' },
    });
    carrierId = carrier.body.id;
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  it('queues nothing while email is not configured or is off', async () => {
    const first = await book();
    expect(first.status, first.text).toBe(201);
    expect((await configure(false)).status).toBe(200);
    const second = await admin.post(`/api/appointment/${first.body.id}/cancel`, { reason: 'Plant closed' });
    expect(second.status, second.text).toBe(200);
    expect(await messages(first.body.id)).toEqual([]);
  });

  it('mails the confirmation, the change and the cancellation to the carrier’s contact, with the pass', async () => {
    expect((await configure(true)).status).toBe(200);
    const booked = await book();
    expect(booked.status, booked.text).toBe(201);
    const id = booked.body.id as string;
    // Queued in the booking's transaction, sent by the worker.
    expect(await messages(id)).toEqual([
      expect.objectContaining({
        kind: 'confirmation',
        status: 'pending',
        to_address: 'dispatch@prairie.example',
      }),
    ]);
    const snapshot = JSON.parse((await messages(id))[0].snapshot);
    expect(snapshot).toMatchObject({ id, code: booked.body.code, startAt: '2026-03-03T08:00:00-06:00' });
    expect(await t.services.email.worker!.runDue()).toBe(1);

    const moved = await admin.patch(`/api/appointment/${id}`, { startAt: '2026-03-03T10:00:00-06:00' });
    expect(moved.status, moved.text).toBe(200);
    // An edit of what the pass does not show (notes) tells the carrier nothing.
    expect((await admin.patch(`/api/appointment/${id}`, { notes: 'ring twice' })).status).toBe(200);
    expect((await admin.post(`/api/appointment/${id}/cancel`, { reason: 'Plant closed' })).status).toBe(200);
    expect(await t.services.email.worker!.runDue()).toBe(2);

    const received = await sink.waitFor(3);
    expect(received.map((r) => r.envelopeTo)).toEqual([
      ['dispatch@prairie.example'],
      ['dispatch@prairie.example'],
      ['dispatch@prairie.example'],
    ]);
    const [confirmation, change, cancellation] = received.map((r) => r.mail);
    expect(confirmation!.to).toMatchObject({ text: 'dispatch@prairie.example' });
    expect(confirmation!.subject).toBe(
      `Appointment booked: ${snapshot.yard.name}, Tue 3 Mar 2026, 08:00 CST (code ${booked.body.code})`,
    );
    expect(confirmation!.text).toContain(`Code: ${booked.body.code}`);
    expect(confirmation!.text).toContain('Door: Door 2');
    expect(confirmation!.text).toContain('References: PO-77');
    expect(change!.subject).toMatch(/^Appointment changed: .*, Tue 3 Mar 2026, 10:00 CST/);
    expect(cancellation!.subject).toMatch(/^Appointment cancelled: /);
    expect(cancellation!.text).toContain('Reason: Plant closed');
    // The pass and the calendar file go with the confirmation and the change; the cancellation
    // takes the event out of the calendar and carries no pass.
    const code = booked.body.code as string;
    const files = (m: (typeof received)[number]['mail']) =>
      m.attachments.map((a) => [a.filename, a.contentType]);
    expect(files(confirmation!)).toEqual([
      [`gate-pass-${code}.pdf`, 'application/pdf'],
      [`gate-pass-${code}.ics`, 'text/calendar'],
    ]);
    expect(files(change!)).toEqual(files(confirmation!));
    expect(files(cancellation!)).toEqual([[`gate-pass-${code}.ics`, 'text/calendar']]);
    expect(confirmation!.attachments[0]!.content.subarray(0, 5).toString()).toBe('%PDF-');
    const ics = (m: (typeof received)[number]['mail']) => m.attachments.at(-1)!.content.toString();
    expect(ics(confirmation!)).toContain(`UID:${id}@yard-service`);
    expect(ics(confirmation!)).toContain('DTSTART:20260303T140000Z');
    expect(ics(change!)).toContain('DTSTART:20260303T160000Z');
    expect(ics(cancellation!)).toMatch(/METHOD:CANCEL[\s\S]*STATUS:CANCELLED/);
    const rows = await messages(id);
    expect(rows.map((r) => [r.kind, r.status, r.attempts])).toEqual([
      ['confirmation', 'sent', 1],
      ['change', 'sent', 1],
      ['cancellation', 'sent', 1],
    ]);
    const list = await admin.get(`/api/settings/email/message?appointmentId=${id}`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((m: any) => m.kind)).toEqual(['cancellation', 'change', 'confirmation']);
    expect(list.body.items[0]).toMatchObject({
      status: 'sent',
      toAddress: 'dispatch@prairie.example',
      nextAttemptAt: null,
    });
  });

  it('writes a mail once for an event observed twice', async () => {
    expect((await configure(true)).status).toBe(200);
    const booked = await book();
    const [event] = await query(
      t.db,
      'SELECT * FROM appointment_event WHERE appointment_id = ?',
      booked.body.id,
    );
    const row = Object.fromEntries(
      Object.entries(event).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
    );
    await t.db.kysely.transaction().execute(async (trx) => {
      await t.core.changes.observers.notifyIn(trx, 'appointmentEvent', undefined, row);
    });
    expect(await messages(booked.body.id)).toHaveLength(1);
    expect(await t.services.email.worker!.runDue()).toBe(1);
  });

  it('skips a carrier without a contact email, and shows why', async () => {
    expect((await configure(true)).status).toBe(200);
    const bare = await admin.post('/api/carrier', {
      name: `No Mail ${Math.random().toString(36).slice(2, 6)}`,
    });
    carrierId = bare.body.id;
    const booked = await book();
    expect(booked.status).toBe(201);
    expect(await messages(booked.body.id)).toEqual([
      expect.objectContaining({
        status: 'skipped',
        to_address: null,
        last_error: 'The carrier has no contact email: nothing was sent.',
      }),
    ]);
    expect(await t.services.email.worker!.runDue()).toBe(0);
    expect(sink.received).toEqual([]);
  });
});

/**
 * A no-show is marked by the sweep where arrivals are known: here a standalone edge, which also
 * sends email (it is a complete product). At the cloud the same observer writes the mail when the
 * site's row arrives by sync (the observer runs on the applier's path too).
 */
describe('the no-show mail at a standalone edge', () => {
  let t: TestApp;
  let admin: Client;
  const clock = new ManualClock(Date.parse(NOW));
  const sink = new SmtpSink();

  beforeAll(async () => {
    await sink.start();
    t = await startTestApp({ clock, env: { YARD_EMAIL_ALLOW_LOCAL_SMTP: 'true' } });
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  it('mails the carrier that its truck was recorded as a no-show', async () => {
    const y = await bookableYard(admin);
    const carrier = await admin.post('/api/carrier', {
      name: 'Lone Star Freight',
      contact: { email: 'ops@lonestar.example' },
    });
    const put = await admin.put('/api/settings/email', {
      enabled: true,
      host: '127.0.0.1',
      port: sink.port,
      security: 'none',
      fromAddress: 'gate@yard.example.com',
    });
    expect(put.status, put.text).toBe(200);
    const booked = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: carrier.body.id,
      startAt: '2026-03-02T09:00:00-06:00',
    });
    expect(booked.status, booked.text).toBe(201);
    clock.set('2026-03-02T16:30:00Z'); // 10:30 in Chicago: 90 minutes after the start
    expect(await t.services.noShowSweep!.tick()).toEqual([booked.body.id]);
    expect(await t.services.email.worker!.runDue()).toBe(2);
    const received = await sink.waitFor(2);
    const noShow = received[1]!;
    expect(noShow.envelopeTo).toEqual(['ops@lonestar.example']);
    expect(noShow.mail.subject).toMatch(/^Missed appointment: .*, Mon 2 Mar 2026, 09:00 CST/);
    expect(noShow.mail.text).toContain('did not arrive');
    expect(noShow.mail.attachments).toEqual([]);
  });
});
