import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { captureLog } from '../../helpers/log-capture.js';
import { SmtpSink } from '../../helpers/smtp-sink.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const PASSWORD = 'smtp-secret-Zq8!';

/**
 * The SMTP settings (docs/configuration.md "Email to carriers"): off until configured,
 * password write-only (the integrations' mask, keep and send-again rule), If-Match, the SMTP
 * address policy, and a test mail through a real SMTP server. The password is never in an answer or
 * a log line.
 */
describe('email settings', () => {
  let t: TestApp;
  let admin: Client;
  const logs = captureLog('debug');
  const sink = new SmtpSink({ username: 'yard-mail', password: PASSWORD });
  const answers: string[] = [];
  const settingsOf = (extra: Record<string, unknown> = {}) => ({
    enabled: true,
    host: '127.0.0.1',
    port: sink.port,
    security: 'none',
    username: 'yard-mail',
    fromAddress: 'gate@yard.example.com',
    fromName: 'North Yard gate',
    ...extra,
  });
  const put = async (body: unknown, headers?: Record<string, string>) => {
    const res = await admin.put('/api/settings/email', body, headers);
    answers.push(res.text);
    return res;
  };
  const get = async () => {
    const res = await admin.get('/api/settings/email');
    answers.push(res.text);
    return res;
  };
  const stored = async () => (await query(t.db, "SELECT * FROM email_settings WHERE name = 'smtp'"))[0];

  beforeAll(async () => {
    await sink.start();
    t = await startTestApp({ log: logs.log, env: { YARD_EMAIL_ALLOW_LOCAL_SMTP: 'true' } });
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  it('is off until configured: no server, version 0, and a test mail answers 409', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      configured: false,
      enabled: false,
      host: null,
      password: null,
      version: 0,
    });
    expect(res.headers.get('etag')).toBe('"v0"');
    const test = await admin.post('/api/settings/email/test', { to: 'ops@example.com' });
    expect(test.status).toBe(409);
    expect(test.body.code).toBe('email-not-configured');
  });

  it('stores the server with its password and shows only the mask', async () => {
    const res = await put(settingsOf({ password: PASSWORD }), { 'if-match': '"v0"' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('etag')).toBe('"v1"');
    expect(res.body).toMatchObject({
      configured: true,
      enabled: true,
      host: '127.0.0.1',
      security: 'none',
      username: 'yard-mail',
      password: '********',
      version: 1,
      queue: { pending: 0, failed: 0, lastSentAt: null, lastError: null },
    });
    expect((await stored()).password).toBe(PASSWORD);
  });

  it('keeps the stored password when it is left out or sent masked', async () => {
    const masked = await put(settingsOf({ password: '********', fromName: 'Gate desk' }));
    expect(masked.status, masked.text).toBe(200);
    const omitted = await put(settingsOf({ fromName: 'Gate house' }));
    expect(omitted.status, omitted.text).toBe(200);
    expect(omitted.body).toMatchObject({ password: '********', fromName: 'Gate house', version: 3 });
    expect((await stored()).password).toBe(PASSWORD);
  });

  it('refuses to keep the password for a new server or a new security: send it again (400 secret-required)', async () => {
    for (const change of [{ port: sink.port + 1 }, { host: 'localhost' }, { security: 'starttls' }]) {
      const res = await put(settingsOf(change));
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.errors).toEqual([
        expect.objectContaining({ path: 'body.password', code: 'secret-required' }),
      ]);
    }
    expect(await stored()).toMatchObject({
      port: sink.port,
      host: '127.0.0.1',
      security: 'none',
      version: 3,
    });
    const again = await put(settingsOf({ port: sink.port + 1, password: PASSWORD }));
    expect(again.status, again.text).toBe(200);
    const back = await put(settingsOf({ password: PASSWORD }));
    expect(back.body.version).toBe(5);
  });

  it('answers 412 to a write made from an old read, and changes nothing', async () => {
    const res = await put(settingsOf({ fromName: 'Stale' }), { 'if-match': '"v1"' });
    expect(res.status).toBe(412);
    expect(res.body.code).toBe('precondition-failed');
    expect(await stored()).toMatchObject({ from_name: 'North Yard gate', version: 5 });
  });

  it('is for admins without a yard scope only', async () => {
    const gate = await clientWithRole(admin, 'gate');
    expect((await gate.get('/api/settings/email')).status).toBe(403);
    const scoped = await clientWithRole(admin, 'admin', { yardIds: [] });
    const res = await scoped.put('/api/settings/email', settingsOf({ password: PASSWORD }));
    expect(res.status).toBe(403);
  });

  it('sends a test mail through the stored server, logged in with the stored password', async () => {
    const res = await admin.post('/api/settings/email/test', { to: 'ops@example.com' });
    answers.push(res.text);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ sent: true, error: null });
    expect(res.body.response).toMatch(/^250/);
    const [received] = await sink.waitFor(1);
    expect(received!.envelopeTo).toEqual(['ops@example.com']);
    expect(received!.login).toEqual({ username: 'yard-mail', password: PASSWORD });
    expect(received!.mail.from?.text).toBe('"North Yard gate" <gate@yard.example.com>');
    expect(received!.mail.subject).toBe('Test mail from the yard service');
  });

  it('tells why a test mail failed (a wrong password) without the password in it', async () => {
    const wrong = `${PASSWORD}-wrong`;
    expect((await put(settingsOf({ password: wrong }))).status).toBe(200);
    const res = await admin.post('/api/settings/email/test', { to: 'ops@example.com' });
    answers.push(res.text);
    expect(res.status).toBe(200);
    expect(res.body.sent).toBe(false);
    expect(res.body.error).toMatch(/535|Invalid/);
    expect(res.text).not.toContain(wrong);
    expect(JSON.stringify(logs.lines)).not.toContain(wrong);
  });

  it('keeps the password out of a queued mail’s error and the sender’s log when the login fails', async () => {
    const wrong = `${PASSWORD}-queued`;
    expect((await put(settingsOf({ password: wrong }))).status).toBe(200);
    const snapshot = {
      id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
      code: 'K7M2Q9TX',
      yard: { id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e60', name: 'North Yard', timeZone: 'America/Chicago' },
      doorName: 'Door 2',
      loadTypeName: 'Live unload',
      startAt: '2026-03-03T08:00:00-06:00',
      endAt: '2026-03-03T09:00:00-06:00',
      carrier: { id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e61', name: 'Prairie Freight' },
      refs: [],
      trailerNumber: null,
      truckPlate: null,
      driverName: null,
      status: 'scheduled',
      arrival: null,
      arrivedAt: null,
      dockedAt: null,
      completedAt: null,
      departedAt: null,
      noShowAt: null,
      cancelledAt: null,
      cancelReason: null,
      version: 1,
    };
    const now = Date.now();
    await query(
      t.db,
      `INSERT INTO email_message (id, kind, to_address, snapshot, next_attempt_at, give_up_at, created_at)
       VALUES ('01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e62', 'confirmation', 'd@prairie.example', ?, 0, ?, ?)`,
      JSON.stringify(snapshot),
      now + 86_400_000,
      now,
    );
    expect(await t.services.email.worker!.runDue()).toBe(1);
    const [row] = await query(t.db, 'SELECT status, attempts, last_error FROM email_message');
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row.last_error).toMatch(/535|Invalid/);
    expect(row.last_error).not.toContain(wrong);
    const warned = logs.warnings().find((l) => l.msg === 'a mail to a carrier was not sent');
    expect(warned).toMatchObject({ attempts: 1, gaveUp: false });
    expect(JSON.stringify(logs.lines)).not.toContain(wrong);
    const listed = await admin.get('/api/settings/email/message');
    answers.push(listed.text);
    expect(listed.body.items[0]).toMatchObject({ status: 'pending', lastError: row.last_error });
  });

  it('with starttls, refuses a server that does not offer it rather than log in in clear', async () => {
    const before = sink.received.length;
    expect((await put(settingsOf({ security: 'starttls', password: PASSWORD }))).status).toBe(200);
    const res = await admin.post('/api/settings/email/test', { to: 'ops@example.com' });
    answers.push(res.text);
    expect(res.body.sent).toBe(false);
    expect(res.body.error).toMatch(/STARTTLS/);
    expect(sink.received).toHaveLength(before);
  });

  it('never shows the password in an answer or a log line', async () => {
    await get();
    expect(answers.length).toBeGreaterThan(8);
    for (const text of answers) expect(text).not.toContain(PASSWORD);
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(logs.lines)).not.toContain(PASSWORD);
  });
});

describe('the SMTP address policy (default config)', () => {
  let t: TestApp;
  let admin: Client;
  beforeAll(async () => {
    t = await startTestApp();
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(() => t.close());

  const put = (host: string) =>
    admin.put('/api/settings/email', {
      enabled: true,
      host,
      port: 587,
      security: 'starttls',
      fromAddress: 'gate@yard.example.com',
    });

  it('refuses the box itself and link-local addresses (400 address-refused), nothing stored', async () => {
    for (const host of ['127.0.0.1', '169.254.169.254', '::1', '0.0.0.0', 'localhost']) {
      const res = await put(host);
      expect(res.status, host).toBe(400);
      expect(res.body.errors, host).toEqual([
        expect.objectContaining({ path: 'body.host', code: 'address-refused' }),
      ]);
    }
    expect(await query(t.db, 'SELECT * FROM email_settings')).toEqual([]);
  });

  it('allows a relay on the private network', async () => {
    const res = await put('10.0.0.5');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ host: '10.0.0.5', password: null });
  });

  it('refuses a host that is not a host name', async () => {
    const res = await put('smtp://mail.example.com:25');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('body.host');
  });
});
