import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Whose an attachment is (docs/domain.md "Attachments"), at a standalone edge: an upload not
 * attached yet is its uploader's and the admins' until a record lists it; a movement or inspection
 * lists only attachments of its own yard (or the caller's own unattached uploads); a driver
 * attaches only to itself; file names lose control and bidi formatting characters.
 */
let t: TestApp;
let admin: Client;
let yardA: string;
let yardB: string;
let clerkA: Client;
let clerkA2: Client;
let clerkB: Client;

const jpeg = () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(200)]);
function upload(client: Client, name = 'gate.jpg', fields: Record<string, string> = {}) {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  f.append('file', new Blob([new Uint8Array(jpeg())]), name);
  return client.post('/api/attachment', f);
}
const count = async (table: string) =>
  (await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

beforeAll(async () => {
  t = await startTestApp();
  admin = new Client(t.url, t.adminToken);
  yardA = (await seed(admin).yard({ code: 'ATA', name: 'Yard A', timeZone: 'UTC' })).id;
  yardB = (await seed(admin).yard({ code: 'ATB', name: 'Yard B', timeZone: 'UTC' })).id;
  clerkA = await clientWithRole(admin, 'gate', { yardIds: [yardA] });
  clerkA2 = await clientWithRole(admin, 'gate', { yardIds: [yardA] });
  clerkB = await clientWithRole(admin, 'gate', { yardIds: [yardB] });
});
afterAll(() => t.close());

describe('attachments belong to their uploader and their yard', () => {
  it('an unattached upload is read by its uploader and the admins only, then by the yard once a movement lists it', async () => {
    const up = await upload(clerkA);
    expect(up.status).toBe(201);
    expect((await clerkA.get(`/api/attachment/${up.body.id}`)).status).toBe(200);
    expect((await admin.get(`/api/attachment/${up.body.id}`)).status).toBe(200);
    for (const other of [clerkA2, clerkB, await clientWithRole(admin, 'viewer')]) {
      const res = await other.get(`/api/attachment/${up.body.id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not-found');
    }
    const moved = await clerkA.post('/api/movement', {
      yardId: yardA,
      direction: 'in',
      trailer: { number: 'ATT-1' },
      attachmentIds: [up.body.id],
    });
    expect(moved.status, moved.text).toBe(201);
    expect((await clerkA2.get(`/api/attachment/${up.body.id}`)).status).toBe(200);
    expect((await clerkB.get(`/api/attachment/${up.body.id}`)).status).toBe(404);
  });

  it("a yard-A movement cannot list a yard-B attachment, nor another clerk's unattached upload", async () => {
    const inB = await upload(clerkB, 'b.jpg', { refType: 'yard', refId: yardB });
    expect(inB.status).toBe(201);
    const othersUpload = await upload(clerkA2);
    const movements = await count('movement');
    for (const client of [clerkA, admin]) {
      for (const id of [inB.body.id, othersUpload.body.id]) {
        const res = await client.post('/api/movement', {
          yardId: yardA,
          direction: 'in',
          trailer: { number: `ATT-X-${Math.random()}` },
          attachmentIds: [id],
        });
        expect(res.status, res.text).toBe(404);
        expect(res.body.code).toBe('not-found');
      }
    }
    expect(await count('movement')).toBe(movements);
  });

  it('a driver attaches files only to itself', async () => {
    const dana = await seedRows(t).loggedInDriver(admin, {
      driverCode: 'ATT-D1',
      pin: '4321',
      firstName: 'Dana',
    });
    for (const [refType, refId] of [
      ['yard', yardB],
      ['driver', (await seedRows(t).driver({ lastName: 'Other' })) as string],
    ]) {
      const res = await upload(dana.client, 'x.jpg', { refType: refType!, refId: refId! });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors.map((e: any) => e.path)).toEqual(['body.refId']);
    }
    const own = await upload(dana.client, 'licence.jpg', { refType: 'driver', refId: dana.id });
    expect(own.status, own.text).toBe(201);
    expect((await upload(dana.client)).status).toBe(201);
  });

  it('a file name keeps no control or bidi formatting characters', async () => {
    const res = await upload(clerkA, 'invoice\u202Egpj.exe\u200F\u0085\u2066x\u2069.jpg');
    expect(res.status).toBe(201);
    expect(res.body.filename).toBe('invoicegpj.exex.jpg');
  });
});
