import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONTENT,
  FILES,
  makeUiBuild,
  raw,
  SECRET,
  TRAVERSALS,
  type UiBuild,
} from '../../fixtures/ui-build.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** The web apps at / (API.md `GET /`): pages, deep links, what stays the API's, an unbuilt UI. */
let t: TestApp;
let unbuilt: TestApp;
let build: UiBuild;
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  raw(t.url, path, headers, method);

beforeAll(async () => {
  build = makeUiBuild();
  t = await startTestApp({ env: { YARD_UI_DIR: build.dir } });
  unbuilt = await startTestApp({ env: { YARD_UI_DIR: join(build.outside, 'not-built') } });
});
afterAll(async () => {
  await t.close();
  await unbuilt.close();
  build.remove();
});

function expectPage(res: Awaited<ReturnType<typeof get>>, content: string, label: string) {
  expect(res.status, label).toBe(200);
  expect(res.headers['content-type'], label).toBe('text/html; charset=utf-8');
  expect(res.headers['cache-control'], label).toBe('no-cache');
  expect(res.headers['content-security-policy'], label).toContain("script-src 'self'");
  expect(res.headers['content-security-policy'], label).toContain("frame-ancestors 'none'");
  expect(res.headers['referrer-policy'], label).toBe('no-referrer');
  expect(res.text, label).toBe(content);
}

function expectProblem(res: Awaited<ReturnType<typeof get>>, status: number, code: string, label: string) {
  expect(res.status, label).toBe(status);
  expect(res.headers['content-type'], label).toContain('application/problem+json');
  expect(JSON.parse(res.text).code, label).toBe(code);
  expect(res.text, label).not.toContain(SECRET);
}

describe('the web apps at /', () => {
  it('/ is the home page and /gate/ the gate-house app, revalidated with their ETag', async () => {
    expectPage(await get('/'), CONTENT.home, '/');
    expectPage(await get('/gate/'), CONTENT.gate, '/gate/');
    expectPage(await get('/index.html'), CONTENT.home, '/index.html');
    const first = await get('/gate/');
    const again = await get('/gate/', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect((await get('/', {}, 'HEAD')).status).toBe(200);
  });

  it('/gate redirects to /gate/, keeping the query', async () => {
    for (const [path, location] of [
      ['/gate', '/gate/'],
      ['/gate?lane=2', '/gate/?lane=2'],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(301);
      expect(res.headers.location, path).toBe(location);
    }
  });

  it("a deep link of an app is the app's page (its router shows the screen)", async () => {
    for (const path of [
      '/gate/check-out',
      '/gate/yard',
      '/gate/yard/',
      '/gate/movements/0193a1b2-c3d4',
      '/gate/x?y=1',
    ])
      expectPage(await get(path), CONTENT.gate, path);
    const head = await get('/gate/check-out', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('a missing file, even under an app, and a path outside the apps are problem+json 404, never a page', async () => {
    for (const path of [
      '/gate/missing.js',
      '/gate/old-Ab12.css',
      '/assets/gone-Ab12.js',
      '/assets/',
      '/assets/nope',
      '/nothing',
      '/nothing/deeper',
      '/gate/index.html/',
    ])
      expectProblem(await get(path, { 'accept-encoding': 'br' }), 404, 'not-found', path);
  });

  it("unknown API paths stay the API's problem+json 404; the platform routes answer as before", async () => {
    for (const path of [
      '/api',
      '/api/',
      '/api/nope',
      '/api/yard/x/nope',
      '/v3/nope',
      '/docs/nope',
      '/metrics/x',
      '/healthz/x',
      '/readyz/x',
    ])
      expectProblem(await get(path, { accept: 'text/html' }), 404, 'not-found', path);
    expect(JSON.parse((await get('/healthz')).text)).toEqual({ status: 'ok' });
    expect((await get('/v3/api-docs')).headers['content-type']).toContain('application/json');
    expect((await get('/docs/')).text).toContain('swagger-ui');
    expect((await get('/api/auth/me')).status).toBe(401);
    expectProblem(await get('/', {}, 'POST'), 404, 'not-found', 'POST /');
  });

  it('never serves outside the root: malformed paths are 400 invalid-path, symlinks out 404', async () => {
    for (const path of TRAVERSALS) {
      // "//etc/passwd" is a URL whose path is /passwd (its "host" is etc): just a missing file.
      const [status, code] = path.startsWith('/') ? [404, 'not-found'] : [400, 'invalid-path'];
      expectProblem(await get(`/${path}`), status, code, path);
    }
    for (const path of ['/gate/%2e%2e/%2e%2e/secret.txt', '/gate/..%2f..%2fsecret.txt', '/gate/.env'])
      expectProblem(await get(path), 400, 'invalid-path', path);
    for (const path of ['/escape.txt', '/linkdir/secret.txt', '/env-link.txt', '/linkdir/ui-evil/x.txt'])
      expectProblem(await get(path), 404, 'not-found', path);
  });

  it('is public and documented: GET / and GET /{fullPath}', () => {
    const doc = t.openapi() as any;
    for (const path of ['/', '/{fullPath}']) {
      expect(doc.paths[path].get.security, path).toEqual([]);
      expect(doc.paths[path].get.responses['503'], path).toBeDefined();
    }
  });
});

describe('a server whose UI has not been built', () => {
  it('answers 503 ui-not-built at / and the app paths, saying to run npm run build:ui', async () => {
    for (const path of ['/', '/gate/', '/gate/check-out', `/${FILES.js}`]) {
      const res = await raw(unbuilt.url, path);
      expectProblem(res, 503, 'ui-not-built', path);
      expect(JSON.parse(res.text).detail, path).toContain('npm run build:ui');
    }
    expectProblem(await raw(unbuilt.url, '/api/nope'), 404, 'not-found', '/api/nope');
    expect((await raw(unbuilt.url, '/healthz')).status).toBe(200);
  });
});

describe('the real build (dist/ui)', () => {
  const dist = join(process.cwd(), 'dist', 'ui');
  const built = existsSync(join(dist, 'index.html')) && existsSync(join(dist, 'gate', 'index.html'));
  if (!built)
    console.warn(
      'ui-apps.test.ts: dist/ui is not built (run `npm run build:ui`); skipping the real-build test',
    );

  it.skipIf(!built)(
    '/ and /gate/ serve the built pages, and every asset they reference answers 200',
    async () => {
      const shipped = await startTestApp({ env: { YARD_UI_DIR: dist } });
      try {
        for (const [path, file] of [
          ['/', 'index.html'],
          ['/gate/', 'gate/index.html'],
          ['/gate/check-out', 'gate/index.html'],
        ] as const) {
          const page = await raw(shipped.url, path);
          expect(page.status, path).toBe(200);
          expect(page.text, path).toBe(readFileSync(join(dist, file), 'utf8'));
          const assets = [...page.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map(
            (m) => m[1] as string,
          );
          expect(assets.length, path).toBeGreaterThan(0);
          for (const asset of assets) {
            const res = await raw(shipped.url, asset, { 'accept-encoding': 'gzip, deflate, br' });
            expect(res.status, asset).toBe(200);
            expect(res.headers['content-type'], asset).toMatch(/^text\/(javascript|css)/);
            expect(res.headers['cache-control'], asset).toBe('public, max-age=31536000, immutable');
          }
        }
      } finally {
        await shipped.close();
      }
    },
  );
});
