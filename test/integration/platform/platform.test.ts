import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { CONTENT_SECURITY_POLICY } from '../../../shared/http/page-headers.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** The platform routes at the cloud on each database (docs/architecture.md "Two databases, and several cloud nodes"). */
describe.each(TEST_DIALECTS)('platform (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      env: { YARD_ROLE: 'cloud', YARD_METRICS_KEY: 'metrics-key-0123456789' },
    });
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(() => t.close());

  describe('routes', () => {
    it('healthz and readyz', async () => {
      expect((await admin.as(undefined).get('/healthz')).body).toEqual({ status: 'ok' });
      const ready = await admin.as(undefined).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ready');
      expect(ready.body.role).toBe('cloud');
      expect(ready.body.checks.database).toEqual({ ok: true });
      expect(ready.body.checks.migrations.ok).toBe(true);
      // max(version) is a number on both databases (a bigint is parsed on PostgreSQL).
      expect(ready.body.checks.migrations.applied).toBe(ready.body.checks.migrations.expected);
    });

    it('serves the OpenAPI document as JSON and YAML, and the docs page', async () => {
      const json = await admin.as(undefined).get('/v3/api-docs');
      expect(json.status).toBe(200);
      expect(json.body.openapi).toBe('3.1.0');
      expect(json.body.paths['/api/auth/login'].post).toBeDefined();
      const yaml = await admin.as(undefined).get('/v3/api-docs.yaml');
      expect(yaml.text).toContain('openapi: 3.1.0');
      const docs = await admin.as(undefined).get('/docs');
      expect(docs.text).toContain('swagger-ui');
      const asset = await fetch(`${t.url}/docs/swagger-ui-bundle.js`);
      expect(asset.status).toBe(200);
      // The web apps' headers; no inline script; a pasted token is not kept (test/system/api-docs.test.ts).
      expect(docs.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(docs.headers.get('referrer-policy')).toBe('no-referrer');
      expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
      expect(docs.text).not.toMatch(/<script>/);
      const init = await fetch(`${t.url}/docs/docs-init.js`);
      expect(init.headers.get('content-type')).toContain('text/javascript');
      expect(await init.text()).not.toContain('persistAuthorization');
      // swagger-ui-dist's demo page (inline script, another document) is not served.
      expect((await fetch(`${t.url}/docs/index.html`)).status).toBe(404);
    });

    it('metrics: admin or the metrics key; 401 without, 403 for other roles', async () => {
      expect((await admin.as(undefined).get('/metrics')).status).toBe(401);
      const m = await admin.get('/metrics');
      expect(m.status).toBe(200);
      expect(m.text).toContain('yard_http_requests_total');
      const viaKey = await admin.as('metrics-key-0123456789').get('/metrics');
      expect(viaKey.status).toBe(200);
    });

    it('unknown routes are problem+json 404; malformed JSON is 400; big bodies 413', async () => {
      const nf = await admin.get('/api/nothing-here');
      expect(nf.status).toBe(404);
      expect(nf.body.code).toBe('not-found');
      const bad = await admin.request('POST', '/api/user', '{"username": ', {
        'content-type': 'application/json',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('malformed-json');
      const big = await admin.post('/api/user', { username: 'x'.repeat(2_000_000) });
      expect(big.status).toBe(413);
      expect(big.body.code).toBe('payload-too-large');
    });

    it('a JSON route given another media type is 415 unsupported-media-type and changes nothing', async () => {
      const users = async () => (await query(t.db, 'SELECT count(*) AS n FROM app_user'))[0].n as number;
      const before = await users();
      const body = JSON.stringify({ username: 'typed-user', role: 'viewer', password: 'long-enough-pw' });
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ]) {
        const res = await admin.request('POST', '/api/user', body, { 'content-type': type });
        expect(res.status, type).toBe(415);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body.code).toBe('unsupported-media-type');
      }
      const untyped = await fetch(`${t.url}/api/user`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminToken}` },
        body: new TextEncoder().encode(body),
      });
      expect(untyped.status).toBe(415);
      expect(await users()).toBe(before);
      // JSON with a charset, or a +json type, is JSON.
      const ok = await admin.request('POST', '/api/user', body, {
        'content-type': 'application/json; charset=utf-8',
      });
      expect(ok.status).toBe(201);
      const merge = await admin.request('PATCH', `/api/user/${ok.body.id}`, '{"displayName": "Typed"}', {
        'content-type': 'application/merge-patch+json',
      });
      expect(merge.status).toBe(200);
      // No body at all: the validation names the missing body.
      const empty = await admin.request('POST', '/api/user', undefined);
      expect(empty.status).toBe(400);
      expect(empty.body.code).toBe('validation-failed');
    });

    it('echoes a request id', async () => {
      const res = await admin.get('/healthz', { 'x-request-id': 'abc-123' });
      expect(res.headers.get('x-request-id')).toBe('abc-123');
    });
  });

  describe('malformed URLs', () => {
    it('a path that cannot be percent-decoded is 400 malformed-url, not 500', async () => {
      const res = await new Client(t.url, t.adminToken).get('/api/carrier/%zz');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('malformed-url');
    });
  });
});
