import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../helpers/http.js';
import { AppProcess, freePort, readDb } from '../helpers/sync-processes.js';
import { ADMIN, loginAdmin } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait-for.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { bookableYard } from '../integration/appointments/fixture.js';

/**
 * The cloud killed between a change and its delivery (docs/webhooks.md "Delivery"): a real cloud
 * process on its SQLite file books an appointment (201), its delivery reaches the receiver, which
 * holds the request; the process is SIGKILLed before it hears the answer. Started again, it sends
 * the event again with the same webhook-id once the dead process's lease has run out, and records
 * it delivered. Nothing is lost, and the one duplicate is recognisable.
 */
const dir = mkdtempSync(join(tmpdir(), 'yard-webhooks-crash-'));
let receiver: WebhookReceiver;
let cloud: AppProcess;

/** A weekday at 10:00 in Chicago, two to nine days ahead (inside the booking window). */
function startAt(daysAhead: number): string {
  let day = DateTime.now().setZone('America/Chicago').plus({ days: daysAhead }).startOf('day');
  while (day.weekday > 5) day = day.plus({ days: 1 });
  return day.set({ hour: 10 }).toISO({ suppressMilliseconds: true })!;
}

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  cloud = new AppProcess('cloud', 'cloud/main.ts', await freePort(), {
    YARD_ROLE: 'cloud',
    YARD_LOG_LEVEL: 'warn',
    YARD_DATA_DIR: dir,
    YARD_MQTT_HOST: '127.0.0.1',
    YARD_MQTT_PORT: String(await freePort()),
    YARD_ADMIN_USER: ADMIN.username,
    YARD_ADMIN_PASSWORD: ADMIN.password,
    YARD_WEBHOOKS_ALLOW_LOCAL_ENDPOINTS: 'true',
    YARD_WEBHOOKS_CA_FILE: receiver.caFile,
  });
  await cloud.start();
});

afterAll(async () => {
  await cloud?.stop();
  await receiver?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('webhooks when the cloud is killed mid-delivery', () => {
  it('sends the event again after the restart, same webhook-id, and loses nothing', {
    timeout: 90_000,
  }, async () => {
    let admin = new Client(cloud.url, await loginAdmin(cloud.url));
    const y = await bookableYard(admin);
    const endpoint = await admin.post('/api/webhook', { url: receiver.url, events: ['appointment.created'] });
    expect(endpoint.status, endpoint.text).toBe(201);
    receiver.answer = (n) => (n === 1 ? 'hold' : { status: 204 });

    const booked = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: startAt(2),
    });
    expect(booked.status, booked.text).toBe(201);
    // The running cloud sends it at once (woken by the commit), and the receiver holds it.
    await waitFor(() => receiver.heldCount === 1, { what: () => cloud.log });
    await cloud.kill();
    receiver.release();

    await cloud.start();
    admin = new Client(cloud.url, await loginAdmin(cloud.url));
    const later = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: startAt(3),
    });
    expect(later.status, later.text).toBe(201);
    // The lease of the killed process runs out (15 s), then both go.
    await waitFor(() => receiver.delivered().length >= 3, { timeoutMs: 40_000, what: () => cloud.log });

    const got = receiver.delivered();
    const ids = got.map((e) => e.data.appointment.id);
    expect(ids.filter((id) => id === booked.body.id)).toHaveLength(2);
    expect(ids.filter((id) => id === later.body.id)).toHaveLength(1);
    const first = got.filter((e) => e.data.appointment.id === booked.body.id);
    expect(first[0]!.id).toBe(first[1]!.id);
    const rows = () =>
      readDb(join(dir, 'yard.db'), (db) =>
        db
          .prepare(
            `SELECT d.status, (SELECT count(*) FROM webhook_attempt a WHERE a.delivery_id = d.id) AS attempts
             FROM webhook_delivery d ORDER BY d.event_seq`,
          )
          .all(),
      );
    // The receiver has answered; the cloud records the attempt once it has read that answer.
    await waitFor(
      () => {
        const r = rows() as { status: string }[];
        return r.length === 2 && r.every((x) => x.status === 'delivered');
      },
      {
        what: () => JSON.stringify(rows()),
      },
    );
    // The killed process never recorded its attempt: the log shows the one that it knows succeeded.
    expect(rows()).toEqual([
      { status: 'delivered', attempts: 1 },
      { status: 'delivered', attempts: 1 },
    ]);
  });
});
