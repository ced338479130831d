import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.js';
import { seed } from '../../helpers/builders.js';
import { carrierClient } from '../../helpers/carrier-user.js';
import { Client } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * A carrier user walks every operation of the OpenAPI document at the cloud (docs/api.md "Roles and
 * access"): an operation whose access does not admit the carrier role answers exactly what a path
 * that does not exist answers for the same request (status, code, title, the detail naming the
 * path), so a carrier cannot even tell which routes exist; the operations that admit it are not
 * refused by route. The access is read from the app's own routes (each `RouteInfo.access`), so a
 * route added later is walked too.
 */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** A request body for the writes: a valid JSON object, and malformed JSON (read before or after the role check?). */
const BODIES = [undefined, '{}', '{"broken": '] as const;

interface Answer {
  status: number;
  contentType: string;
  problem: Record<string, unknown> | null;
}

describe('a carrier user walks every route', () => {
  let t: TestApp;
  let carrier: Client;

  beforeAll(async () => {
    t = await startTestApp({ env: { YARD_ROLE: 'cloud' } });
    const admin = new Client(t.url, t.adminToken);
    const own = await seed(admin).carrier({ name: 'Walking Freight' });
    carrier = await carrierClient(admin, own.id);
  });
  afterAll(() => t.close());

  async function answer(method: string, path: string, body?: string): Promise<Answer> {
    const controller = new AbortController();
    const headers: Record<string, string> = { authorization: `Bearer ${carrier.token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${t.url}${path}`, { method, headers, body, signal: controller.signal });
    const contentType = res.headers.get('content-type') ?? '';
    const problem = contentType.startsWith('application/problem+json')
      ? ((await res.json()) as Record<string, unknown>)
      : null;
    controller.abort(); // an event stream would not end
    return { status: res.status, contentType, problem };
  }

  /** The answer with the path taken out of the detail (the one part that names the request). */
  function withoutPath(a: Answer, path: string): Answer {
    if (!a.problem) return a;
    const detail =
      typeof a.problem.detail === 'string' ? a.problem.detail.replace(path, '<path>') : a.problem.detail;
    const { instance: _instance, requestId: _requestId, ...rest } = a.problem;
    return { ...a, problem: { ...rest, detail } };
  }

  it('every operation that does not admit a carrier answers as a route that does not exist', async () => {
    const doc = t.openapi() as { paths: Record<string, Record<string, unknown>> };
    const differ: string[] = [];
    const admitted: string[] = [];
    let refused = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        if (!ops[method]) continue;
        const route = t.routes.find((r) => r.method === method && r.path === path);
        expect(route, `${method} ${path} in the document is a route`).toBeDefined();
        const access = route!.access;
        // Logging out would end the walk's session; logout admits every principal (auth tests).
        if (access === 'public' || path === '/api/auth/logout') continue;
        const concrete = concretePath(path);
        const unknown = `/api/no-such-route-${newId().slice(-6)}`;
        const bodies = method === 'get' || method === 'delete' ? [undefined] : BODIES;
        for (const body of bodies) {
          const got = await answer(method.toUpperCase(), concrete, body);
          const label = `${method.toUpperCase()} ${path}${body ? ` with ${body}` : ''}`;
          if (access === 'any' || access.includes('carrier')) {
            // Admitted: whatever it answers (a 404 for an id of nothing, a 400 for a bad body), it is
            // not the unknown-route answer and not a role refusal.
            if (
              got.status === 403 ||
              got.status === 401 ||
              /^No route /.test(String(got.problem?.detail ?? ''))
            )
              admitted.push(`${label}: ${got.status} ${JSON.stringify(got.problem)}`);
            continue;
          }
          refused++;
          const reference = await answer(method.toUpperCase(), unknown, body);
          expect(reference.status).toBe(404);
          if (JSON.stringify(withoutPath(got, concrete)) !== JSON.stringify(withoutPath(reference, unknown)))
            differ.push(`${label}: ${got.status} ${JSON.stringify(got.problem)}`);
        }
      }
    }
    expect(differ).toEqual([]);
    expect(admitted).toEqual([]);
    // The walk reached the document: far more refused operations than admitted ones.
    expect(refused).toBeGreaterThan(100);
  });

  it('the unknown-route answer names the path as an unknown path does', async () => {
    const got = await answer('GET', '/api/yard');
    expect(got.status).toBe(404);
    expect(got.contentType).toMatch(/^application\/problem\+json/);
    expect(got.problem).toMatchObject({
      code: 'not-found',
      title: 'Not found',
      detail: 'No route GET /api/yard.',
    });
    const staff = await new Client(t.url, t.adminToken).get('/api/yard');
    expect(staff.status).toBe(200);
  });
});

/** A path with each parameter filled with a fresh id (a file path for the UI's catch-all). */
function concretePath(path: string): string {
  return path.replace('{fullPath}', 'index.html').replace(/\{\w+\}/g, () => newId());
}
