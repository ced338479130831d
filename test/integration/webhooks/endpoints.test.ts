import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** A public unicast address (never contacted: registering only checks the address). */
const PUBLIC = 'https://93.184.216.34/hooks/yard';

/** Webhook endpoints registered by an admin (docs/webhooks.md, docs/api.md "Carrier users, email, webhooks"). */
describe.each(TEST_DIALECTS)('webhook endpoints on %s', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  let scoped: Client;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    admin = new Client(t.url, t.adminToken);
    yardA = (await seed(admin).yard()).id;
    yardB = (await seed(admin).yard()).id;
    scoped = await clientWithRole(admin, 'admin', { yardIds: [yardA] });
  });
  afterAll(() => t?.close());

  const count = async () => Number((await query(t.db, 'SELECT count(*) AS n FROM webhook_endpoint'))[0].n);

  it('registers an endpoint and shows its signing secret once', async () => {
    const carrier = await seed(admin).carrier();
    const res = await admin.post('/api/webhook', {
      url: PUBLIC,
      description: 'Our TMS',
      events: ['appointment.created', 'appointment.cancelled'],
      carrierIds: [carrier.id],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.headers.get('location')).toBe(`/api/webhook/${res.body.id}`);
    expect(res.body).toMatchObject({
      url: PUBLIC,
      description: 'Our TMS',
      events: ['appointment.created', 'appointment.cancelled'],
      yardIds: null,
      carrierIds: [carrier.id],
      enabled: true,
      version: 1,
      health: { pending: 0, failed: 0, lastDeliveredAt: null, lastError: null },
    });
    const one = await admin.get(`/api/webhook/${res.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    expect(one.text).not.toContain(res.body.secret);
    const list = await admin.get('/api/webhook');
    expect(list.body.items.map((e: { id: string }) => e.id)).toContain(res.body.id);
    expect(list.text).not.toContain(res.body.secret);
  });

  it.each([
    ['https://10.0.0.5/hook', 'private'],
    ['https://127.0.0.1:8443/hook', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[::ffff:192.168.1.10]/hook', 'private'],
    ['https://localhost/hook', 'loopback'],
  ])('refuses %s (%s) with 400 address-refused and stores nothing', async (url, range) => {
    const before = await count();
    const res = await admin.post('/api/webhook', { url, events: ['movement.created'] });
    expect(res.status, res.text).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('address-refused');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body.url', code: 'address-refused' })]);
    expect(res.body.detail).toContain(range);
    expect(await count()).toBe(before);
  });

  it('refuses plain http, credentials in the URL and unknown event types', async () => {
    for (const body of [
      { url: 'http://93.184.216.34/hook', events: ['movement.created'] },
      { url: 'https://user:pw@93.184.216.34/hook', events: ['movement.created'] },
      { url: PUBLIC, events: ['appointment.eaten'] },
      { url: PUBLIC, events: [] },
    ]) {
      const res = await admin.post('/api/webhook', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation-failed');
    }
    const unknownCarrier = await admin.post('/api/webhook', {
      url: PUBLIC,
      events: ['movement.created'],
      carrierIds: ['01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f'],
    });
    expect(unknownCarrier.status).toBe(400);
    expect(unknownCarrier.body.errors).toEqual([
      expect.objectContaining({ path: 'body.carrierIds.0', code: 'unknown-carrier' }),
    ]);
  });

  it('is for admins only', async () => {
    const dispatcher = await clientWithRole(admin, 'dispatcher');
    expect((await dispatcher.get('/api/webhook')).status).toBe(403);
    expect(
      (await dispatcher.post('/api/webhook', { url: PUBLIC, events: ['movement.created'] })).status,
    ).toBe(403);
    expect((await admin.as(undefined).get('/api/webhook')).status).toBe(401);
  });

  it('keeps a yard-scoped admin inside its yards', async () => {
    const everyYard = await scoped.post('/api/webhook', { url: PUBLIC, events: ['movement.created'] });
    expect(everyYard.status).toBe(403);
    const otherYard = await scoped.post('/api/webhook', {
      url: PUBLIC,
      events: ['movement.created'],
      yardIds: [yardB],
    });
    expect(otherYard.status).toBe(403);
    const own = await scoped.post('/api/webhook', {
      url: PUBLIC,
      events: ['movement.created'],
      yardIds: [yardA],
    });
    expect(own.status).toBe(201);
    const theirs = await admin.post('/api/webhook', {
      url: PUBLIC,
      events: ['movement.created'],
      yardIds: [yardB],
    });
    expect((await scoped.get(`/api/webhook/${theirs.body.id}`)).status).toBe(404);
    expect((await scoped.delete(`/api/webhook/${theirs.body.id}`)).status).toBe(404);
    const ids = (await scoped.get('/api/webhook?limit=500')).body.items.map((e: { id: string }) => e.id);
    expect(ids).toContain(own.body.id);
    expect(ids).not.toContain(theirs.body.id);
    expect((await scoped.patch(`/api/webhook/${own.body.id}`, { yardIds: null })).status).toBe(403);
  });

  it('changes an endpoint under If-Match, rotates its secret, and removes it', async () => {
    const created = await admin.post('/api/webhook', { url: PUBLIC, events: ['movement.created'] });
    const path = `/api/webhook/${created.body.id}`;
    const stale = await admin.patch(path, { enabled: false }, { 'if-match': '"v7"' });
    expect(stale.status).toBe(412);
    const changed = await admin.patch(
      path,
      { enabled: false, events: ['appointment.no_show'] },
      { 'if-match': '"v1"' },
    );
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ enabled: false, events: ['appointment.no_show'], version: 2 });
    expect(changed.body.secret).toBeUndefined();
    const refused = await admin.patch(path, { url: 'https://10.1.2.3/x' });
    expect(refused.body.code).toBe('address-refused');
    const rotated = await admin.patch(path, { rotateSecret: true });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const stored = await query(
      t.db,
      'SELECT secret, url FROM webhook_endpoint WHERE id = ?',
      created.body.id,
    );
    expect(stored).toEqual([{ secret: rotated.body.secret, url: PUBLIC }]);
    expect((await admin.delete(path)).status).toBe(204);
    expect((await admin.get(path)).status).toBe(404);
    expect((await admin.patch(path, { enabled: true })).status).toBe(404);
  });
});
