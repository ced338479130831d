import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../shared/auth/secrets.js';
import { newId } from '../../shared/ids.js';
import { ROUTE_TABLE } from '../fixtures/route-table.js';
import { Client, clientWithRole } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Derived from the route table: every route exists and is documented, answers 401 without a
 * token, 403 for each role the table does not allow, and lets each allowed role through.
 */
const ALL_ROLES = ['admin', 'dispatcher', 'gate', 'billing', 'viewer', 'driver'] as const;
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
});
afterAll(() => t.close());

function concretePath(path: string): string {
  return path
    .replace('{fullPath}', 'index.html')
    .replace('{name}', 'tasks.autoAssign')
    .replace(/\{\w+\}/g, () => newId());
}

/** Status of a request; streams (SSE) are cut as soon as the status is known. */
async function statusOf(client: Client, method: string, path: string): Promise<number> {
  const controller = new AbortController();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (client.token) headers.authorization = `Bearer ${client.token}`;
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers,
    body: ['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined,
    signal: controller.signal,
  });
  const status = res.status;
  controller.abort();
  return status;
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
        // Logging out would revoke the shared token; it is covered in auth.test.ts.
        if (row.path === '/api/auth/logout') continue;
        const allowed = row.roles === 'any' || row.roles.includes(role);
        // "R (self)": a driver may read its own record only; use its own id for the positive check.
        const own = role === 'driver' && row.path === '/api/driver/{id}' ? `/api/driver/${driverId}` : path;
        const status = await statusOf(byRole.get(role)!, row.method, own);
        if (allowed)
          expect([401, 403], `${label} as ${role} should pass the role check`).not.toContain(status);
        else expect(status, `${label} as ${role}`).toBe(403);
      }
    });
  }
});
