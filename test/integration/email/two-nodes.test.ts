import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, query } from '../../helpers/http.js';
import { postgresAvailable } from '../../helpers/postgres.js';
import { SmtpSink } from '../../helpers/smtp-sink.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from '../appointments/fixture.js';

/**
 * Several cloud nodes on one PostgreSQL: one sender holds the lease (shared/db/job-lease.ts), so a
 * mail queued on either node is sent once; when the holder's lease runs out, another node sends.
 */
describe.skipIf(!postgresAvailable())('email with two cloud nodes on PostgreSQL', () => {
  let a: TestApp<AppDatabase>;
  let b: TestApp<AppDatabase>;
  const clock = new ManualClock(Date.parse(NOW));
  const sink = new SmtpSink();
  const env = { YARD_ROLE: 'cloud', YARD_EMAIL_ALLOW_LOCAL_SMTP: 'true' };

  beforeAll(async () => {
    await sink.start();
    a = await startTestApp({ dialect: 'postgres', clock, env });
    b = await startTestApp({ dialect: 'postgres', postgresUrl: a.postgresUrl, clock, env, login: false });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await sink.stop();
  });

  it('sends each mail once whichever node runs, and fails over when the lease runs out', async () => {
    const admin = new Client(a.url, a.adminToken);
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
    const book = (startAt: string) =>
      admin.post('/api/appointment', {
        yardId: y.yardId,
        loadTypeId: y.loadTypeId,
        carrierId: carrier.body.id,
        startAt,
      });
    expect((await book('2026-03-03T08:00:00-06:00')).status).toBe(201);

    const [sentByA, sentByB] = await Promise.all([
      a.services.email.worker!.runDue(),
      b.services.email.worker!.runDue(),
    ]);
    expect(sentByA + sentByB).toBe(1);
    await sink.waitFor(1);
    // The lease stays with its holder while it is renewed: the other node sends nothing.
    expect((await book('2026-03-03T09:00:00-06:00')).status).toBe(201);
    const holder = sentByA === 1 ? a : b;
    const other = holder === a ? b : a;
    expect(await other.services.email.worker!.runDue()).toBe(0);
    // The holder goes quiet past the lease's 15 s: the other node takes over.
    clock.advance(16_000);
    expect(await other.services.email.worker!.runDue()).toBe(1);
    await sink.waitFor(2);
    expect(await holder.services.email.worker!.runDue()).toBe(0);
    const rows = await query(a.db, 'SELECT status, attempts FROM email_message ORDER BY id');
    expect(rows).toEqual([
      { status: 'sent', attempts: 1 },
      { status: 'sent', attempts: 1 },
    ]);
    expect(sink.received).toHaveLength(2);
  });
});
