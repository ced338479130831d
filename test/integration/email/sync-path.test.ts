import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { SmtpSink } from '../../helpers/smtp-sink.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { bookAt, schedulingAt } from '../sync/appointments-fixture.js';
import { cloudMasterData, type MasterData } from '../sync/link-fixture.js';

const MINUTE = 60_000;

/**
 * A no-show is marked at the yard's edge and reaches the cloud by sync; the cloud's outbox observer
 * runs on the applier's path too, so the cloud mails it (in the apply transaction), and the linked
 * edge, which leaves email to the cloud, queues nothing. A real cloud and edge over a real broker.
 */
describe.each(TEST_DIALECTS)('a no-show from the site mailed by the cloud (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  let m: MasterData;
  let loadTypeId: string;
  const sink = new SmtpSink();

  beforeAll(async () => {
    await sink.start();
    h = await startSyncHarness({ dialect, config: { 'email.allowLocalSmtp': true } });
    m = await cloudMasterData(h.cloud.client, 'site-a', 'A');
    loadTypeId = await schedulingAt(h.cloud.client, m);
    for (const edge of h.edges) await edge.app.services.noShowSweep?.stop();
    const contact = await h.cloud.client.patch(`/api/carrier/${m.carrierId}`, {
      contact: { email: 'dispatch@carrier-a.example' },
    });
    expect(contact.status, contact.text).toBe(200);
    const put = await h.cloud.client.put('/api/settings/email', {
      enabled: true,
      host: '127.0.0.1',
      port: sink.port,
      security: 'none',
      fromAddress: 'gate@yard.example.com',
    });
    expect(put.status, put.text).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await sink.stop();
  });

  it('sends the confirmation from the cloud, then the no-show the site reported', async () => {
    const id = await bookAt(h.cloud.client, m, loadTypeId, Date.now() - 3 * 60 * MINUTE);
    const edge = h.edges[0]!;
    await waitFor(() => edge.app.db.sqlite.prepare('SELECT 1 FROM appointment WHERE id = ?').get(id), {
      what: 'the booking at the site',
    });
    expect(await edge.app.services.noShowSweep!.tick()).toEqual([id]);

    // The cloud's sender (started with the app) sends both.
    const received = await sink.waitFor(2, 20_000);
    expect(received.map((r) => [r.envelopeTo, r.mail.subject?.split(':')[0]])).toEqual([
      [['dispatch@carrier-a.example'], 'Appointment booked'],
      [['dispatch@carrier-a.example'], 'Missed appointment'],
    ]);
    // The outcome is written just after the server's answer.
    const rows = await waitFor(
      async () => {
        const all = await query(
          h.cloud.app.db,
          'SELECT kind, status FROM email_message WHERE appointment_id = ? ORDER BY id',
          id,
        );
        return all.every((r) => r.status === 'sent') ? all : undefined;
      },
      { what: 'both mails recorded as sent' },
    );
    expect(rows).toEqual([
      { kind: 'confirmation', status: 'sent' },
      { kind: 'no_show', status: 'sent' },
    ]);
    // The site leaves email to the cloud.
    expect(edge.app.db.sqlite.prepare('SELECT count(*) AS n FROM email_message').get()).toEqual({ n: 0 });
  });
});
