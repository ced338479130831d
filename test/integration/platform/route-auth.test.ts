import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../../shared/auth/secrets.js';
import { newId } from '../../../shared/ids.js';
import { ROUTE_TABLE } from '../../fixtures/route-table.js';
import { seed } from '../../helpers/builders.js';
import { carrierClient } from '../../helpers/carrier-user.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Derived from the route table: every route exists and is documented, answers 401 without a
 * token, 403 for each role the table does not allow (a carrier user: the unknown-route 404, as if
 * the route did not exist; docs/api.md "Roles and access"), and lets each allowed role through.
 */
const ALL_ROLES = ['admin', 'dispatcher', 'gate', 'billing', 'viewer', 'driver', 'carrier'] as const;
let t: TestApp;
let anon: Client;
const driverId = newId();
const byRole = new Map<string, Client>();

beforeAll(async () => {
  t = await startTestApp();
  const admin = new Client(t.url, t.adminToken);
  anon = admin.as(undefined);
  byRole.set('admin', admin);
  for (const role of ['dispatcher', 'gate', 'billing', 'viewer'] as const)
    byRole.set(role, await clientWithRole(admin, role));
  const now = Date.now();
  await t.core.changes.insert(t.core.kysely, 'driver', {
    id: driverId,
    kind: 'yard',
    carrierId: null,
    firstName: 'Jo',
    lastName: 'Jockey',
    phone: null,
    licenseNumber: null,
    licenseRegion: null,
    licenseExpiresOn: null,
    status: 'active',
    blockedReason: null,
    driverCode: 'J100',
    pinHash: await hashSecret('4321'),
    notes: null,
    createdAt: now,
    updatedAt: now,
  });
  const login = await anon.post('/api/auth/driver-login', { driverCode: 'J100', pin: '4321' });
  expect(login.status).toBe(200);
  byRole.set('driver', anon.as(login.body.token));
  const carrier = await seed(admin).carrier({ name: 'Route Walk Freight' });
  byRole.set('carrier', await carrierClient(admin, carrier.id));
});
afterAll(() => t.close());

function concretePath(path: string): string {
  return path
    .replace('{fullPath}', 'index.html')
    .replace('{name}', 'tasks.autoAssign')
    .replace(/\{\w+\}/g, () => newId());
}

/** Status of a request; streams (SSE) are cut as soon as the status is known. */
async function statusOf(
  client: Client,
  method: string,
  path: string,
  send: { body?: string; contentType?: string } = {},
): Promise<number> {
  return (await answerOf(client, method, path, send)).status;
}

/** Status and problem body (null for a success or a stream, which is cut at once). */
async function answerOf(
  client: Client,
  method: string,
  path: string,
  send: { body?: string; contentType?: string } = {},
): Promise<{ status: number; problem: Record<string, unknown> | null }> {
  const controller = new AbortController();
  const headers: Record<string, string> = { 'content-type': send.contentType ?? 'application/json' };
  if (client.token) headers.authorization = `Bearer ${client.token}`;
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers,
    body: ['POST', 'PUT', 'PATCH'].includes(method) ? (send.body ?? '{}') : undefined,
    signal: controller.signal,
  });
  const status = res.status;
  const problem = (res.headers.get('content-type') ?? '').startsWith('application/problem+json')
    ? ((await res.json()) as Record<string, unknown>)
    : null;
  controller.abort();
  return { status, problem };
}

/** The answer to a route that does not exist (shared/http/errors.ts routeNotFound). */
function unknownRoute(method: string, path: string) {
  return { status: 404, code: 'not-found', title: 'Not found', detail: `No route ${method} ${path}.` };
}

