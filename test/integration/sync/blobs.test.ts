import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import axios from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobUploader, backoffDelay } from '../../../edge/sync/blob-uploader.js';
import { hashSecret } from '../../../shared/auth/secrets.js';
import { newId } from '../../../shared/ids.js';
import { CloudBlobClient } from '../../../shared/modules/sync/blob-client.js';
import { SiteRepo } from '../../../shared/modules/sync/sites.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, rows } from '../../helpers/http.js';
import { ADMIN, loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Attachment bytes between an edge and the cloud over real HTTP: two apps on their own databases and
 * data directories. The edge reaches the cloud through a TCP proxy the tests can cut. Attachment
 * metadata rows are copied between the databases by hand here (raw SQL): carrying them is the change
 * stream's work, tested elsewhere.
 */
const SITE = 'north-1';
const SITE_PASSWORD = 'site-password-123456';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let cloud: TestApp;
let edge: TestApp;
let proxy: CuttableProxy;
let cloudAdmin: Client;
let edgeAdmin: Client;

beforeAll(async () => {
  cloud = await startTestApp({ env: { YARD_ROLE: 'cloud' } });
  cloudAdmin = new Client(cloud.url, cloud.adminToken);
  await new SiteRepo(cloud.core.kysely).create({ id: SITE, name: 'North yard', password: SITE_PASSWORD });
  proxy = await CuttableProxy.start(Number(new URL(cloud.url).port));
  edge = await startTestApp({
    login: false,
    env: {
      YARD_SITE_ID: SITE,
      // Enough for the linked mode; no sync factory is passed, so nothing connects to it.
      YARD_MQTT_URL: 'mqtt://127.0.0.1:9',
      YARD_MQTT_PASSWORD: SITE_PASSWORD,
      YARD_CLOUD_URL: proxy.url,
    },
  });
  // A linked edge gets its users from the cloud; here the admin row is written directly.
  const now = Date.now();
  edge.db.sqlite
    .prepare(
      `INSERT INTO app_user (id, username, display_name, role, yard_ids, password_hash, created_at, updated_at, hlc)
       VALUES (?, ?, 'Administrator', 'admin', NULL, ?, ?, ?, ?)`,
    )
    .run(newId(), ADMIN.username, await hashSecret(ADMIN.password), now, now, `${now}-0000-cloud`);
  edgeAdmin = new Client(edge.url, await loginAdmin(edge.url));
});

afterAll(async () => {
  await edge?.close();
  await proxy?.close();
  await cloud?.close();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const pngOf = (size: number) => Buffer.concat([PNG, randomBytes(size - PNG.length)]);
const blobPath = (app: TestApp, hex: string) => join(app.core.paths.attachments, hex.slice(0, 2), hex);
const partialPath = (hex: string, site = SITE) =>
  join(cloud.core.paths.attachments, 'partial', `${hex}.${site}`);
const filesIn = (app: TestApp, dir: string) => {
  const path = join(app.core.paths.attachments, dir);
  return existsSync(path) ? readdirSync(path) : [];
};
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const SITE_AUTH = basic(SITE, SITE_PASSWORD);

async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Stores an attachment through the API of `app`; answers its id, sha256 and bytes. */
async function storeAttachment(app: Client, size = 64 * 1024) {
  const bytes = pngOf(size);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), 'photo.png');
  const res = await app.post('/api/attachment', form);
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as string, sha256: res.body.sha256 as string, bytes };
}

