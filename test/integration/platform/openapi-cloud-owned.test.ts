import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { serveLinkedEdge } from '../billing/fixture.js';

/**
 * Every route that an edge linked to a cloud answers with 409 `cloud-owned` says so in the OpenAPI
 * document (docs/api.md). The routes are found by asking the linked edge: each operation of its own
 * document is called as its admin, path parameters an unknown id, no query, an empty JSON body for
 * writes; a route that answers 409 `cloud-owned` must document a 409 naming `cloud-owned`. Billing
 * (docs/domain.md "Billing": every billing route, reads included) refuses before it reads its input,
 * so all of it is found this way, and a new billing route cannot leave the answer out.
 * Left out of the walk: sign-in and sign-out (they would end the admin's session) and the event
 * stream (it stays open).
 */
const UNKNOWN = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';
const SKIPPED = /^\/api\/auth\/(login|logout)/;

type Operation = { responses: Record<string, { description: string; content?: Record<string, unknown> }> };

/** An event stream answers and stays open: nothing to refuse there. */
const streams = (op: Operation) =>
  Object.values(op.responses).some((r) => r.content && 'text/event-stream' in r.content);

let seedApp: TestApp;
let edge: Awaited<ReturnType<typeof serveLinkedEdge>>;

beforeAll(async () => {
  seedApp = await startTestApp();
  edge = await serveLinkedEdge(seedApp);
});
afterAll(async () => {
  await edge?.close();
  await seedApp?.close();
});

describe('OpenAPI: the 409 cloud-owned of a linked edge', () => {
  it('is documented on every route that answers it', { timeout: 120_000 }, async () => {
    const doc = (await edge.admin.get('/v3/api-docs')).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const answered: string[] = [];
    const undocumented: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (SKIPPED.test(path)) continue;
      for (const [method, op] of Object.entries(operations)) {
        if (streams(op)) continue;
        const url = path.replace(/\{fullPath\}$/, 'x').replace(/\{\w+\}/g, UNKNOWN);
        const res = await edge.admin.request(method.toUpperCase(), url, method === 'get' ? undefined : {});
        if (res.status !== 409 || res.body?.code !== 'cloud-owned') continue;
        answered.push(`${method} ${path}`);
        if (!op.responses['409']?.description.includes('`cloud-owned`'))
          undocumented.push(`${method} ${path}`);
      }
    }
    expect(undocumented).toEqual([]);
    // The walk reached billing: its reads, generate-all and its writes all answered cloud-owned.
    for (const key of [
      'get /api/billing/invoice',
      'get /api/billing/invoice/summaries',
      'get /api/billing/invoice/overage',
      'post /api/billing/invoice/generate-all',
      'get /api/billing/summary',
      'get /api/billing/summary/to-be-completed',
      'get /api/billing/invoice-adjustment',
      'get /api/billing/config',
      'post /api/billing/invoice',
    ]) {
      expect(answered, key).toContain(key);
    }
    // The admin is still signed in: nothing of the walk ended the session.
    expect((await edge.admin.get('/api/auth/me')).status).toBe(200);
  });
});
