import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seed } from '../../helpers/builders.js';
import { CARRIER_PASSWORD, carrierClient } from '../../helpers/carrier-user.js';
import { Client, clientWithRole, query, type Res } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { serveLinkedEdge } from '../billing/fixture.js';

/**
 * Carrier users (docs/api.md "Roles and access"): created by an admin through the user routes, kept
 * in carrier_user (never synced: no change_log row), logged in as staff are, and narrowed to their
 * carrier in the principal. A username is one login across staff and carrier users.
 */
describe.each(TEST_DIALECTS)('carrier users (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let carrierA: string;
  let carrierB: string;
  let yardA: string;
  let yardB: string;

  const username = () => `cu-${newId().slice(-8)}`;
  const create = (by: Client, body: Record<string, unknown>) =>
    by.post('/api/user', { username: username(), password: CARRIER_PASSWORD, ...body });
  const login = (name: string, password = CARRIER_PASSWORD) =>
    admin.as(undefined).post('/api/auth/login', { username: name, password });

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    carrierA = (await seed(admin).carrier({ name: 'Prairie Freight' })).id;
    carrierB = (await seed(admin).carrier({ name: 'Other Lines' })).id;
    yardA = (await seed(admin).yard({ code: 'CU-A', timeZone: 'Europe/Berlin' })).id;
    yardB = (await seed(admin).yard({ code: 'CU-B', timeZone: 'Europe/Berlin' })).id;
  });
  afterAll(() => t.close());

  it('an admin creates a carrier user: stored in carrier_user, never in app_user or the change log', async () => {
    const res = await create(admin, { role: 'carrier', carrierId: carrierA, displayName: 'Dispatch' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      role: 'carrier',
      carrierId: carrierA,
      displayName: 'Dispatch',
      disabled: false,
    });
    expect(res.headers.get('location')).toBe(`/api/user/${res.body.id}`);
    const id = res.body.id as string;
    expect(await query(t.db, 'SELECT carrier_id FROM carrier_user WHERE id = ?', id)).toEqual([
      { carrier_id: carrierA },
    ]);
    expect(await query(t.db, 'SELECT id FROM app_user WHERE id = ?', id)).toEqual([]);
    expect(await query(t.db, 'SELECT entity_id FROM change_log WHERE entity_id = ?', id)).toEqual([]);
    expect((await admin.get(`/api/user/${id}`)).status).toBe(404); // no GET by id route: unknown route
  });

  it('carrierId is required for a carrier user and refused for staff; an unknown carrier is 404', async () => {
    const missing = await create(admin, { role: 'carrier' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].path).toBe('body.carrierId');
    const staffWithCarrier = await create(admin, { role: 'viewer', carrierId: carrierA });
    expect(staffWithCarrier.status).toBe(400);
    const unknown = await create(admin, { role: 'carrier', carrierId: newId() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not-found');
    expect(unknown.body.detail).toMatch(/^Carrier /);
    expect(
      await query(t.db, 'SELECT count(*) AS n FROM carrier_user WHERE carrier_id <> ?', carrierA),
    ).toEqual([{ n: 0 }]);
  });

  it('logs in through the normal login; the principal and /api/auth/me carry the carrier', async () => {
    const carrier = await carrierClient(admin, carrierA, { yardIds: [yardA] });
    const relogin = await login(carrier.username);
    expect(relogin.status).toBe(200);
    expect(relogin.body.principal).toEqual({
      kind: 'user',
      id: carrier.userId,
      name: carrier.username,
      role: 'carrier',
      yardIds: [yardA],
      carrierId: carrierA,
    });
    const me = await carrier.get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ role: 'carrier', carrierId: carrierA, yardIds: [yardA] });
    expect((await login(carrier.username, 'wrong-password-1')).status).toBe(401);
  });

  it('a username is one login across staff and carrier users (case-blind, both ways)', async () => {
    const name = username();
    expect((await create(admin, { username: name, role: 'viewer' })).status).toBe(201);
    const clash = await create(admin, { username: name.toUpperCase(), role: 'carrier', carrierId: carrierA });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('duplicate');
    const other = username();
    expect((await create(admin, { username: other, role: 'carrier', carrierId: carrierA })).status).toBe(201);
    const back = await create(admin, { username: other.toUpperCase(), role: 'dispatcher' });
    expect(back.status).toBe(409);
    expect(back.body.code).toBe('duplicate');
    expect(await query(t.db, 'SELECT count(*) AS n FROM app_user WHERE lower(username) = ?', other)).toEqual([
      { n: 0 },
    ]);
  });

  it('lists carrier users beside staff, by role and by carrier', async () => {
    const a = await carrierClient(admin, carrierA);
    const b = await carrierClient(admin, carrierB);
    const ids = async (q: string) =>
      ((await admin.get(`/api/user?limit=500${q}`)).body.items as { id: string; role: string }[]).map(
        (u) => u,
      );
    const carriers = await ids('&role=carrier');
    expect(carriers.every((u) => u.role === 'carrier')).toBe(true);
    expect(carriers.map((u) => u.id)).toEqual(expect.arrayContaining([a.userId, b.userId]));
    const ofA = await ids(`&carrierId=${carrierA}`);
    expect(ofA.map((u) => u.id)).toContain(a.userId);
    expect(ofA.map((u) => u.id)).not.toContain(b.userId);
    const viewers = await ids('&role=viewer');
    expect(viewers.map((u) => u.id)).not.toContain(a.userId);
    const all = await ids('');
    expect(all.map((u) => u.id)).toEqual(expect.arrayContaining([a.userId, b.userId]));
    expect(all.some((u) => u.role === 'admin')).toBe(true);
    const sorted = [...all.map((u) => u.id)].sort();
    expect(all.map((u) => u.id)).toEqual(sorted);
  });

  it('pages staff and carrier users together by id without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Res = await admin.get(`/api/user?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((u: { id: string }) => u.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    const all = (await admin.get('/api/user?limit=500')).body.items.map((u: { id: string }) => u.id);
    expect(seen).toEqual(all);
  });

  it('a role cannot cross between staff and carrier, nor a carrier user change carrier (400 role-kind-change)', async () => {
    const carrier = await carrierClient(admin, carrierA);
    const toStaff = await admin.patch(`/api/user/${carrier.userId}`, { role: 'admin' });
    expect(toStaff.status).toBe(400);
    expect(toStaff.body.code).toBe('role-kind-change');
    const otherCarrier = await admin.patch(`/api/user/${carrier.userId}`, { carrierId: carrierB });
    expect(otherCarrier.status).toBe(400);
    expect(otherCarrier.body.code).toBe('role-kind-change');
    const viewer = await create(admin, { role: 'viewer' });
    const toCarrier = await admin.patch(`/api/user/${viewer.body.id}`, {
      role: 'carrier',
      carrierId: carrierA,
    });
    expect(toCarrier.status).toBe(400);
    expect(toCarrier.body.code).toBe('role-kind-change');
    expect(await query(t.db, 'SELECT role FROM app_user WHERE id = ?', viewer.body.id)).toEqual([
      { role: 'viewer' },
    ]);
    expect((await carrier.get('/api/auth/me')).body.carrierId).toBe(carrierA);
  });

  it('patches a carrier user (If-Match); a new password or disabling signs it out', async () => {
    const carrier = await carrierClient(admin, carrierA);
    const renamed = await admin.patch(
      `/api/user/${carrier.userId}`,
      { displayName: 'Night desk' },
      { 'if-match': '"v1"' },
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ displayName: 'Night desk', version: 2, role: 'carrier' });
    expect(
      (await admin.patch(`/api/user/${carrier.userId}`, { displayName: 'x' }, { 'if-match': '"v1"' })).status,
    ).toBe(412);
    expect((await carrier.get('/api/auth/me')).status).toBe(200); // a new name keeps the session
    const newPassword = await admin.patch(`/api/user/${carrier.userId}`, { password: 'another-password-9' });
    expect(newPassword.status).toBe(200);
    expect((await carrier.get('/api/auth/me')).status).toBe(401);
    expect((await login(carrier.username)).status).toBe(401);
    const again = await login(carrier.username, 'another-password-9');
    expect(again.status).toBe(200);
    const disabled = await admin.delete(`/api/user/${carrier.userId}`);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ disabled: true, role: 'carrier' });
    expect((await admin.as(again.body.token).get('/api/auth/me')).status).toBe(401);
    expect((await login(carrier.username, 'another-password-9')).status).toBe(401);
  });

  it('a yard-scoped admin creates carrier users only inside its own yards', async () => {
    const scoped = await clientWithRole(admin, 'admin', { yardIds: [yardA] });
    const inside = await create(scoped, { role: 'carrier', carrierId: carrierA, yardIds: [yardA] });
    expect(inside.status).toBe(201);
    expect((await create(scoped, { role: 'carrier', carrierId: carrierA, yardIds: [yardB] })).status).toBe(
      403,
    );
    expect((await create(scoped, { role: 'carrier', carrierId: carrierA, yardIds: null })).status).toBe(403);
    const everywhere = await create(admin, { role: 'carrier', carrierId: carrierA, yardIds: null });
    const listed = (await scoped.get('/api/user?role=carrier&limit=500')).body.items.map(
      (u: { id: string }) => u.id,
    );
    expect(listed).toContain(inside.body.id);
    expect(listed).not.toContain(everywhere.body.id);
    expect((await scoped.patch(`/api/user/${everywhere.body.id}`, { displayName: 'x' })).status).toBe(404);
  });

  it('a linked edge refuses to create a carrier user (409 cloud-owned)', async () => {
    const edge = await serveLinkedEdge(t);
    try {
      const before = await query(t.db, 'SELECT count(*) AS n FROM carrier_user');
      const res = await create(edge.admin, { role: 'carrier', carrierId: carrierA });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('cloud-owned');
      expect(await query(t.db, 'SELECT count(*) AS n FROM carrier_user')).toEqual(before);
    } finally {
      await edge.close();
    }
  });
});
