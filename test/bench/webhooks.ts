import { DateTime } from 'luxon';
import { Client, query } from '../helpers/http.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { startTestApp } from '../helpers/test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { verdict } from './lib.js';

/**
 * Webhook delivery lag under booking load (docs/webhooks.md, docs/performance.md): a cloud on
 * SQLite, started as in production (the dispatcher runs, woken by each commit), two endpoints on two
 * HTTPS receivers on loopback, and bookings arriving as a Poisson process of 1,000 an hour,
 * compressed BENCH_COMPRESSION times (default 20: the same arrival process, a booking every 180 ms on
 * average) for BENCH_BOOKINGS bookings (default 300). The lag of a webhook is the receiver's clock at
 * arrival minus the event's created_at (the booking's commit): p50, p95, max; target p95 < 2 s.
 * Email is on (a real SMTP server in this process), every booking mails the carrier a confirmation
 * with the pass attached; its lag (the sink's clock at the end of the message minus the mail's
 * queueing) is reported beside the webhooks'.
 * Run: npx tsx test/bench/webhooks.ts
 */
const BOOKINGS = Number(process.env.BENCH_BOOKINGS ?? 300);
const COMPRESSION = Number(process.env.BENCH_COMPRESSION ?? 20);
const MEAN_GAP_MS = 3_600_000 / 1_000 / COMPRESSION;
const DOORS = 20;

let seed = 20261129;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * p) - 1)]!;

const sink = await new SmtpSink().start();
const main = await new WebhookReceiver().start();
// Both receivers serve one certificate, so the app trusts both through one CA file.
const receivers = [main, await new WebhookReceiver(main).start()];
const t = await startTestApp({
  start: true,
  env: {
    YARD_ROLE: 'cloud',
    YARD_LOG_LEVEL: 'warn',
    YARD_WEBHOOKS_ALLOW_LOCAL_ENDPOINTS: 'true',
    YARD_WEBHOOKS_CA_FILE: receivers[0]!.caFile,
    YARD_EMAIL_ALLOW_LOCAL_SMTP: 'true',
  },
});
try {
  const admin = new Client(t.url, t.adminToken);
  const yard = (
    await admin.post('/api/yard', { code: 'BENCH', name: 'Bench yard', timeZone: 'America/Chicago' })
  ).body;
  for (let i = 0; i < DOORS; i++) {
    await admin.post(`/api/yard/${yard.id}/location`, { kind: 'door', name: `Door ${i + 1}` });
  }
  const config = await admin.put(`/api/appointment/config/${yard.id}`, { enabled: true, openHours: {} });
  if (config.status !== 200) throw new Error(config.text);
  const loadType = (
    await admin.post('/api/appointment/load-type', { yardId: yard.id, name: 'Live', durationMinutes: 60 })
  ).body;
  const carrier = (
    await admin.post('/api/carrier', { name: 'Bench carrier', contact: { email: 'dispatch@bench.example' } })
  ).body;
  const email = await admin.put('/api/settings/email', {
    enabled: true,
    host: '127.0.0.1',
    port: sink.port,
    security: 'none',
    fromAddress: 'gate@bench.example',
  });
  if (email.status !== 200) throw new Error(email.text);
  for (const r of receivers) {
    const res = await admin.post('/api/webhook', { url: r.url, events: ['appointment.created'] });
    if (res.status !== 201) throw new Error(res.text);
  }

  const first = DateTime.now().setZone('America/Chicago').plus({ days: 1 }).startOf('day');
  const started = performance.now();
  for (let i = 0; i < BOOKINGS; i++) {
    const slot = first.plus({ hours: Math.floor(i / DOORS) });
    const res = await admin.post('/api/appointment', {
      yardId: yard.id,
      loadTypeId: loadType.id,
      carrierId: carrier.id,
      startAt: slot.toISO(),
      override: { reason: 'benchmark booking at any hour' },
    });
    if (res.status !== 201) throw new Error(`booking ${i}: ${res.status} ${res.text}`);
    await new Promise((r) => setTimeout(r, -Math.log(1 - random()) * MEAN_GAP_MS));
  }
  // Mails go one at a time, each rendering its pass PDF, so at the compressed rate they may trail
  // the bookings (at the real 1,000 an hour they keep up): they get longer to arrive.
  const deadline = Date.now() + 180_000;
  while (
    (receivers.some((r) => r.delivered().length < BOOKINGS) || sink.received.length < BOOKINGS) &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  const created = new Map(
    (await query(t.db, 'SELECT id, created_at AS "createdAt" FROM webhook_event')).map((e: any) => [
      e.id as string,
      Number(e.createdAt),
    ]),
  );
  const lags = receivers.flatMap((r) =>
    r.received.filter((x) => x.status < 300).map((x) => x.at - created.get(x.headers['webhook-id']!)!),
  );
  const got = receivers.map((r) => r.delivered().length);
  const queued = new Map(
    (await query(t.db, 'SELECT message_id AS "messageId", created_at AS "createdAt" FROM email_message')).map(
      (m: any) => [String(m.messageId), Number(m.createdAt)],
    ),
  );
  const mailLags = sink.received
    .filter((m) => queued.has(String(m.mail.messageId)) || queued.has(`<${m.mail.messageId}>`))
    .map((m) => m.at - (queued.get(String(m.mail.messageId)) ?? queued.get(`<${m.mail.messageId}>`))!);
  const p95 = pct(lags, 0.95);
  console.log(
    JSON.stringify(
      {
        bookings: BOOKINGS,
        endpoints: receivers.length,
        ratePerHour: Math.round((BOOKINGS / seconds) * 3600),
        delivered: got,
        lagMs: { p50: pct(lags, 0.5), p95, max: Math.max(...lags) },
        mails: sink.received.length,
        mailLagMs: mailLags.length
          ? { p50: pct(mailLags, 0.5), p95: pct(mailLags, 0.95), max: Math.max(...mailLags) }
          : null,
      },
      null,
      2,
    ),
  );
  const ok = got.every((n) => n === BOOKINGS) && p95 < 2000 && mailLags.length === BOOKINGS;
  console.log(
    `${verdict(ok)}: every event delivered to both endpoints and every confirmation mailed, delivery lag p95 ${p95} ms < 2000 ms`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  await t.close();
  for (const r of [...receivers].reverse()) await r.stop();
  await sink.stop();
}