describe('route table: authentication and roles', () => {
  it('every route of the table is registered and in the OpenAPI document', () => {
    const doc = t.openapi() as { paths: Record<string, Record<string, unknown>> };
    const missing = ROUTE_TABLE.filter(
      (row) =>
        !t.routes.some((r) => r.method === row.method.toLowerCase() && r.path === row.path) ||
        !doc.paths[row.path]?.[row.method.toLowerCase()],
    ).map((row) => `${row.method} ${row.path}`);
    expect(missing).toEqual([]);
  });

  for (const row of ROUTE_TABLE) {
    const label = `${row.method} ${row.path}`;
    it(`${label}: ${row.roles === 'public' ? 'public' : row.roles === 'any' ? 'any principal' : row.roles.join(', ')}`, async () => {
      const path = concretePath(row.path);
      const anonymous = await statusOf(anon, row.method, path);
      if (row.roles === 'public') {
        expect(anonymous, `${label} without token`).not.toBe(401);
        return;
      }
      expect(anonymous, `${label} without token`).toBe(401);
      for (const role of ALL_ROLES) {
        // Logging out would revoke the shared token; it is covered in auth/auth.test.ts.
        if (row.path === '/api/auth/logout') continue;
        const allowed = row.roles === 'any' || row.roles.includes(role);
        // "R (self)": a driver may read its own record only; use its own id for the positive check.
        const own = role === 'driver' && row.path === '/api/driver/{id}' ? `/api/driver/${driverId}` : path;
        const { status, problem } = await answerOf(byRole.get(role)!, row.method, own);
        if (allowed) {
          expect([401, 403], `${label} as ${role} should pass the role check`).not.toContain(status);
          if (role === 'carrier')
            expect(String(problem?.detail ?? ''), `${label} as carrier: the route exists`).not.toMatch(
              /^No route /,
            );
        } else if (role === 'carrier') {
          expect(problem, `${label} as carrier`).toMatchObject(unknownRoute(row.method, own));
        } else expect(status, `${label} as ${role}`).toBe(403);
      }
    });
  }
});

describe('route table: authentication comes first, and only where it is needed', () => {
  const publicRows = ROUTE_TABLE.filter((row) => row.roles === 'public');
  const guardedRows = ROUTE_TABLE.filter((row) => row.roles !== 'public');

  it('public routes ignore a stale or malformed credential (a client with an expired token can log in again)', async () => {
    const stale = anon.as('expired-or-revoked-token');
    const answers: string[] = [];
    for (const row of publicRows) {
      for (const client of [stale, anon.as('yk.not-a-key')]) {
        const status = await statusOf(client, row.method, concretePath(row.path));
        if (status === 401) answers.push(`${row.method} ${row.path} with ${client.token}`);
      }
    }
    // Static files outside the route table: Swagger UI's assets.
    const asset = await fetch(`${t.url}/docs/swagger-ui.css`, { headers: { authorization: 'Bearer stale' } });
    if (asset.status !== 200) answers.push(`GET /docs/swagger-ui.css: ${asset.status}`);
    expect(answers).toEqual([]);

    const login = await stale.post('/api/auth/login', { username: 'admin', password: 'admin-password-1' });
    expect(login.status).toBe(200);
    const driver = await stale.post('/api/auth/driver-login', { driverCode: 'J100', pin: '4321' });
    expect(driver.status).toBe(200);
    const odd = await fetch(`${t.url}/healthz`, { headers: { authorization: 'Token abc' } });
    expect(odd.status).toBe(200);
  });

  it('routes that need a principal still answer 401 for a bad credential, saying why', async () => {
    const res = await anon.as('expired-or-revoked-token').get('/api/auth/me');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      code: 'unauthenticated',
      detail: expect.stringContaining('Log in again'),
    });
    const malformed = await fetch(`${t.url}/api/auth/me`, { headers: { authorization: 'Token abc' } });
    expect(malformed.status).toBe(401);
  });

  it('an anonymous request is 401 before any of it is read: bad ids, malformed JSON, another media type', async () => {
    const notIds = (path: string) =>
      path.replace('{fullPath}', 'index.html').replace(/\{\w+\}/g, () => 'not-a-valid-id');
    const wrong: string[] = [];
    for (const row of guardedRows) {
      for (const send of [{ body: '{"broken": ' }, { body: 'x=1', contentType: 'text/plain' }]) {
        const status = await statusOf(anon, row.method, notIds(row.path), send);
        if (status !== 401)
          wrong.push(`${row.method} ${row.path} (${send.contentType ?? 'json'}): ${status}`);
        // A stale token is no principal either.
        const stale = await statusOf(anon.as('stale'), row.method, notIds(row.path), send);
        if (stale !== 401) wrong.push(`${row.method} ${row.path} with a stale token: ${stale}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
