import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const UNKNOWN_ID = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';

/** The cloud's trailers on each database (docs/architecture.md "Two databases, and several cloud nodes"): one suite, SQLite and PostgreSQL. */
describe.each(TEST_DIALECTS)('trailers (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let yardA: string;
  let yardB: string;
  let spotA1: string;
  let spotB1: string;

  /** Yards and locations are another module's master data; written here the way that module writes them. */
  const addYard = (code: string) => seedRows(t).yard(code);

  const addSpot = (yardId: string, name: string) => seedRows(t).location(yardId, name);

  /** Puts a trailer in a yard the way a gate check-in does. */
  async function parkIn(trailerId: string, yardId: string | null, locationId: string | null = null) {
    await t.core.changes.update(t.core.kysely, 'trailer', trailerId, {
      yardId,
      locationId,
      arrivedAt: t.core.clock.now(),
    });
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    // The site of the seeded yards, registered: the cloud logs their records (and organisation-wide ones) for it.
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-1',
      'Site 1',
      '$7$unused',
      Date.now(),
    );
    yardA = await addYard('RA');
    yardB = await addYard('RB');
    spotA1 = await addSpot(yardA, 'A1');
    spotB1 = await addSpot(yardB, 'B1');
  });
  afterAll(() => t.close());

  const count = async (table: string) =>
    (await query(t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

  async function trailer(body: Record<string, unknown>) {
    const res = await admin.post('/api/trailer', body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  }

  describe('trailers', () => {
    it('creates outside any yard, reads, updates with If-Match, logs changes', async () => {
      const carrier = await admin.post('/api/carrier', { name: 'Trailer Co' });
      const res = await admin.post('/api/trailer', {
        carrierId: carrier.body.id,
        number: ' abcu  123456 ',
        plate: 'tx-55 1',
        plateRegion: 'us-tx',
        type: 'reefer',
        lengthFt: 53,
        loadStatus: 'loaded',
        sealNumber: 'S-998',
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('etag')).toBe('"v1"');
      expect(res.headers.get('location')).toBe(`/api/trailer/${res.body.id}`);
      expect(res.body).toMatchObject({
        number: 'ABCU 123456',
        plate: 'TX551',
        plateRegion: 'US-TX',
        type: 'reefer',
        lengthFt: 53,
        loadStatus: 'loaded',
        sealNumber: 'S-998',
        yardId: null,
        locationId: null,
        inYard: false,
        arrivedAt: null,
        version: 1,
      });
      const defaults = await trailer({ number: 'PLAIN1' });
      expect(defaults).toMatchObject({ carrierId: null, type: 'dry_van', loadStatus: 'unknown' });

      const got = await admin.get(`/api/trailer/${res.body.id}`);
      expect(got.body).toEqual(res.body);
      const stale = await admin.patch(
        `/api/trailer/${res.body.id}`,
        { loadStatus: 'empty' },
        { 'if-match': '"v7"' },
      );
      expect(stale.status).toBe(412);
      const ok = await admin.patch(
        `/api/trailer/${res.body.id}`,
        { loadStatus: 'empty', sealNumber: null },
        { 'if-match': '"v1"' },
      );
      expect(ok.status).toBe(200);
      expect(ok.headers.get('etag')).toBe('"v2"');
      expect(ok.body).toMatchObject({ loadStatus: 'empty', sealNumber: null, version: 2 });
      const log = await query(
        t.db,
        "SELECT op, data FROM change_log WHERE peer = 'site-1' AND entity = 'trailer' AND entity_id = ? ORDER BY seq",
        res.body.id,
      );
      expect(log.map((l) => l.op)).toEqual(['upsert', 'upsert']);
      expect(JSON.parse(log[1].data).loadStatus).toBe('empty');
    });

    it('bad input 400 per field, unknown carrier 404, duplicate number per carrier 409; nothing written', async () => {
      const before = await count('trailer');
      const bad = await admin.post('/api/trailer', {
        number: '',
        type: 'boat',
        lengthFt: 200,
        loadStatus: 'half',
        yardId: yardA,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: any) => e.path)).toEqual(
        expect.arrayContaining(['body.number', 'body.type', 'body.lengthFt', 'body.loadStatus', 'body']),
      );
      expect((await admin.post('/api/trailer', { number: 'N1', carrierId: UNKNOWN_ID })).status).toBe(404);
      const c1 = (await admin.post('/api/carrier', { name: 'Dup One' })).body.id;
      const c2 = (await admin.post('/api/carrier', { name: 'Dup Two' })).body.id;
      const first = await trailer({ carrierId: c1, number: 'DUP 100' });
      const midCount = await count('trailer');
      const dup = await admin.post('/api/trailer', { carrierId: c1, number: 'dup  100' });
      expect(dup.status).toBe(409);
      expect(dup.body).toMatchObject({ code: 'duplicate', existingId: first.id });
      expect(await count('trailer')).toBe(midCount);
      // Same number with another carrier is another trailer.
      const other = await trailer({ carrierId: c2, number: 'DUP 100' });
      const moveToC1 = await admin.patch(`/api/trailer/${other.id}`, { carrierId: c1 });
      expect(moveToC1.status).toBe(409);
      expect(await query(t.db, 'SELECT carrier_id, version FROM trailer WHERE id = ?', other.id)).toEqual([
        { carrier_id: c2, version: 1 },
      ]);
      expect(midCount).toBe(before + 1);
      expect((await admin.patch(`/api/trailer/${other.id}`, { yardId: yardA })).status).toBe(400);
      expect((await admin.get('/api/trailer/123')).status).toBe(400);
      expect((await admin.get(`/api/trailer/${UNKNOWN_ID}`)).status).toBe(404);
      expect((await admin.patch(`/api/trailer/${UNKNOWN_ID}`, { notes: 'x' })).status).toBe(404);
    });

    it('concurrent updates with the same If-Match: one wins, the others are 412; one change each', async () => {
      for (let round = 0; round < 10; round++) {
        const tr = await trailer({ number: `RACE-TR${round}` });
        const updates = await Promise.all(
          ['empty', 'loaded', 'empty', 'loaded'].map((loadStatus) =>
            admin.patch(`/api/trailer/${tr.id}`, { loadStatus }, { 'if-match': '"v1"' }),
          ),
        );
        expect(updates.map((r) => r.status).sort()).toEqual([200, 412, 412, 412]);
        const winner = updates.find((r) => r.status === 200)!;
        expect(await query(t.db, 'SELECT load_status, version FROM trailer WHERE id = ?', tr.id)).toEqual([
          { load_status: winner.body.loadStatus, version: 2 },
        ]);
        const log = await query(
          t.db,
          "SELECT op FROM change_log WHERE peer = 'site-1' AND entity = 'trailer' AND entity_id = ?",
          tr.id,
        );
        expect(log).toHaveLength(2);
      }
    });

    it('PATCH locationId: only while in a yard, only a location of that yard', async () => {
      const tr = await trailer({ number: 'LOC1' });
      const outside = await admin.patch(`/api/trailer/${tr.id}`, { locationId: spotA1 });
      expect(outside.status).toBe(409);
      expect(outside.body.code).toBe('not-in-yard');
      await parkIn(tr.id, yardA);
      const version = (await query(t.db, 'SELECT version FROM trailer WHERE id = ?', tr.id))[0].version;
      const otherYard = await admin.patch(`/api/trailer/${tr.id}`, { locationId: spotB1 });
      expect(otherYard.status).toBe(404);
      expect((await admin.patch(`/api/trailer/${tr.id}`, { locationId: UNKNOWN_ID })).status).toBe(404);
      expect(await query(t.db, 'SELECT version, location_id FROM trailer WHERE id = ?', tr.id)).toEqual([
        { version, location_id: null },
      ]);
      const moved = await admin.patch(`/api/trailer/${tr.id}`, { locationId: spotA1 });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ yardId: yardA, locationId: spotA1, inYard: true });
      expect(moved.body.arrivedAt).not.toBeNull();
      const cleared = await admin.patch(`/api/trailer/${tr.id}`, { locationId: null });
      expect(cleared.body.locationId).toBeNull();
    });

    it('lists by yard, carrier, inYard, loadStatus and q, with keyset paging', async () => {
      const carrier = (await admin.post('/api/carrier', { name: 'Listing Lines' })).body.id;
      const a = await trailer({
        carrierId: carrier,
        number: 'LST-001',
        plate: 'PQ 11',
        loadStatus: 'loaded',
      });
      const b = await trailer({ carrierId: carrier, number: 'LST-002', loadStatus: 'empty' });
      const c = await trailer({ carrierId: carrier, number: 'LST-003', loadStatus: 'loaded' });
      await parkIn(a.id, yardB);
      await parkIn(c.id, yardB);
      const ids = async (query: string) =>
        (await admin.get(`/api/trailer?${query}`)).body.items.map((x: any) => x.id);
      expect(await ids(`carrierId=${carrier}`)).toEqual([a.id, b.id, c.id]);
      expect(await ids(`carrierId=${carrier}&inYard=true`)).toEqual([a.id, c.id]);
      expect(await ids(`carrierId=${carrier}&inYard=false`)).toEqual([b.id]);
      expect(await ids(`yardId=${yardB}&loadStatus=loaded`)).toEqual([a.id, c.id]);
      expect(await ids('q=lst-00')).toEqual([a.id, b.id, c.id]);
      expect(await ids('q=pq1')).toEqual([a.id]);
      expect(await ids('q=50%25')).toEqual([]);
      // Spaces in a number do not count: typed without them (or with others), it is still found.
      const spaced = await trailer({ number: 'LSTU 482113' });
      expect(await ids('q=lstu482113')).toEqual([spaced.id]);
      expect(await ids('q=LSTU%2048%202113')).toEqual([spaced.id]);
      // number= is exactly that number (spaces and case aside), not every number starting with it.
      const longer = await trailer({ number: 'LSTU 4821130' });
      expect(await ids('q=lstu482113')).toEqual([spaced.id, longer.id]);
      expect(await ids('number=lstu482113')).toEqual([spaced.id]);
      expect(await ids('number=LSTU%204821130')).toEqual([longer.id]);
      // Letters beyond ASCII: the number is stored upper-cased, found however it is typed, and a
      // second trailer with it is a duplicate.
      const umlaut = await trailer({ number: 'Über 7' });
      expect(umlaut.number).toBe('ÜBER 7');
      expect(await ids(`q=${encodeURIComponent('über7')}`)).toEqual([umlaut.id]);
      expect(await ids(`q=${encodeURIComponent('ÜBER 7')}`)).toEqual([umlaut.id]);
      const again = await admin.post('/api/trailer', { number: 'über 7' });
      expect([again.status, again.body.existingId]).toEqual([409, umlaut.id]);
      const p1 = await admin.get(`/api/trailer?carrierId=${carrier}&limit=2`);
      const p2 = await admin.get(`/api/trailer?carrierId=${carrier}&limit=2&cursor=${p1.body.nextCursor}`);
      expect(p2.body).toMatchObject({ items: [{ id: c.id }], nextCursor: null });
      expect((await admin.get('/api/trailer?loadStatus=full')).status).toBe(400);
      expect((await admin.get('/api/trailer?yardId=abc')).status).toBe(400);
    });

    it('yard-scoped users see trailers outside yards and in their yards only', async () => {
      const inA = await trailer({ number: 'SCOPE-A' });
      const inB = await trailer({ number: 'SCOPE-B' });
      await parkIn(inA.id, yardA);
      await parkIn(inB.id, yardB);
      const scoped = await clientWithRole(admin, 'dispatcher', { yardIds: [yardA] });
      const list = (await scoped.get('/api/trailer?limit=500')).body.items;
      expect(list.map((x: any) => x.id)).toContain(inA.id);
      expect(list.every((x: any) => x.yardId === null || x.yardId === yardA)).toBe(true);
      expect((await scoped.get(`/api/trailer/${inB.id}`)).status).toBe(404);
      expect((await scoped.patch(`/api/trailer/${inB.id}`, { notes: 'x' })).status).toBe(404);
      expect((await scoped.get(`/api/trailer?yardId=${yardB}`)).status).toBe(403);
      expect((await scoped.patch(`/api/trailer/${inA.id}`, { notes: 'checked' })).status).toBe(200);
    });

    it('roles: staff read; admin, dispatcher and gate update; admin and gate create', async () => {
      const viewer = await clientWithRole(admin, 'viewer');
      const billing = await clientWithRole(admin, 'billing');
      const dispatcher = await clientWithRole(admin, 'dispatcher');
      const gate = await clientWithRole(admin, 'gate');
      expect((await viewer.get('/api/trailer')).status).toBe(200);
      expect((await viewer.post('/api/trailer', { number: 'V1' })).status).toBe(403);
      expect((await dispatcher.post('/api/trailer', { number: 'D1' })).status).toBe(403);
      const made = await gate.post('/api/trailer', { number: 'G1' });
      expect(made.status).toBe(201);
      expect((await dispatcher.patch(`/api/trailer/${made.body.id}`, { loadStatus: 'empty' })).status).toBe(
        200,
      );
      expect((await billing.patch(`/api/trailer/${made.body.id}`, { loadStatus: 'loaded' })).status).toBe(
        403,
      );
    });

    it('lists a yard of 10,000 trailers by pages on the trailer_yard index, with no N+1', async () => {
      // Straight into the table (no change capture): 10,000 rows, in statements of 1,000.
      for (let start = 0; start < 10_000; start += 1000) {
        const values: unknown[] = [];
        for (let i = start; i < start + 1000; i++)
          values.push(newId(), `BULK${i}`, i % 4 === 0 ? yardA : yardB);
        await query(
          t.db,
          `INSERT INTO trailer (id, number, yard_id, load_status, created_at, updated_at, hlc) VALUES ${Array(
            1000,
          )
            .fill("(?, ?, ?, 'loaded', 0, 0, 'seed')")
            .join(', ')}`,
          ...values,
        );
      }

      const statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];
      const stop = t.db.onQuery((sql, parameters) => statements.push({ sql, parameters }));
      let pages: any[];
      try {
        const first = await admin.get(`/api/trailer?yardId=${yardA}&limit=50`);
        const second = await admin.get(
          `/api/trailer?yardId=${yardA}&limit=50&cursor=${first.body.nextCursor}`,
        );
        pages = [first, second];
      } finally {
        stop();
      }
      for (const page of pages) {
        expect(page.status).toBe(200);
        expect(page.body.items).toHaveLength(50);
        expect(page.body.items.every((x: any) => x.yardId === yardA)).toBe(true);
      }
      const firstIds = pages[0].body.items.map((x: any) => x.id);
      expect([...firstIds].sort()).toEqual(firstIds);
      expect(pages[1].body.items[0].id > firstIds.at(-1)).toBe(true);
      // Per page: the page itself and the cheap "is there a next page?" probe. No N+1.
      const trailerQueries = statements.filter((q) => /from "trailer"/i.test(q.sql));
      expect(trailerQueries).toHaveLength(4);
      // The plans are SQLite's (the gate box's database); PostgreSQL chooses its own from its statistics.
      if (t.db.dialect === 'sqlite') {
        for (const q of trailerQueries) {
          const plan = (await query(t.db, `EXPLAIN QUERY PLAN ${q.sql}`, ...q.parameters))
            .map((r) => r.detail)
            .join('\n');
          expect(plan).toMatch(/USING (COVERING )?INDEX trailer_yard/);
          // The index delivers rows in id order; only the page itself (<= limit rows) may be sorted for the JSON array.
          expect(plan).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
        }
      }
    });

    it('every trailer route is in the OpenAPI document; getRow and trailerOut for other modules', async () => {
      const doc = (await admin.as(undefined).get('/v3/api-docs')).body;
      for (const [path, methods] of [
        ['/api/trailer', ['get', 'post']],
        ['/api/trailer/{id}', ['get', 'patch']],
      ] as const) {
        for (const method of methods) expect(doc.paths[path][method].tags).toEqual(['Trailer Controller']);
      }
      const tr = await trailer({ number: 'ROW-1' });
      const trailers = t.services.trailers;
      expect(trailers.trailerOut(await trailers.getRow(tr.id))).toEqual(tr);
      await expect(trailers.getRow(UNKNOWN_ID)).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('trailer list rendering', () => {
    it('list items (JSON rendered by the database) equal the single-trailer answers (JSON from the mapper), field for field', async () => {
      const carrier = await admin.post('/api/carrier', { name: 'Render Co', scac: 'RNDR' });
      const made = await admin.post('/api/trailer', {
        carrierId: carrier.body.id,
        number: 'rndr 1',
        plate: 'ab-12 cd',
        plateRegion: 'TX',
        type: 'reefer',
        lengthFt: 53,
        loadStatus: 'loaded',
        sealNumber: 'S-9',
        notes: 'quote " and unicode é',
      });
      expect(made.status).toBe(201);
      const list = await admin.get(`/api/trailer?carrierId=${carrier.body.id}`);
      const one = await admin.get(`/api/trailer/${made.body.id}`);
      expect(list.body.items).toEqual([one.body]);
      expect(Object.keys(list.body.items[0])).toEqual(Object.keys(one.body));
    });
  });

  describe('trailer list caching', () => {
    it('answers 304 to a matching If-None-Match, and a new ETag (with the new data) after any trailer write', async () => {
      const carrier = await admin.post('/api/carrier', { name: 'Etag Lines', scac: 'ETGL' });
      const path = `/api/trailer?carrierId=${carrier.body.id}`;
      await admin.post('/api/trailer', { carrierId: carrier.body.id, number: 'E1' });
      const first = await admin.get(path);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^W\/".+"$/);
      const again = await admin.get(path, { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      await admin.post('/api/trailer', { carrierId: carrier.body.id, number: 'E2' });
      const after = await admin.get(path, { 'if-none-match': etag });
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(etag);
      expect(after.body.items.map((x: any) => x.number).sort()).toEqual(['E1', 'E2']);
    });

    it('a principal scoped to other yards never gets a page rendered for someone else', async () => {
      const yard = await admin.post('/api/yard', { code: 'CACHEY', name: 'Cache yard', timeZone: 'UTC' });
      const scoped = await clientWithRole(admin, 'viewer', { yardIds: [yard.body.id] });
      const everyone = await admin.get('/api/trailer?limit=500');
      const mine = await scoped.get('/api/trailer?limit=500');
      expect(mine.status).toBe(200);
      expect(mine.body.items.every((x: any) => x.yardId === null || x.yardId === yard.body.id)).toBe(true);
      expect(mine.headers.get('etag')).not.toBe(everyone.headers.get('etag'));
    });
  });
});
