import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The admin scope rule (shared/modules/auth/admin-scope.ts): an admin scoped to yard A cannot make
 * itself, or anyone, an admin of the organisation. Each escalation a yard-scoped admin tried from
 * outside is refused here, and the database is unchanged after it. At the cloud, on each database
 * (docs/architecture.md "Two databases, and several cloud nodes"): the lists page in SQL with the scope in the WHERE clause.
 */
const PASSWORD = 'correct-horse-battery';

describe.each(TEST_DIALECTS)('admin scope (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let scopedAdmin: Client;
  let scopedAdminId: string;
  let adminId: string;
  let yardA: string;
  let yardB: string;

  const user = async (id: string) => (await query(t.db, 'SELECT * FROM app_user WHERE id = ?', id))[0];
  const count = async (table: string) =>
    (await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

  async function createUser(
    by: Client,
    role: string,
    yardIds: string[] | null,
    username = `u-${newId().slice(-8)}`,
  ) {
    return by.post('/api/user', { username, role, password: PASSWORD, yardIds });
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    const yard = async (code: string) => {
      return (await seed(admin).yard({ code, timeZone: 'Europe/Berlin' })).id as string;
    };
    yardA = await yard('SCOPE-A');
    yardB = await yard('SCOPE-B');
    scopedAdmin = await clientWithRole(admin, 'admin', { yardIds: [yardA], username: 'admin-of-a' });
    scopedAdminId = (await scopedAdmin.get('/api/auth/me')).body.id;
    adminId = (await admin.get('/api/auth/me')).body.id;
  });
  afterAll(() => t.close());

  describe('a yard-scoped admin administers only its own yards', () => {
    it('lists only the users and API keys inside its scope', async () => {
      const inA = (await createUser(admin, 'viewer', [yardA])).body.id;
      const inB = (await createUser(admin, 'viewer', [yardB])).body.id;
      const inAB = (await createUser(admin, 'viewer', [yardA, yardB])).body.id;
      const nowhere = (await createUser(admin, 'viewer', [])).body.id;
      const seen = (await scopedAdmin.get('/api/user?limit=500')).body.items.map((u: { id: string }) => u.id);
      expect(seen).toContain(inA);
      expect(seen).toContain(scopedAdminId);
      for (const hidden of [inB, inAB, nowhere, adminId]) expect(seen).not.toContain(hidden);
      // The unscoped admin still sees everyone.
      const all = (await admin.get('/api/user?limit=500')).body.items.map((u: { id: string }) => u.id);
      expect(all).toEqual(expect.arrayContaining([inA, inB, inAB, nowhere, adminId, scopedAdminId]));

      const keyA = (await admin.post('/api/auth/api-key', { name: 'a', role: 'viewer', yardIds: [yardA] }))
        .body.id;
      const keyAll = (await admin.post('/api/auth/api-key', { name: 'all', role: 'admin' })).body.id;
      const keys = (await scopedAdmin.get('/api/auth/api-key')).body.items.map((k: { id: string }) => k.id);
      expect(keys).toContain(keyA);
      expect(keys).not.toContain(keyAll);
    });

    it('cannot create an unscoped admin, nor any user beyond its yards', async () => {
      const before = await count('app_user');
      for (const yardIds of [null, [yardB], [yardA, yardB], []]) {
        const res = await createUser(scopedAdmin, 'admin', yardIds);
        expect(res.status, JSON.stringify(yardIds)).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
      const omitted = await scopedAdmin.post('/api/user', {
        username: 'no-scope-given',
        role: 'viewer',
        password: PASSWORD,
      });
      expect(omitted.status).toBe(403);
      expect(await count('app_user')).toBe(before);
      // Within its yards it may (an admin of yard A too).
      const ok = await createUser(scopedAdmin, 'admin', [yardA]);
      expect(ok.status).toBe(201);
      expect(ok.body.yardIds).toEqual([yardA]);
    });

    it('cannot widen its own scope (to every yard or to another yard)', async () => {
      for (const yardIds of [null, [yardA, yardB], [yardB]]) {
        const res = await scopedAdmin.patch(`/api/user/${scopedAdminId}`, { yardIds });
        expect(res.status, JSON.stringify(yardIds)).toBe(403);
      }
      expect(JSON.parse((await user(scopedAdminId)).yard_ids)).toEqual([yardA]);
      expect((await scopedAdmin.get('/api/auth/me')).body.yardIds).toEqual([yardA]);
    });

    it("cannot reset a yard-B user's password (404: outside its view); the user still logs in", async () => {
      const username = 'viewer-of-b';
      const target = (await createUser(admin, 'viewer', [yardB], username)).body.id;
      const before = await user(target);
      const res = await scopedAdmin.patch(`/api/user/${target}`, { password: 'taken-over-password' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not-found');
      expect(await user(target)).toEqual(before);
      const login = await admin.as(undefined).post('/api/auth/login', { username, password: PASSWORD });
      expect(login.status).toBe(200);
    });

    it('may manage a user inside its scope, but not move them out of it', async () => {
      const target = (await createUser(scopedAdmin, 'gate', [yardA])).body.id;
      expect((await scopedAdmin.patch(`/api/user/${target}`, { password: 'a-new-password-1' })).status).toBe(
        200,
      );
      const moved = await scopedAdmin.patch(`/api/user/${target}`, { yardIds: [yardB] });
      expect(moved.status).toBe(403);
      expect(JSON.parse((await user(target)).yard_ids)).toEqual([yardA]);
    });

    it('cannot create an unscoped or out-of-scope API key', async () => {
      const before = await count('api_key');
      for (const body of [
        { name: 'org key', role: 'admin' },
        { name: 'org key', role: 'admin', yardIds: null },
        { name: 'b key', role: 'viewer', yardIds: [yardB] },
      ]) {
        const res = await scopedAdmin.post('/api/auth/api-key', body);
        expect(res.status, JSON.stringify(body)).toBe(403);
      }
      expect(await count('api_key')).toBe(before);
      const ok = await scopedAdmin.post('/api/auth/api-key', {
        name: 'a key',
        role: 'admin',
        yardIds: [yardA],
      });
      expect(ok.status).toBe(201);
      // That key is scoped like its creator: it cannot escalate either.
      const viaKey = await fetch(`${t.url}/api/user`, {
        method: 'POST',
        headers: { 'x-api-key': ok.body.key, 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'key-made-admin', role: 'admin', password: PASSWORD }),
      });
      expect(viaKey.status).toBe(403);
    });

    it('cannot revoke an API key outside its scope', async () => {
      const key = (await admin.post('/api/auth/api-key', { name: 'org scheduler', role: 'viewer' })).body;
      const res = await scopedAdmin.delete(`/api/auth/api-key/${key.id}`);
      expect(res.status).toBe(404);
      expect(
        (await query(t.db, 'SELECT revoked_at FROM api_key WHERE id = ?', key.id))[0].revoked_at,
      ).toBeNull();
    });

    it('cannot change settings (they apply beyond its yards)', async () => {
      const before = await query(t.db, 'SELECT * FROM setting');
      for (const settings of [{ 'attachments.maxBytes': 2048 }, { 'ui.siteName': 'Taken' }]) {
        const res = await scopedAdmin.put('/api/settings', { settings });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
      expect(await query(t.db, 'SELECT * FROM setting')).toEqual(before);
      // The organisation's admin may (a global setting: the cloud owns those).
      expect((await admin.put('/api/settings', { settings: { 'attachments.maxBytes': 2048 } })).status).toBe(
        200,
      );
    });

    it('cannot disable the global admin (404), who keeps working', async () => {
      expect((await scopedAdmin.delete(`/api/user/${adminId}`)).status).toBe(404);
      expect((await scopedAdmin.patch(`/api/user/${adminId}`, { disabled: true })).status).toBe(404);
      expect((await scopedAdmin.patch(`/api/user/${adminId}`, { role: 'viewer' })).status).toBe(404);
      expect((await user(adminId)).disabled).toBe(0);
      expect((await user(adminId)).role).toBe('admin');
      expect((await admin.get('/api/auth/me')).status).toBe(200);
      const relogin = await admin.as(undefined).post('/api/auth/login', ADMIN);
      expect(relogin.status).toBe(200);
    });
  });

  describe('a user or key is scoped only to yards that exist', () => {
    it('create: 400 validation-failed on body.yardIds.N, nothing stored', async () => {
      const before = await count('app_user');
      const unknown = newId();
      const res = await createUser(admin, 'viewer', [yardA, unknown]);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors).toEqual([
        expect.objectContaining({ path: 'body.yardIds.1', code: 'unknown-yard' }),
      ]);
      expect(await count('app_user')).toBe(before);
    });

    it('update: 400 on the field, the user unchanged', async () => {
      const target = (await createUser(admin, 'viewer', [yardA])).body.id;
      const before = await user(target);
      const res = await admin.patch(`/api/user/${target}`, { yardIds: [newId()] });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('body.yardIds.0');
      expect(await user(target)).toEqual(before);
    });

    it('API keys too', async () => {
      const before = await count('api_key');
      const res = await admin.post('/api/auth/api-key', {
        name: 'ghost',
        role: 'viewer',
        yardIds: [newId()],
      });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('body.yardIds.0');
      expect(await count('api_key')).toBe(before);
    });
  });
});