/** Copies an attachment row between the two databases, as the change stream would. */
function copyAttachmentRow(from: TestApp, to: TestApp, id: string): void {
  const row = from.db.sqlite.prepare('SELECT * FROM attachment WHERE id = ?').get(id) as Record<
    string,
    unknown
  >;
  const columns = Object.keys(row);
  to.db.sqlite
    .prepare(`INSERT INTO attachment (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
    .run(...columns.map((c) => row[c]));
}

/**
 * An attachment row at the cloud for these bytes, as if it came from `origin` (its HLC's origin),
 * attached to `ref` (none: an org-wide attachment, which every site receives).
 */
function insertAttachmentRow(
  hex: string,
  size: number,
  origin: string,
  ref?: { type: string; id: string },
): string {
  const id = newId();
  const now = Date.now();
  cloud.db.sqlite
    .prepare(
      `INSERT INTO attachment (id, filename, content_type, size, sha256, ref_type, ref_id, created_at, hlc)
       VALUES (?, 'photo.png', 'image/png', ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, size, hex, ref?.type ?? null, ref?.id ?? null, now, `${now}-0000-${origin}`);
  return id;
}

function uploadRow(
  hex: string,
):
  | { attempts: number; nextAttemptAt: number; uploadedAt: number | null; lastError: string | null }
  | undefined {
  return rows(
    edge.db,
    'SELECT attempts, next_attempt_at AS nextAttemptAt, uploaded_at AS uploadedAt, last_error AS lastError FROM blob_upload WHERE sha256 = ?',
    hex,
  )[0];
}

/** An uploader with short retry delays; `seen` records each request it made (method, offset). */
function uploader(options: { password?: string } = {}) {
  const http = axios.create();
  const seen: Array<{ method: string; offset?: string; length?: string }> = [];
  http.interceptors.request.use((config) => {
    seen.push({
      method: String(config.method).toUpperCase(),
      offset: config.headers.get('Upload-Offset') as string | undefined,
      length: config.headers.get('Content-Length') as string | undefined,
    });
    return config;
  });
  const client = new CloudBlobClient({
    baseUrl: proxy.url,
    username: SITE,
    password: options.password ?? SITE_PASSWORD,
    timeoutMs: 5000,
    http,
  });
  const deps = { ...edge.core, attachments: edge.core.services.attachments };
  const u = new BlobUploader(deps, { client, baseDelayMs: 20, maxDelayMs: 200 });
  return { u, seen };
}

const uploaded = (hex: string) => () => uploadRow(hex)?.uploadedAt != null;

describe('edge -> cloud upload', () => {
  it('the cloud answers 503 attachment-not-uploaded until the edge uploads; then it serves the exact bytes', async () => {
    const a = await storeAttachment(edgeAdmin, 300 * 1024);
    copyAttachmentRow(edge, cloud, a.id);

    const before = await cloudAdmin.get(`/api/attachment/${a.id}`);
    expect(before.status).toBe(503);
    expect(before.body.code).toBe('attachment-not-uploaded');
    expect(before.headers.get('retry-after')).toBe('60');
    expect(before.body.detail).toMatch(/uploads them when it is online/);

    const { u } = uploader();
    expect(await u.waiting()).toBeGreaterThanOrEqual(1);
    await u.start();
    try {
      await waitFor(uploaded(a.sha256), 'the upload');
    } finally {
      await u.stop();
    }
    expect(sha(readFileSync(blobPath(cloud, a.sha256)))).toBe(a.sha256);
    const after = await fetch(`${cloud.url}/api/attachment/${a.id}`, {
      headers: { authorization: `Bearer ${cloud.adminToken}` },
    });
    expect(after.status).toBe(200);
    expect(Buffer.from(await after.arrayBuffer()).equals(a.bytes)).toBe(true);
    expect(uploadRow(a.sha256)?.lastError).toBeNull();
    expect(filesIn(cloud, 'partial')).toEqual([]);
  });

  it('a newly stored attachment wakes the running uploader', async () => {
    const { u } = uploader();
    await u.start();
    try {
      await waitFor(async () => (await u.waiting()) === 0, 'nothing left to upload');
      // The idle check is a minute away: only the stored-attachment hook can start this upload.
      const a = await storeAttachment(edgeAdmin);
      await waitFor(uploaded(a.sha256), 'the upload after the hook');
      expect(sha(readFileSync(blobPath(cloud, a.sha256)))).toBe(a.sha256);
    } finally {
      await u.stop();
    }
  });

  it('resumes a cut upload from the offset the cloud holds', async () => {
    const a = await storeAttachment(edgeAdmin, 256 * 1024);
    const cutAt = 100_000;
    // A first attempt dies after cutAt bytes: the cloud keeps them (fsynced) and says so on HEAD.
    const req = request(`${cloud.url}/api/sync/blob/${a.sha256}`, {
      method: 'PATCH',
      headers: {
        authorization: SITE_AUTH,
        'content-type': 'application/offset+octet-stream',
        'content-length': String(a.bytes.length),
        'upload-offset': '0',
        'upload-length': String(a.bytes.length),
      },
    });
    req.on('error', () => {});
    req.write(a.bytes.subarray(0, cutAt));
    const heldOffset = async () =>
      Number(
        (
          await fetch(`${cloud.url}/api/sync/blob/${a.sha256}`, {
            method: 'HEAD',
            headers: { authorization: SITE_AUTH },
          })
        ).headers.get('upload-offset'),
      );
    await waitFor(async () => (await heldOffset()) === cutAt, 'the first part at the cloud');
    req.destroy();
    await waitFor(async () => existsSync(partialPath(a.sha256)), 'the partial file');

    const { u, seen } = uploader();
    await u.start();
    try {
      await waitFor(uploaded(a.sha256), 'the resumed upload');
    } finally {
      await u.stop();
    }
    const patches = seen.filter((r) => r.method === 'PATCH');
    expect(patches.at(-1)).toEqual({
      method: 'PATCH',
      offset: String(cutAt),
      length: String(a.bytes.length - cutAt),
    });
    expect(patches.some((p) => p.offset === '0')).toBe(false);
    expect(readFileSync(blobPath(cloud, a.sha256)).equals(a.bytes)).toBe(true);
    expect(existsSync(partialPath(a.sha256))).toBe(false);
  });

  it('while the cloud is down, attempts and the retry time grow, nothing else is tried; it uploads once the cloud is back', async () => {
    proxy.setDown(true);
    const first = await storeAttachment(edgeAdmin);
    const second = await storeAttachment(edgeAdmin);
    const { u } = uploader();
    await u.start();
    try {
      await waitFor(() => (uploadRow(first.sha256)?.attempts ?? 0) >= 1, 'a first failed attempt');
      const early = uploadRow(first.sha256)!;
      await waitFor(() => (uploadRow(first.sha256)?.attempts ?? 0) >= 4, 'more attempts');
      const later = uploadRow(first.sha256)!;
      expect(later.nextAttemptAt).toBeGreaterThan(early.nextAttemptAt);
      expect(later.lastError).toMatch(/^unreachable/);
      expect(later.uploadedAt).toBeNull();
      // The link is down for everyone: the second attachment was not tried at all, and each
      // attempt cost one connection (no spinning).
      expect(uploadRow(second.sha256)).toBeUndefined();
      expect(proxy.refused).toBeLessThanOrEqual(uploadRow(first.sha256)!.attempts + 1);

      proxy.setDown(false);
      await waitFor(
        () => uploaded(first.sha256)() && uploaded(second.sha256)(),
        'both uploads after the outage',
      );
    } finally {
      proxy.setDown(false);
      await u.stop();
    }
    expect(readFileSync(blobPath(cloud, first.sha256)).equals(first.bytes)).toBe(true);
    expect(readFileSync(blobPath(cloud, second.sha256)).equals(second.bytes)).toBe(true);
    expect(uploadRow(first.sha256)?.lastError).toBeNull();
  });

  it('stops cleanly in the middle of an upload that gets no answer', async () => {
    proxy.setSilent(true);
    const a = await storeAttachment(edgeAdmin);
    const { u } = uploader();
    try {
      await u.start();
      await waitFor(() => proxy.silentConnections > 0, 'the request to hang');
      await u.stop();
      // Stopping is not a failed attempt.
      expect(uploadRow(a.sha256)).toBeUndefined();
    } finally {
      proxy.setSilent(false);
      await u.stop();
    }
    const { u: again } = uploader();
    await again.start();
    await waitFor(uploaded(a.sha256), 'the upload after a restart').finally(() => again.stop());
  });

  it('a wrong site password is refused and recorded; the cloud keeps nothing', async () => {
    const a = await storeAttachment(edgeAdmin);
    const { u } = uploader({ password: 'not-the-password' });
    await u.start();
    try {
      await waitFor(() => (uploadRow(a.sha256)?.attempts ?? 0) >= 1, 'a refused attempt');
    } finally {
      await u.stop();
    }
    expect(uploadRow(a.sha256)?.lastError).toMatch(/^refused: HEAD answered 401/);
    expect(existsSync(blobPath(cloud, a.sha256))).toBe(false);
    expect(existsSync(partialPath(a.sha256))).toBe(false);
    const status = await u.status();
    expect(status.failing).toBeGreaterThanOrEqual(1);
  });
});

describe('cloud blob endpoints', () => {
  const url = (hex: string) => `${cloud.url}/api/sync/blob/${hex}`;
  const patch = (hex: string, body: Buffer, headers: Record<string, string> = {}) =>
    fetch(url(hex), {
      method: 'PATCH',
      headers: {
        authorization: SITE_AUTH,
        'content-type': 'application/offset+octet-stream',
        'upload-offset': '0',
        'upload-length': String(body.length),
        ...headers,
      },
      body: new Uint8Array(body),
    });
  const head = async (hex: string) => {
    const res = await fetch(url(hex), { method: 'HEAD', headers: { authorization: SITE_AUTH } });
    return {
      status: res.status,
      offset: res.headers.get('upload-offset'),
      complete: res.headers.get('upload-complete'),
    };
  };

  it('wrong or missing site credentials: 401 with a Basic challenge, nothing stored', async () => {
    const bytes = pngOf(4096);
    for (const authorization of [basic(SITE, 'wrong-password'), basic('nowhere', SITE_PASSWORD), undefined]) {
      const res = await patch(sha(bytes), bytes, authorization ? { authorization } : { authorization: '' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="yard-sync", charset="UTF-8"');
      expect(((await res.json()) as { code: string }).code).toBe('unauthenticated');
    }
    expect(await head(sha(bytes))).toEqual({ status: 200, offset: '0', complete: '?0' });
    expect(existsSync(partialPath(sha(bytes)))).toBe(false);
    expect(existsSync(blobPath(cloud, sha(bytes)))).toBe(false);
  });

  it('credentials are checked before the input: an anonymous bad sha256 is 401, not 400', async () => {
    for (const authorization of [undefined, basic(SITE, 'wrong-password'), 'Bearer stale-token']) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      for (const method of ['GET', 'HEAD']) {
        const res = await fetch(url('not-a-sha'), { method, headers });
        expect(res.status, `${method} with ${authorization}`).toBe(401);
      }
      const upload = await patch('not-a-sha', pngOf(100), {
        authorization: authorization ?? '',
        'upload-offset': 'x',
      });
      expect(upload.status, `PATCH with ${authorization}`).toBe(401);
    }
  });

  it('bytes that do not hash to the sha256 are rejected with 422 and discarded', async () => {
    const claimed = sha(pngOf(4096));
    const res = await patch(claimed, pngOf(4096));
    expect(res.status).toBe(422);
    expect(((await res.json()) as { code: string }).code).toBe('checksum-mismatch');
    expect(await head(claimed)).toEqual({ status: 200, offset: '0', complete: '?0' });
    expect(existsSync(partialPath(claimed))).toBe(false);
    expect(existsSync(blobPath(cloud, claimed))).toBe(false);
  });

  it('uploads in parts: a wrong offset is 409 with the current one; the last part stores the bytes', async () => {
    const bytes = pngOf(10_000);
    const hex = sha(bytes);
    const part1 = await patch(hex, bytes.subarray(0, 4000), { 'upload-length': '10000' });
    expect(part1.status).toBe(204);
    expect(part1.headers.get('upload-offset')).toBe('4000');
    expect(part1.headers.get('upload-complete')).toBe('?0');
    const wrong = await patch(hex, bytes.subarray(2000), {
      'upload-offset': '2000',
      'upload-length': '10000',
    });
    expect(wrong.status).toBe(409);
    expect(wrong.headers.get('upload-offset')).toBe('4000');
    expect((await wrong.json()) as { code: string; offset: number }).toMatchObject({
      code: 'offset-mismatch',
      offset: 4000,
    });
    const part2 = await patch(hex, bytes.subarray(4000), {
      'upload-offset': '4000',
      'upload-length': '10000',
    });
    expect(part2.status).toBe(204);
    expect(part2.headers.get('upload-complete')).toBe('?1');
    // Until a row of the site references the bytes, the site learns nothing more about them.
    expect(await head(hex)).toEqual({ status: 200, offset: '0', complete: '?0' });
    expect((await fetch(url(hex), { headers: { authorization: SITE_AUTH } })).status).toBe(404);
    insertAttachmentRow(hex, bytes.length, SITE);
    expect(await head(hex)).toEqual({ status: 200, offset: '10000', complete: '?1' });

    // GET: the site and an admin may read; other staff may not.
    const got = await fetch(url(hex), { headers: { authorization: SITE_AUTH } });
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await cloudAdmin.get(`/api/sync/blob/${hex}`)).status).toBe(200);
    const viewer = await clientWithRole(cloudAdmin, 'viewer');
    expect((await viewer.get(`/api/sync/blob/${hex}`)).status).toBe(403);
    expect((await cloudAdmin.patch(`/api/sync/blob/${hex}`)).status).toBe(403);
    expect((await cloudAdmin.get(`/api/sync/blob/${sha(pngOf(100))}`)).body.code).toBe('not-found');
  });

  it('bad input: over attachments.maxBytes is 413, a bad sha256 or header is 400; nothing is written', async () => {
    const bytes = pngOf(2048);
    const tooLarge = await patch(sha(bytes), bytes, { 'upload-length': String(11 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
    const badSha = await patch('abc', bytes);
    expect(badSha.status).toBe(400);
    const badHeader = await patch(sha(bytes), bytes, { 'upload-offset': '-1' });
    expect(badHeader.status).toBe(400);
    expect(((await badHeader.json()) as { errors: Array<{ path: string }> }).errors[0]!.path).toBe(
      'headers.upload-offset',
    );
    const wrongType = await patch(sha(bytes), bytes, { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(existsSync(partialPath(sha(bytes)))).toBe(false);
  });

  it('an edge does not serve the blob endpoints (404)', async () => {
    const res = await fetch(`${edge.url}/api/sync/blob/${sha(PNG)}`, {
      headers: { authorization: SITE_AUTH },
    });
    expect(res.status).toBe(404);
  });
});

describe('a site reaches only the bytes its own rows reference', () => {
  const OTHER = 'south-1';
  const OTHER_PASSWORD = 'other-site-password-123';
  const OTHER_AUTH = basic(OTHER, OTHER_PASSWORD);
  const url = (hex: string) => `${cloud.url}/api/sync/blob/${hex}`;
  const as = (authorization: string) => ({
    head: async (hex: string) => {
      const res = await fetch(url(hex), { method: 'HEAD', headers: { authorization } });
      return [res.status, res.headers.get('upload-offset'), res.headers.get('upload-complete')];
    },
    get: async (hex: string) => {
      const res = await fetch(url(hex), { headers: { authorization } });
      const body = res.headers.get('content-type')?.includes('json') ? await res.json() : undefined;
      return { status: res.status, body: body as { code?: string; detail?: string } | undefined };
    },
    patch: (hex: string, body: Buffer, offset: number, length: number) =>
      fetch(url(hex), {
        method: 'PATCH',
        headers: {
          authorization,
          'content-type': 'application/offset+octet-stream',
          'upload-offset': String(offset),
          'upload-length': String(length),
        },
        body: new Uint8Array(body),
      }),
  });
  let yardOfSite: string;

  beforeAll(async () => {
    await new SiteRepo(cloud.core.kysely).create({ id: OTHER, name: 'South yard', password: OTHER_PASSWORD });
    yardOfSite = (
      await seed(cloudAdmin).yard({
        code: 'NORTHB',
        name: 'North B',
        timeZone: 'Europe/Berlin',
        siteId: SITE,
      })
    ).id as string;
  });

  it("another site's picture is 404 and HEAD-empty to a site, exactly like bytes that do not exist", async () => {
    const bytes = pngOf(8192);
    const hex = sha(bytes);
    expect((await as(SITE_AUTH).patch(hex, bytes, 0, bytes.length)).status).toBe(204);
    insertAttachmentRow(hex, bytes.length, SITE, { type: 'yard', id: yardOfSite });
    const missing = sha(pngOf(8192));

    // The site whose yard it is reads it.
    expect(await as(SITE_AUTH).head(hex)).toEqual([200, String(bytes.length), '?1']);
    expect((await as(SITE_AUTH).get(hex)).status).toBe(200);
    // Another site cannot tell it from nothing.
    expect(await as(OTHER_AUTH).head(hex)).toEqual(await as(OTHER_AUTH).head(missing));
    expect(await as(OTHER_AUTH).head(hex)).toEqual([200, '0', '?0']);
    const hidden = await as(OTHER_AUTH).get(hex);
    const absent = await as(OTHER_AUTH).get(missing);
    expect(hidden.status).toBe(404);
    expect(hidden.body?.code).toBe('not-found');
    // The same answer but for the sha256 itself and the request id.
    const same = (answer: typeof hidden, hexOf: string) =>
      JSON.stringify({ ...answer, body: { ...answer.body, requestId: undefined } }).replaceAll(hexOf, 'X');
    expect(same(hidden, hex)).toBe(same(absent, missing));
    // Nor by uploading: a part of the bytes is its own partial upload, never "complete".
    const part = await as(OTHER_AUTH).patch(hex, bytes.subarray(0, 4000), 0, bytes.length);
    expect([part.status, part.headers.get('upload-offset'), part.headers.get('upload-complete')]).toEqual([
      204,
      '4000',
      '?0',
    ]);
    expect(await as(SITE_AUTH).head(hex)).toEqual([200, String(bytes.length), '?1']);
    // All of the bytes prove it has them: then (and only then) the upload completes.
    const rest = await as(OTHER_AUTH).patch(hex, bytes.subarray(4000), 4000, bytes.length);
    expect([rest.status, rest.headers.get('upload-complete')]).toEqual([204, '?1']);
    expect((await as(OTHER_AUTH).get(hex)).status).toBe(404);
    expect(existsSync(partialPath(hex, OTHER))).toBe(false);
  });

  it('bytes of an org-wide attachment (no yard) are readable by every site', async () => {
    const bytes = pngOf(4096);
    const hex = sha(bytes);
    expect((await as(SITE_AUTH).patch(hex, bytes, 0, bytes.length)).status).toBe(204);
    insertAttachmentRow(hex, bytes.length, 'cloud');
    expect((await as(OTHER_AUTH).get(hex)).status).toBe(200);
    expect(await as(OTHER_AUTH).head(hex)).toEqual([200, String(bytes.length), '?1']);
  });
});

describe('cloud -> edge fetch on demand', () => {
  it('an attachment made at the cloud is fetched with the exact bytes, then served locally', async () => {
    const a = await storeAttachment(cloudAdmin, 200 * 1024);
    copyAttachmentRow(cloud, edge, a.id);
    expect(existsSync(blobPath(edge, a.sha256))).toBe(false);

    const res = await fetch(`${edge.url}/api/attachment/${a.id}`, {
      headers: { authorization: `Bearer ${edgeAdmin.token}` },
    });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(a.bytes)).toBe(true);
    expect(sha(readFileSync(blobPath(edge, a.sha256)))).toBe(a.sha256);
    // The cloud has these bytes: the edge's uploader has nothing to send for them.
    expect(uploadRow(a.sha256)?.uploadedAt).not.toBeNull();
  });

  it('cloud unreachable or the answer cut mid-body: 502 cloud-unreachable, no half-written blob', async () => {
    const a = await storeAttachment(cloudAdmin, 200 * 1024);
    copyAttachmentRow(cloud, edge, a.id);

    proxy.setDown(true);
    const down = await edgeAdmin.get(`/api/attachment/${a.id}`);
    proxy.setDown(false);
    expect(down.status).toBe(502);
    expect(down.body.code).toBe('cloud-unreachable');

    proxy.cutResponsesAfter(50_000);
    const cut = await edgeAdmin.get(`/api/attachment/${a.id}`);
    proxy.cutResponsesAfter(undefined);
    expect(cut.status).toBe(502);
    expect(cut.body.code).toBe('cloud-unreachable');
    expect(existsSync(blobPath(edge, a.sha256))).toBe(false);
    expect(filesIn(edge, 'tmp')).toEqual([]);

    const ok = await fetch(`${edge.url}/api/attachment/${a.id}`, {
      headers: { authorization: `Bearer ${edgeAdmin.token}` },
    });
    expect(Buffer.from(await ok.arrayBuffer()).equals(a.bytes)).toBe(true);
  });

  it('bytes the cloud does not hold yet are 503 attachment-not-uploaded at the edge too', async () => {
    // Another site's attachment, metadata known everywhere, bytes nowhere yet.
    const a = await storeAttachment(cloudAdmin);
    copyAttachmentRow(cloud, edge, a.id);
    cloud.db.sqlite.prepare('DELETE FROM attachment WHERE id = ?').run(a.id);
    await cloud.core.services.attachments.blobs.remove(a.sha256);
    const res = await edgeAdmin.get(`/api/attachment/${a.id}`);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('attachment-not-uploaded');
    expect(res.headers.get('retry-after')).toBe('60');
  });
});

it('backoff doubles from the base to the cap, with jitter between half and all of it', () => {
  const low = () => 0;
  const high = () => 0.999999;
  expect([1, 2, 3, 4].map((n) => backoffDelay(n, 1000, 300_000, high))).toEqual([1000, 2000, 4000, 8000]);
  expect(backoffDelay(1, 1000, 300_000, low)).toBe(500);
  expect(backoffDelay(30, 1000, 300_000, high)).toBe(300_000);
  expect(backoffDelay(30, 1000, 300_000, low)).toBe(150_000);
});

/**
 * A TCP proxy in front of the cloud that the tests can take down (connections are reset), make
 * silent (connections accepted, never answered) or make cut answers after some bytes.
 */
class CuttableProxy {
  refused = 0;
  silentConnections = 0;
  private down = false;
  private silent = false;
  private cutAfter: number | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly targetPort: number,
  ) {}

  static async start(targetPort: number): Promise<CuttableProxy> {
    const server = createServer();
    const proxy = new CuttableProxy(server, targetPort);
    server.on('connection', (socket) => proxy.handle(socket));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  setDown(down: boolean): void {
    this.down = down;
    this.refused = 0;
    this.dropAll();
  }

  setSilent(silent: boolean): void {
    this.silent = silent;
    this.silentConnections = 0;
    this.dropAll();
  }

  cutResponsesAfter(bytes: number | undefined): void {
    this.cutAfter = bytes;
    this.dropAll();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private dropAll(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  private handle(client: Socket): void {
    client.on('error', () => {});
    if (this.down) {
      this.refused += 1;
      client.resetAndDestroy();
      return;
    }
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    if (this.silent) {
      this.silentConnections += 1;
      client.resume();
      return;
    }
    const upstream = tcpConnect(this.targetPort, '127.0.0.1');
    this.sockets.add(upstream);
    upstream.on('close', () => {
      this.sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    const cutAfter = this.cutAfter;
    if (cutAfter === undefined) {
      upstream.pipe(client);
      return;
    }
    let sent = 0;
    upstream.on('data', (chunk: Buffer) => {
      const room = cutAfter - sent;
      if (room <= 0) return;
      client.write(chunk.subarray(0, room));
      sent += Math.min(room, chunk.length);
      if (sent >= cutAfter) {
        client.end(() => client.destroy());
        upstream.destroy();
      }
    });
  }
}
