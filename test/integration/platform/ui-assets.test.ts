import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
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

/** Files of the UI folder: the seed route, and the same files at / (ui-apps.test.ts has the pages). */
const SEED = '/api/ui/assets/binary/';
const BROWSER = 'gzip, deflate, br, zstd';

let t: TestApp;
let build: UiBuild;
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  raw(t.url, path, headers, method);

beforeAll(async () => {
  build = makeUiBuild();
  t = await startTestApp({ env: { YARD_UI_DIR: build.dir } });
});
afterAll(async () => {
  await t.close();
  build.remove();
});

describe.each([
  ['the seed route', SEED],
  ['the web apps at /', '/'],
])('precompressed copies and caching, %s', (_name, base) => {
  it('sends the .br copy to a browser, .gz when br is refused, the file itself otherwise; each with its own ETag', async () => {
    const cases = [
      { accept: BROWSER, encoding: 'br' },
      { accept: '*', encoding: 'br' },
      { accept: 'gzip', encoding: 'gzip' },
      { accept: 'br;q=0, gzip', encoding: 'gzip' },
      { accept: 'gzip;q=1, br;q=0.1', encoding: 'br' },
      { accept: 'identity', encoding: undefined },
      { accept: 'br;q=0, gzip;q=0', encoding: undefined },
      { accept: undefined, encoding: undefined },
    ];
    const etags = new Map<string | undefined, string>();
    for (const { accept, encoding } of cases) {
      const res = await get(`${base}${FILES.js}`, accept === undefined ? {} : { 'accept-encoding': accept });
      const label = `Accept-Encoding: ${accept}`;
      expect(res.status, label).toBe(200);
      expect(res.headers['content-encoding'], label).toBe(encoding);
      expect(res.headers['content-type'], label).toBe('text/javascript; charset=utf-8');
      expect(res.headers.vary, label).toContain('Accept-Encoding');
      expect(res.headers['cache-control'], label).toBe('public, max-age=31536000, immutable');
      const body =
        encoding === 'br'
          ? brotliDecompressSync(res.body)
          : encoding === 'gzip'
            ? gunzipSync(res.body)
            : res.body;
      expect(body.toString('utf8'), label).toBe(CONTENT.js);
      const etag = String(res.headers.etag);
      expect(etags.get(encoding) ?? etag, label).toBe(etag);
      etags.set(encoding, etag);
    }
    expect(new Set(etags.values()).size).toBe(3);
    // A validator answers for its own encoding only.
    const br = { 'accept-encoding': 'br', 'if-none-match': String(etags.get('br')) };
    expect((await get(`${base}${FILES.js}`, br)).status).toBe(304);
    const gzipWithBrTag = { 'accept-encoding': 'gzip', 'if-none-match': String(etags.get('br')) };
    expect((await get(`${base}${FILES.js}`, gzipWithBrTag)).status).toBe(200);
  });

  it('falls back to the file itself where there is no copy: a css with only .gz, a small file with none', async () => {
    const css = await get(`${base}${FILES.css}`, { 'accept-encoding': 'br' });
    expect(css.headers['content-encoding']).toBeUndefined();
    expect(css.headers.vary).toContain('Accept-Encoding');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.text).toBe(CONTENT.css);
    const cssGz = await get(`${base}${FILES.css}`, { 'accept-encoding': BROWSER });
    expect(cssGz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(cssGz.body).toString()).toBe(CONTENT.css);
    const tiny = await get(`${base}${FILES.tiny}`, { 'accept-encoding': BROWSER });
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.headers.vary).toBeUndefined();
    expect(tiny.text).toBe(CONTENT.tiny);
  });

  it('a direct request for a .gz copy is a plain file, not encoded', async () => {
    const res = await get(`${base}${FILES.js}.gz`, { 'accept-encoding': BROWSER });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.body.equals(readFileSync(join(build.dir, `${FILES.js}.gz`)))).toBe(true);
  });

  it('an encoded copy is sent whole despite Range; the file itself honours Range', async () => {
    const encoded = await get(`${base}${FILES.js}`, { 'accept-encoding': 'br', range: 'bytes=0-5' });
    expect(encoded.status).toBe(200);
    expect(encoded.headers['accept-ranges']).toBeUndefined();
    expect(brotliDecompressSync(encoded.body).toString()).toBe(CONTENT.js);
    const part = await get(`${base}${FILES.js}`, { range: 'bytes=0-5' });
    expect(part.status).toBe(206);
    expect(part.text).toBe(CONTENT.js.slice(0, 6));
  });

  it('HTML is revalidated (no-cache, 304) and carries the security headers; other files a short max-age', async () => {
    const html = await get(`${base}${FILES.gate}`, { 'accept-encoding': BROWSER });
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.headers['content-encoding']).toBe('br');
    expect(html.headers['cache-control']).toBe('no-cache');
    expect(html.headers['content-security-policy']).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; " +
        "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
    );
    expect(html.headers['referrer-policy']).toBe('no-referrer');
    expect(html.headers['x-content-type-options']).toBe('nosniff');
    const again = await get(`${base}${FILES.gate}`, {
      'accept-encoding': BROWSER,
      'if-none-match': String(html.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const other = await get(`${base}${FILES.other}`);
    expect(other.headers['cache-control']).toBe('public, max-age=300');
    expect(other.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(other.headers['content-security-policy']).toBeUndefined();
    expect((await get(`${base}${FILES.js}`)).headers['content-security-policy']).toBeUndefined();
  });

  it('HEAD answers the headers of the chosen copy without a body', async () => {
    const res = await get(`${base}${FILES.js}`, { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(Number(res.headers['content-length'])).toBe(
      readFileSync(join(build.dir, `${FILES.js}.gz`)).length,
    );
    expect(res.body.length).toBe(0);
  });
});

describe('the seed route: files of a UI root', () => {
  it('serves nested files, encoded names and byte ranges', async () => {
    const js = await get(`${SEED}assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.text).toBe('console.log("yard");\n');
    const spaced = await get(`${SEED}my%20file.txt`);
    expect(spaced.status).toBe(200);
    expect(spaced.text).toBe('spaces are fine');
    expect((await get(`${SEED}assets/app.js`, { range: 'bytes=500-' })).status).toBe(416);
  });

  it('is public, answers HEAD, and shows in the OpenAPI document', async () => {
    expect((await get(`${SEED}index.html`, {}, 'HEAD')).status).toBe(200);
    const doc = t.openapi() as any;
    const op = doc.paths['/api/ui/assets/binary/{fullPath}'].get;
    expect(op.tags).toEqual(['UI Assets Controller']);
    expect(op.security).toEqual([]);
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
      const res = await get(`${SEED}${path}`, { 'accept-encoding': BROWSER });
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toContain('application/problem+json');
      expect(res.headers['content-encoding'], path).toBeUndefined();
      expect(res.text, path).not.toContain(SECRET);
    }
  });

  it('never serves outside the root, whatever the encoding: 400 invalid-path', async () => {
    for (const path of TRAVERSALS) {
      const res = await get(`${SEED}${path}`);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.text).code, path).toBe('invalid-path');
      expect(res.text, path).not.toContain(SECRET);
    }
  });

  it('a broken percent-encoding is refused, never the file', async () => {
    const res = await get(`${SEED}%zz`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.text).not.toContain(SECRET);
  });
});
