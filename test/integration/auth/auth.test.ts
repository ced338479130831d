import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { ADMIN, startTestApp, type TestApp } from '../../helpers/test-app.js';

/** Logins, tokens, users and API keys at the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes"). */
describe.each(TEST_DIALECTS)('auth (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud', YARD_LOGIN_ATTEMPTS: '3' } });
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(() => t.close());

  it('logs in, answers /me, and stores only a hash of the token', async () => {
    const me = await admin.get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ kind: 'user', name: ADMIN.username, role: 'admin', yardIds: null });
    const tokens = await query(t.db, 'SELECT token_hash FROM auth_token');
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.map((r) => r.token_hash)).not.toContain(t.adminToken);
  });

  it('rejects a wrong password with 401 problem+json', async () => {
    const res = await admin
      .as(undefined)
      .post('/api/auth/login', { username: ADMIN.username, password: 'nope-nope-nope' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('unauthenticated');
  });

  it('answers 401 for an unknown token on a route that needs a principal; public routes ignore it', async () => {
    expect((await admin.as('not-a-token').get('/api/auth/me')).status).toBe(401);
    expect((await admin.as('not-a-token').get('/healthz')).status).toBe(200);
  });

  it('rate-limits failed logins per account and address', async () => {
    const anon = admin.as(undefined);
    const attempt = () =>
      anon.post('/api/auth/login', { username: 'limited-user', password: 'wrong-password' });
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate-limited');
  });

  it('logout revokes exactly the token used', async () => {
    const viewer = await clientWithRole(admin, 'viewer');
    expect((await viewer.get('/api/auth/me')).status).toBe(200);
    expect((await viewer.post('/api/auth/logout')).status).toBe(204);
    expect((await viewer.get('/api/auth/me')).status).toBe(401);
    expect((await admin.get('/api/auth/me')).status).toBe(200);
  });

  it('disabling a user revokes their sessions at once', async () => {
    const gate = await clientWithRole(admin, 'gate', { username: 'gate-clerk-2' });
    const me = await gate.get('/api/auth/me');
    const disabled = await admin.delete(`/api/user/${me.body.id}`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabled).toBe(true);
    expect((await gate.get('/api/auth/me')).status).toBe(401);
    const relogin = await admin
      .as(undefined)
      .post('/api/auth/login', { username: 'gate-clerk-2', password: 'correct-horse-battery' });
    expect(relogin.status).toBe(401);
  });

  it('API keys: secret shown once, works as X-Api-Key, stops working when revoked', async () => {
    const created = await admin.post('/api/auth/api-key', { name: 'dock scheduler', role: 'viewer' });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    const viaKey = await fetch(`${t.url}/api/auth/me`, { headers: { 'x-api-key': key } });
    expect(viaKey.status).toBe(200);
    expect(await viaKey.json()).toMatchObject({ kind: 'api-key', role: 'viewer' });
    const list = await admin.get('/api/auth/api-key');
    expect(JSON.stringify(list.body)).not.toContain(key.split('.')[2]);
    expect((await admin.delete(`/api/auth/api-key/${created.body.id}`)).status).toBe(204);
    const after = await fetch(`${t.url}/api/auth/me`, { headers: { 'x-api-key': key } });
    expect(after.status).toBe(401);
  });

  it('validates user input field by field and changes nothing', async () => {
    const before = (await query(t.db, 'SELECT count(*) AS n FROM app_user'))[0].n;
    const res = await admin.post('/api/user', { username: 'x', role: 'wizard', password: 'short' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation-failed');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'body.password',
      'body.role',
      'body.username',
    ]);
    expect((await query(t.db, 'SELECT count(*) AS n FROM app_user'))[0].n).toBe(before);
  });

  it('duplicate username is 409', async () => {
    const res = await admin.post('/api/user', {
      username: ADMIN.username.toUpperCase(),
      role: 'viewer',
      password: 'long-enough-pw',
    });
    expect(res.status).toBe(409);
  });
});
