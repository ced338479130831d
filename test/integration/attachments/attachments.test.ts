import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const MAGIC = {
  jpeg: [0xff, 0xd8, 0xff, 0xe0],
  png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  webp: [...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEBPVP8 ')],
  pdf: [...Buffer.from('%PDF-1.7\n')],
  gif: [...Buffer.from('GIF89a')],
  text: [...Buffer.from('hello, not an image')],
};

/** Magic bytes plus a random tail, so each call gives new content unless `tail` is given. */
function fileOf(kind: keyof typeof MAGIC, tail: Buffer = randomBytes(200)): Buffer {
  return Buffer.concat([Buffer.from(MAGIC[kind]), tail]);
}

function form(files: Array<{ bytes: Buffer; name: string; field?: string; type?: string }>, fields = {}) {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, String(v));
  for (const file of files) {
    f.append(
      file.field ?? 'file',
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? '' }),
      file.name,
    );
  }
  return f;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** Attachments on each database (docs/architecture.md "Two databases, and several cloud nodes"): one suite, SQLite and PostgreSQL, as the cloud. */
describe.each(TEST_DIALECTS)('attachments (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    // The seeded yards' site: the cloud logs a yard's records for its site.
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-1',
      'Site 1',
      '$7$unused',
      Date.now(),
    );
  });
  afterAll(() => t.close());

  const attachmentCount = async () =>
    (await query(t.db, 'SELECT count(*) AS n FROM attachment'))[0].n as number;
  const blobPath = (hex: string) => join(t.core.paths.attachments, hex.slice(0, 2), hex);
  const tempFiles = () => {
    const dir = join(t.core.paths.attachments, 'tmp');
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  const insertYard = (code: string) => seedRows(t).yard(code, { timeZone: 'Europe/Berlin' });

  const driverClient = (code: string) =>
    seedRows(t).loggedInDriver(admin, { driverCode: code, pin: '4321', firstName: 'Dana' });

  async function rawGet(path: string, headers: Record<string, string> = {}, client = admin) {
    const res = await fetch(`${t.url}${path}`, {
      headers: { authorization: `Bearer ${client.token}`, ...headers },
    });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  describe('upload and download', () => {
    it('stores by content, fsynced under <sha[0..2]>/<sha>, typed by content, and logs the change', async () => {
      const bytes = fileOf('jpeg');
      const up = await admin.post(
        '/api/attachment',
        form([{ bytes, name: 'C:\\photos\\gate "1".jpg', type: 'text/plain' }]),
      );
      expect(up.status).toBe(201);
      expect(up.body).toMatchObject({
        filename: 'gate 1.jpg',
        contentType: 'image/jpeg',
        size: bytes.length,
        sha256: sha(bytes),
        refType: null,
        refId: null,
        createdByKind: 'user',
      });
      expect(up.headers.get('location')).toBe(`/api/attachment/${up.body.id}`);
      expect(readFileSync(blobPath(sha(bytes))).equals(bytes)).toBe(true);
      expect(tempFiles()).toEqual([]);
      const log = await query(
        t.db,
        "SELECT op FROM change_log WHERE entity = 'attachment' AND entity_id = ?",
        up.body.id,
      );
      expect(log.map((l) => l.op)).toEqual(['upsert']);

      const { res, bytes: got } = await rawGet(`/api/attachment/${up.body.id}`);
      expect(res.status).toBe(200);
      expect(got.equals(bytes)).toBe(true);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      expect(res.headers.get('etag')).toBe(`"${sha(bytes)}"`);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="gate 1.jpg"');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('answers If-None-Match with 304, Range with 206 and an unsatisfiable range with 416', async () => {
      const bytes = fileOf('png');
      const up = await admin.post('/api/attachment', form([{ bytes, name: 'plate.png' }]));
      const path = `/api/attachment/${up.body.id}`;

      // fetch adds Cache-Control: no-cache to conditional requests unless one is given (as browsers do)
      const cached = await rawGet(path, { 'if-none-match': `"${sha(bytes)}"`, 'cache-control': 'max-age=0' });
      expect(cached.res.status).toBe(304);
      expect(cached.bytes.length).toBe(0);
      expect((await rawGet(path, { 'if-none-match': '"other"' })).res.status).toBe(200);

      const part = await rawGet(path, { range: 'bytes=2-9' });
      expect(part.res.status).toBe(206);
      expect(part.res.headers.get('content-range')).toBe(`bytes 2-9/${bytes.length}`);
      expect(part.bytes.equals(bytes.subarray(2, 10))).toBe(true);

      const outside = await rawGet(path, { range: `bytes=${bytes.length + 10}-` });
      expect(outside.res.status).toBe(416);
      expect(outside.res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
      expect(JSON.parse(outside.bytes.toString()).code).toBe('range-not-satisfiable');
    });

    it('accepts PNG, WebP and PDF by content; keeps a UTF-8 file name', async () => {
      for (const [kind, type] of [
        ['png', 'image/png'],
        ['webp', 'image/webp'],
        ['pdf', 'application/pdf'],
      ] as const) {
        const up = await admin.post(
          '/api/attachment',
          form([{ bytes: fileOf(kind), name: `Lieferschein-ä.${kind}` }]),
        );
        expect(up.status).toBe(201);
        expect(up.body.contentType).toBe(type);
        expect(up.body.filename).toBe(`Lieferschein-ä.${kind}`);
        const { res } = await rawGet(`/api/attachment/${up.body.id}`);
        expect(res.headers.get('content-disposition')).toContain(
          `filename*=UTF-8''Lieferschein-%C3%A4.${kind}`,
        );
      }
    });

    it('same bytes are stored once; the bytes go with the last record that has them', async () => {
      const bytes = fileOf('jpeg');
      const a = await admin.post('/api/attachment', form([{ bytes, name: 'a.jpg' }]));
      const b = await admin.post('/api/attachment', form([{ bytes, name: 'b.jpg' }]));
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(a.body.id).not.toBe(b.body.id);
      expect(readdirSync(join(t.core.paths.attachments, sha(bytes).slice(0, 2)))).toContain(sha(bytes));

      expect((await admin.delete(`/api/attachment/${a.body.id}`)).status).toBe(204);
      expect(existsSync(blobPath(sha(bytes)))).toBe(true);
      expect((await rawGet(`/api/attachment/${b.body.id}`)).bytes.equals(bytes)).toBe(true);
      expect((await admin.delete(`/api/attachment/${b.body.id}`)).status).toBe(204);
      expect(existsSync(blobPath(sha(bytes)))).toBe(false);
      expect((await admin.get(`/api/attachment/${a.body.id}`)).status).toBe(404);
      const log = await query(
        t.db,
        "SELECT op FROM change_log WHERE entity = 'attachment' AND entity_id = ?",
        b.body.id,
      );
      expect(log.map((l) => l.op)).toEqual(['upsert', 'delete']);
    });

    it('stores server-made bytes (camera snapshots) under the same rules', async () => {
      const bytes = fileOf('jpeg');
      const stored = await t.core.services.attachments.storeBuffer(bytes, { filename: '' }, null);
      expect(stored).toMatchObject({
        filename: 'attachment.jpg',
        contentType: 'image/jpeg',
        createdBy: null,
      });
      expect(readFileSync(blobPath(sha(bytes))).equals(bytes)).toBe(true);
      await expect(
        t.core.services.attachments.storeBuffer(fileOf('text'), { filename: 'x.jpg' }, null),
      ).rejects.toMatchObject({ status: 415 });
      expect(tempFiles()).toEqual([]);
    });

    it('links to a record with refType + refId', async () => {
      const yardId = await insertYard('REF');
      const up = await admin.post(
        '/api/attachment',
        form([{ bytes: fileOf('jpeg'), name: 'yard.jpg' }], { refType: 'yard', refId: yardId }),
      );
      expect(up.status).toBe(201);
      expect(up.body).toMatchObject({ refType: 'yard', refId: yardId });
      expect(await query(t.db, 'SELECT ref_type, ref_id FROM attachment WHERE id = ?', up.body.id)).toEqual([
        { ref_type: 'yard', ref_id: yardId },
      ]);
    });
  });

  describe('refused uploads change nothing', () => {
    async function expectRefused(body: FormData | string, status: number, code: string, headers = {}) {
      const before = await attachmentCount();
      const logBefore = (await query(t.db, 'SELECT count(*) AS n FROM change_log'))[0].n;
      const res = await admin.post('/api/attachment', body, headers);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe(code);
      expect(await attachmentCount()).toBe(before);
      expect((await query(t.db, 'SELECT count(*) AS n FROM change_log'))[0].n).toBe(logBefore);
      expect(tempFiles()).toEqual([]);
      return res;
    }

    it('type by content: text, GIF (not allowed by default) and an image named .jpg that is not one -> 415', async () => {
      const text = fileOf('text');
      await expectRefused(
        form([{ bytes: text, name: 'x.jpg', type: 'image/jpeg' }]),
        415,
        'unsupported-media-type',
      );
      expect(existsSync(blobPath(sha(text)))).toBe(false);
      const gif = await expectRefused(
        form([{ bytes: fileOf('gif'), name: 'a.gif' }]),
        415,
        'unsupported-media-type',
      );
      expect(gif.body.detail).toContain('image/gif');
    });

    it('larger than attachments.maxBytes -> 413', async () => {
      const set = await admin.put('/api/settings', { settings: { 'attachments.maxBytes': 1024 } });
      expect(set.status).toBe(200);
      try {
        const big = fileOf('jpeg', randomBytes(2000));
        const res = await expectRefused(form([{ bytes: big, name: 'big.jpg' }]), 413, 'payload-too-large');
        expect(res.body.detail).toContain('1024');
        expect(existsSync(blobPath(sha(big)))).toBe(false);
        const exact = fileOf('jpeg', randomBytes(1024 - 4));
        expect((await admin.post('/api/attachment', form([{ bytes: exact, name: 'ok.jpg' }]))).status).toBe(
          201,
        );
      } finally {
        await admin.put('/api/settings', { settings: { 'attachments.maxBytes': null } });
      }
    });

    it('attachments.allowedTypes decides, with type/* for a family', async () => {
      const set = await admin.put('/api/settings', { settings: { 'attachments.allowedTypes': ['image/*'] } });
      expect(set.status).toBe(200);
      try {
        const gif = await admin.post('/api/attachment', form([{ bytes: fileOf('gif'), name: 'a.gif' }]));
        expect(gif.status).toBe(201);
        expect(gif.body.contentType).toBe('image/gif');
        await expectRefused(form([{ bytes: fileOf('pdf'), name: 'a.pdf' }]), 415, 'unsupported-media-type');
      } finally {
        await admin.put('/api/settings', { settings: { 'attachments.allowedTypes': null } });
      }
    });

    it('bad input is 400 with field paths', async () => {
      const jpeg = () => ({ bytes: fileOf('jpeg'), name: 'p.jpg' });
      const missing = await expectRefused(form([], { refType: 'yard' }), 400, 'validation-failed');
      expect(missing.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining(['body.file', 'body.refId']),
      );
      const two = await expectRefused(form([jpeg(), jpeg()]), 400, 'validation-failed');
      expect(two.body.errors[0].path).toBe('body.file');
      const wrongField = await expectRefused(form([{ ...jpeg(), field: 'photo' }]), 400, 'validation-failed');
      expect(wrongField.body.errors[0].path).toBe('body.photo');
      const badRef = await expectRefused(
        form([jpeg()], { refType: 'spaceship', refId: 'nope', extra: 1 }),
        400,
        'validation-failed',
      );
      expect(badRef.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining(['body.refType', 'body.refId']),
      );
      const unknownRef = await expectRefused(
        form([jpeg()], { refType: 'movement', refId: newId() }),
        400,
        'validation-failed',
      );
      expect(unknownRef.body.errors).toEqual([
        expect.objectContaining({ path: 'body.refId', message: 'no movement with this id' }),
      ]);
      await expectRefused(form([{ bytes: Buffer.alloc(0), name: 'empty.jpg' }]), 400, 'validation-failed');
      await expectRefused(JSON.stringify({ file: 'x' }), 415, 'unsupported-media-type', {
        'content-type': 'application/json',
      });
      await expectRefused('--x\r\nbroken', 400, 'malformed-multipart', {
        'content-type': 'multipart/form-data; boundary=x',
      });
    });

    it('an upload cut off mid-stream leaves no temp file and no row', async () => {
      const before = await attachmentCount();
      const { port } = new URL(t.url);
      const boundary = 'cut-off-boundary';
      let tempWhileUploading: string[] = [];
      await new Promise<void>((resolve) => {
        const req = request({
          host: '127.0.0.1',
          port,
          path: '/api/attachment',
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.adminToken}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': '100000',
          },
        });
        req.on('error', () => resolve());
        req.on('response', () => resolve());
        req.write(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n` +
            'Content-Type: image/jpeg\r\n\r\n',
        );
        req.write(fileOf('jpeg', randomBytes(5000)));
        setTimeout(() => {
          tempWhileUploading = tempFiles();
          req.destroy();
          resolve();
        }, 100);
      });
      expect(tempWhileUploading).toHaveLength(1);
      for (let i = 0; i < 50 && tempFiles().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(tempFiles()).toEqual([]);
      expect(await attachmentCount()).toBe(before);
    });

    it('malformed id is 400, unknown id 404', async () => {
      expect((await admin.get('/api/attachment/not-a-uuid')).status).toBe(400);
      expect((await admin.get(`/api/attachment/${newId()}`)).status).toBe(404);
      expect((await admin.delete(`/api/attachment/${newId()}`)).status).toBe(404);
    });
  });

  describe('access', () => {
    it('staff upload and read; only admin and gate delete; no token is 401', async () => {
      const viewer = await clientWithRole(admin, 'viewer');
      const gate = await clientWithRole(admin, 'gate');
      const up = await viewer.post('/api/attachment', form([{ bytes: fileOf('jpeg'), name: 'v.jpg' }]));
      expect(up.status).toBe(201);
      expect(up.body.createdByKind).toBe('user');
      expect((await viewer.get(`/api/attachment/${up.body.id}`)).status).toBe(200);
      const denied = await viewer.delete(`/api/attachment/${up.body.id}`);
      expect(denied.status).toBe(403);
      expect(await attachmentCount()).toBeGreaterThan(0);
      // Not attached yet: the uploader's and the admins' (attachment-scope.test.ts).
      expect((await gate.delete(`/api/attachment/${up.body.id}`)).status).toBe(404);
      const own = await gate.post('/api/attachment', form([{ bytes: fileOf('jpeg'), name: 'g.jpg' }]));
      expect((await gate.delete(`/api/attachment/${own.body.id}`)).status).toBe(204);
      expect((await admin.delete(`/api/attachment/${up.body.id}`)).status).toBe(204);
      const anon = admin.as(undefined);
      expect(
        (await anon.post('/api/attachment', form([{ bytes: fileOf('jpeg'), name: 'a.jpg' }]))).status,
      ).toBe(401);
      expect((await anon.get(`/api/attachment/${newId()}`)).status).toBe(401);
    });

    it('a driver uploads and reads only their own attachments, and may not delete', async () => {
      const dana = await driverClient('D-100');
      const other = await driverClient('D-200');
      const bytes = fileOf('jpeg');
      const up = await dana.client.post('/api/attachment', form([{ bytes, name: 'damage.jpg' }]));
      expect(up.status).toBe(201);
      expect(up.body).toMatchObject({ createdBy: dana.id, createdByKind: 'driver' });
      const own = await rawGet(`/api/attachment/${up.body.id}`, {}, dana.client);
      expect(own.res.status).toBe(200);
      expect(own.bytes.equals(bytes)).toBe(true);
      expect((await other.client.get(`/api/attachment/${up.body.id}`)).status).toBe(404);
      const staffFile = await admin.post(
        '/api/attachment',
        form([{ bytes: fileOf('pdf'), name: 'bol.pdf' }]),
      );
      expect((await dana.client.get(`/api/attachment/${staffFile.body.id}`)).status).toBe(404);
      expect((await dana.client.delete(`/api/attachment/${up.body.id}`)).status).toBe(403);
    });

    it('staff scoped to a yard see attachments of that yard only', async () => {
      const yardA = await insertYard('SCA');
      const yardB = await insertYard('SCB');
      const inA = await admin.post(
        '/api/attachment',
        form([{ bytes: fileOf('jpeg'), name: 'a.jpg' }], { refType: 'yard', refId: yardA }),
      );
      const scopedToB = await clientWithRole(admin, 'gate', { yardIds: [yardB] });
      const scopedToA = await clientWithRole(admin, 'viewer', { yardIds: [yardA] });
      expect((await scopedToA.get(`/api/attachment/${inA.body.id}`)).status).toBe(200);
      expect((await scopedToB.get(`/api/attachment/${inA.body.id}`)).status).toBe(404);
      expect((await scopedToB.delete(`/api/attachment/${inA.body.id}`)).status).toBe(404);
      const refused = await scopedToB.post(
        '/api/attachment',
        form([{ bytes: fileOf('jpeg'), name: 'b.jpg' }], { refType: 'yard', refId: yardA }),
      );
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].path).toBe('body.refId');
    });

    it('an attachment a movement lists as evidence cannot be deleted (409 in-use)', async () => {
      const yardId = await insertYard('EVD');
      const up = await admin.post('/api/attachment', form([{ bytes: fileOf('jpeg'), name: 'in.jpg' }]));
      // A gate movement is the site's edge's (the cloud answers 409 edge-owned): stored here as the
      // site's sync stores it.
      const now = t.core.clock.now();
      await query(
        t.db,
        "INSERT INTO movement (id, yard_id, direction, at, attachment_ids, created_at, hlc) VALUES (?, ?, 'in', ?, ?, ?, ?)",
        newId(),
        yardId,
        now,
        JSON.stringify([up.body.id]),
        now,
        `${String(now).padStart(13, '0')}-0000-site-1`,
      );
      const res = await admin.delete(`/api/attachment/${up.body.id}`);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('in-use');
      expect(await query(t.db, 'SELECT id FROM attachment WHERE id = ?', up.body.id)).toHaveLength(1);
      expect(existsSync(blobPath(up.body.sha256))).toBe(true);
    });
  });
});
