import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TempBlob } from '../../../shared/modules/attachments/blob-store.js';
import { seed } from '../../helpers/builders.js';
import { Client, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * A full disk answers 507 storage-full (problem+json) and stores nothing: SQLITE_FULL for real from
 * a database capped with PRAGMA max_page_count, ENOSPC for real from the kernel's /dev/full.
 */
let t: TestApp;
let admin: Client;
let yardId: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = new Client(t.url, t.adminToken);
  yardId = (await seed(admin).yard({ code: 'FUL', name: 'Full disk yard', timeZone: 'UTC' })).id;
});
afterAll(() => t.close());

const count = (table: string) => rows(t.db, `SELECT count(*) AS n FROM ${table}`)[0].n as number;

function expectStorageFull(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(507);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body).toMatchObject({ status: 507, code: 'storage-full' });
  expect(res.body.detail).toMatch(/disk is full/);
}

describe('database full (SQLITE_FULL)', () => {
  it('a movement answers 507 storage-full, writes nothing, and works again once there is room', async () => {
    const pages = Number(t.db.sqlite.pragma('page_count', { simple: true }));
    t.db.sqlite.pragma(`max_page_count = ${pages}`);
    const statuses: number[] = [];
    let full: Awaited<ReturnType<Client['post']>> | undefined;
    try {
      // The pages already there have some room: record until the database can grow no more.
      for (let i = 0; i < 500 && !full; i++) {
        const res = await admin.post('/api/movement', {
          yardId,
          direction: 'in',
          trailer: { number: `FULL-${i}-${'x'.repeat(30)}` },
          notes: 'n'.repeat(900),
        });
        statuses.push(res.status);
        if (res.status !== 201) full = res;
      }
      expect(full).toBeDefined();
      expectStorageFull(full!);
      const recorded = statuses.filter((s) => s === 201).length;
      expect(count('movement')).toBe(recorded);
      expect(count('trailer')).toBe(recorded);
      expect(count('visit')).toBe(recorded);
      // Movements that arrive together share one transaction (group commit): each answers the cause.
      const together = await Promise.all(
        [1, 2, 3, 4].map((n) =>
          admin.post('/api/movement', {
            yardId,
            direction: 'in',
            trailer: { number: `TOGETHER-${n}` },
            notes: 'n'.repeat(900),
          }),
        ),
      );
      for (const res of together) expectStorageFull(res);
      expect(count('movement')).toBe(recorded);
    } finally {
      t.db.sqlite.pragma('max_page_count = 1073741823');
    }
    const again = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      trailer: { number: 'ROOM-1' },
    });
    expect(again.status).toBe(201);
  });
});

describe('database full on any write', () => {
  it('a record written through its own transaction (a carrier) answers 507 too', async () => {
    const pages = Number(t.db.sqlite.pragma('page_count', { simple: true }));
    t.db.sqlite.pragma(`max_page_count = ${pages}`);
    let full: Awaited<ReturnType<Client['post']>> | undefined;
    let created = 0;
    try {
      for (let i = 0; i < 500 && !full; i++) {
        const res = await admin.post('/api/carrier', { name: `Full Freight ${i} ${'x'.repeat(150)}` });
        if (res.status === 201) created++;
        else full = res;
      }
      expect(full).toBeDefined();
      expectStorageFull(full!);
      expect(rows(t.db, "SELECT count(*) AS n FROM carrier WHERE name LIKE 'Full Freight %'")[0].n).toBe(
        created,
      );
    } finally {
      t.db.sqlite.pragma('max_page_count = 1073741823');
    }
  });
});

describe('disk full on upload (ENOSPC)', () => {
  it.skipIf(!existsSync('/dev/full'))(
    'an upload whose bytes cannot be written answers 507 storage-full, not malformed-multipart',
    async () => {
      const blobs = t.services.attachments.blobs;
      const original = blobs.writeTemp.bind(blobs);
      // The kernel answers every write to /dev/full with ENOSPC: a real full-disk error object.
      blobs.writeTemp = async (source: Readable): Promise<TempBlob> => {
        const file = await open('/dev/full', 'w');
        try {
          for await (const chunk of source as AsyncIterable<Buffer>) await file.write(chunk);
          await file.sync();
        } finally {
          await file.close();
        }
        throw new Error('unreachable: /dev/full accepted the bytes');
      };
      const before = count('attachment');
      try {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3])]), 'gate.jpg');
        const res = await admin.post('/api/attachment', form);
        expectStorageFull(res);
      } finally {
        blobs.writeTemp = original;
      }
      expect(count('attachment')).toBe(before);
      const tmp = join(t.core.paths.attachments, 'tmp');
      expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
    },
  );
});

/** Whether this process may mount a file system (root in CI): the full-disk test needs a tiny tmpfs. */
function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'yard-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

describe('disk full on upload, for real (a 256 KiB tmpfs under the attachments folder)', () => {
  it.skipIf(!canMount())(
    'an upload bigger than the room left answers 507 storage-full; nothing is stored or left behind',
    async () => {
      const dir = t.core.paths.attachments;
      mkdirSync(dir, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir]);
      try {
        const before = count('attachment');
        // A JPEG (by its first bytes) of 1 MiB: the kernel refuses the write past 256 KiB (ENOSPC).
        const jpeg = new Uint8Array(1024 * 1024);
        jpeg.set([0xff, 0xd8, 0xff, 0xe0]);
        const form = new FormData();
        form.append('file', new Blob([jpeg]), 'gate.jpg');
        const res = await admin.post('/api/attachment', form);
        expectStorageFull(res);
        expect(count('attachment')).toBe(before);
        expect(readdirSync(join(dir, 'tmp'))).toEqual([]);

        // A small file still fits: the service goes on once there is room.
        const small = new FormData();
        small.append('file', new Blob([jpeg.subarray(0, 1000)]), 'small.jpg');
        expect((await admin.post('/api/attachment', small)).status).toBe(201);
      } finally {
        execFileSync('umount', ['-l', dir]);
      }
    },
  );
});

describe('malformed compressed bodies', () => {
  it('a gzip body that is not gzip is 400 malformed-body, not malformed-url', async () => {
    const res = await admin.post('/api/carrier', 'this is not gzip data', {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('malformed-body');
    expect(res.body.detail).toMatch(/Content-Encoding/);
  });

  it('a truncated gzip body is 400 malformed-body; a good one is read', async () => {
    const whole = gzipSync(JSON.stringify({ name: 'Zipped Freight', scac: 'ZIPF' }));
    const cut = await admin.post('/api/carrier', whole.subarray(0, whole.length - 8), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(cut.status).toBe(400);
    expect(cut.body.code).toBe('malformed-body');
    const ok = await admin.post('/api/carrier', new Uint8Array(whole), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(ok.status).toBe(201);
  });
});
