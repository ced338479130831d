import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-UI-ROOT';
const BASE = '/api/ui/assets/binary/';

let shipped: TestApp;
let custom: TestApp;
let outside: string;

/** A UI root with a dot-file, a nested file, and symlinks that lead out of it; secrets beside it. */
function buildUiRoot(): string {
  outside = mkdtempSync(join(tmpdir(), 'yard-ui-'));
  const ui = join(outside, 'ui');
  mkdirSync(join(ui, 'assets'), { recursive: true });
  writeFileSync(join(ui, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(ui, 'assets', 'app.js'), 'console.log("yard");\n');
  writeFileSync(join(ui, 'my file.txt'), 'spaces are fine');
  writeFileSync(join(ui, '.env'), SECRET);
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  mkdirSync(join(outside, 'ui-evil'));
  writeFileSync(join(outside, 'ui-evil', 'x.txt'), SECRET);
  symlinkSync(join(outside, 'secret.txt'), join(ui, 'escape.txt'));
  symlinkSync(outside, join(ui, 'linkdir'));
  symlinkSync(join(ui, '.env'), join(ui, 'env-link.txt'));
  return ui;
}

beforeAll(async () => {
  shipped = await startTestApp();
  custom = await startTestApp({ env: { YARD_UI_DIR: buildUiRoot() } });
});
afterAll(async () => {
  await shipped.close();
  await custom.close();
  rmSync(outside, { recursive: true, force: true });
});

/** A GET with the path sent exactly as written (fetch would normalise dot segments). */
function raw(
  app: TestApp,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the shipped landing page', () => {
  it('serves index.html, app.css and the logo with their types, ETag and caching headers', async () => {
    const page = await raw(shipped, `${BASE}index.html`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers.etag).toBeTruthy();
    expect(page.body).toContain('href="/docs"');
    expect(page.body).toContain('href="app.css"');
    expect(page.body).toContain('src="logo.svg"');

    const css = await raw(shipped, `${BASE}app.css`);
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=3600');
    const logo = await raw(shipped, `${BASE}logo.svg`);
    expect(logo.status).toBe(200);
    expect(logo.headers['content-type']).toBe('image/svg+xml');
    expect(logo.body).toContain('<svg');
    expect(logo.headers['x-content-type-options']).toBe('nosniff');

    const again = await raw(shipped, `${BASE}index.html`, { 'if-none-match': String(page.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it('is public, answers HEAD, and shows in the OpenAPI document', async () => {
    expect((await raw(shipped, `${BASE}logo.svg`, {}, 'HEAD')).status).toBe(200);
    const doc = (await (await fetch(`${shipped.url}/v3/api-docs`)).json()) as any;
    const op = doc.paths['/api/ui/assets/binary/{fullPath}'].get;
    expect(op.tags).toEqual(['UI Assets Controller']);
    expect(op.security).toEqual([]);
  });
});

describe('files of a UI root', () => {
  it('serves nested files, encoded names and byte ranges', async () => {
    const js = await raw(custom, `${BASE}assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.body).toBe('console.log("yard");\n');
    const spaced = await raw(custom, `${BASE}my%20file.txt`);
    expect(spaced.status).toBe(200);
    expect(spaced.body).toBe('spaces are fine');
    const part = await raw(custom, `${BASE}assets/app.js`, { range: 'bytes=0-6' });
    expect(part.status).toBe(206);
    expect(part.body).toBe('console');
    expect((await raw(custom, `${BASE}assets/app.js`, { range: 'bytes=500-' })).status).toBe(416);
  });

  it('missing files, directories and symlinks leading out or to dot-files are 404', async () => {
    for (const path of [
      'missing.js',
      'assets',
      'assets/',
      'escape.txt',
      'linkdir/secret.txt',
      'env-link.txt',
    ]) {
      const res = await raw(custom, `${BASE}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toContain('application/problem+json');
      expect(res.body, path).not.toContain(SECRET);
    }
  });

  it('never serves outside the root, whatever the encoding: 400 invalid-path', async () => {
    const attempts = [
      '../secret.txt',
      '../../../../etc/passwd',
      'assets/../../secret.txt',
      '..%2fsecret.txt',
      '..%2Fsecret.txt',
      '%2e%2e/secret.txt',
      '%2E%2E/secret.txt',
      '%2e%2e%2fsecret.txt',
      '.%2e/secret.txt',
      '..%5csecret.txt',
      '..%5c..%5csecret.txt',
      '%5c..%5csecret.txt',
      '%252e%252e/secret.txt',
      '%252e%252e%252fsecret.txt',
      '..%252fsecret.txt',
      'index.html%00.png',
      '%00',
      '/etc/passwd',
      '%2fetc%2fpasswd',
      'C:%5cWindows%5cwin.ini',
      'c:/secret.txt',
      '.env',
      'assets/.env',
      '%2eenv',
      './index.html',
      '../ui-evil/x.txt',
      'linkdir/../../secret.txt',
    ];
    for (const path of attempts) {
      const res = await raw(custom, `${BASE}${path}`);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body).code, path).toBe('invalid-path');
      expect(res.body, path).not.toContain(SECRET);
    }
  });

  it('a broken percent-encoding is refused, never the file', async () => {
    // The router fails to decode before this module runs; the shared error handler decides the status
    // (today it maps the router's 400 URIError to 500, reported to its owner).
    const res = await raw(custom, `${BASE}%zz`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body).not.toContain(SECRET);
  });
});
