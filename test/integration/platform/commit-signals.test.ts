import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import { postgresAvailable } from '../../helpers/postgres.js';
import { loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * Two cloud nodes on one PostgreSQL: what a node keeps in memory follows what the other commits
 * (docs/architecture.md "Two databases, and several cloud nodes"). Each wait is bounded well below the caches' own lifetimes (a principal is cached for
 * 5 s, a trailer page and the settings until their table changes), so only the commit signals can
 * make these pass.
 */
describe.skipIf(!postgresAvailable())("a cloud node hears what another node's transactions commit", () => {
  let a: TestApp<AppDatabase>;
  let b: TestApp<AppDatabase>;
  let viaA: Client;
  let viaB: Client;

  beforeAll(async () => {
    a = await startTestApp({ dialect: 'postgres', env: { YARD_ROLE: 'cloud' }, start: true });
    b = await startTestApp({
      dialect: 'postgres',
      postgresUrl: a.postgresUrl!,
      env: { YARD_ROLE: 'cloud' },
      start: true,
    });
    viaA = new Client(a.url, a.adminToken);
    viaB = new Client(b.url, b.adminToken);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("B's cached trailer list shows a trailer created through A, and its ETag moves on", async () => {
    const carrier = await seed(viaA).carrier();
    const before = await viaB.get('/api/trailer?limit=50');
    expect(before.status).toBe(200);
    const etag = before.headers.get('etag');
    // Asked again: the same cached page.
    expect((await viaB.get('/api/trailer?limit=50')).headers.get('etag')).toBe(etag);
    const made = await viaA.post('/api/trailer', { number: 'SIG 1', carrierId: carrier.id });
    expect(made.status, made.text).toBe(201);
    await waitFor(
      async () => {
        const page = await viaB.get('/api/trailer?limit=50');
        return (
          page.body.items.some((t: { id: string }) => t.id === made.body.id) &&
          page.headers.get('etag') !== etag
        );
      },
      { timeoutMs: 2000, what: "the new trailer in B's list" },
    );
  });

  it('a setting changed through A is in force at B', async () => {
    expect((await viaB.get('/api/settings/attachments.maxBytes')).status).toBe(200);
    const put = await viaA.put('/api/settings', { settings: { 'attachments.maxBytes': 123_456 } });
    expect(put.status, put.text).toBe(200);
    await waitFor(async () => (await viaB.get('/api/settings/attachments.maxBytes')).body.value === 123_456, {
      timeoutMs: 2000,
      what: 'the new value at B',
    });
  });

  it('a token logged out through A is refused at B at once, though B had it cached', async () => {
    const token = await loginAdmin(a.url);
    const asB = new Client(b.url, token);
    expect((await asB.get('/api/yard')).status).toBe(200); // cached at B from here
    expect((await new Client(a.url, token).post('/api/auth/logout', {})).status).toBe(204);
    await waitFor(async () => (await asB.get('/api/yard')).status === 401, {
      timeoutMs: 2000,
      what: 'the logged-out token refused at B',
    });
  });

  it('change-log rows written through A for a site wake the links at B', async () => {
    await query(
      a.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'sig1',
      'Signal site',
      'x',
      Date.now(),
    );
    const woken: string[] = [];
    b.core.changes.onLogged((peers) => woken.push(...peers));
    const yard = await seed(viaA).yard({ siteId: 'sig1' });
    expect(yard.id).toBeTruthy();
    await waitFor(() => woken.includes('sig1'), { timeoutMs: 2000, what: "B's links woken for sig1" });
  });
});
