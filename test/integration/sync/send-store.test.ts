import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { loadConfig } from '../../../shared/config.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { openAppDatabase } from '../../../shared/db/open-app-database.js';
import { PRUNE_LOCK_KEY } from '../../../shared/db/postgres-ddl.js';
import { silentLogger } from '../../../shared/log.js';
import { format } from '../../../shared/sync/hlc.js';
import { AckWriter } from '../../../shared/sync/outbox.js';
import { Batch, decode } from '../../../shared/sync/protocol.js';
import { LogPruner } from '../../../shared/sync/prune.js';
import { sendStoreOf } from '../../../shared/sync/send-store.js';
import { query } from '../../helpers/http.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../../helpers/postgres.js';

const DAY = 24 * 60 * 60_000;

/** The send side of sync (SendStore) on the cloud's database, SQLite and PostgreSQL. */
describe.each(TEST_DIALECTS)('send store (%s)', (dialect) => {
  let db: AppDatabase;
  let postgres: TestDatabase | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'yard-send-store-'));
  const config = () =>
    loadConfig({
      YARD_ROLE: 'cloud',
      YARD_DATA_DIR: dir,
      YARD_SYNC_RETENTION_DAYS: '7',
      ...(postgres ? { YARD_DATABASE_URL: postgres.url } : {}),
    });
  // As the sync runtime makes it (on SQLite with the array-row read once the stream id is known).
  const storeOf = (limits = { batchRows: 500, batchBytes: 262_144 }) =>
    sendStoreOf({ db, config: { ...config(), sync: { ...config().sync, ...limits } } });

  beforeAll(async () => {
    postgres = dialect === 'postgres' ? await createTestDatabase() : undefined;
    db = await openAppDatabase(config());
  });

  afterEach(async () => {
    await query(db, 'DELETE FROM change_log');
    await query(db, 'DELETE FROM sync_cursor');
    await query(db, "DELETE FROM sync_meta WHERE name <> 'stream'");
  });

  afterAll(async () => {
    await db?.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Appends a change_log row; returns its seq. */
  async function log(peer: string, data: Record<string, unknown>, ms = 1_700_000_000_000): Promise<number> {
    const [row] = await query(
      db,
      "INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES (?, 'carrier', ?, 'upsert', ?, 'cloud', 4, ?) RETURNING seq",
      peer,
      String(data.id),
      format(ms, 0, 'cloud'),
      JSON.stringify(data),
    );
    return Number(row.seq);
  }

  it('batches name the seq range they cover and hold only the peer’s rows, in order; counts follow acks', async () => {
    const seqs: Record<string, number[]> = { a: [], b: [] };
    for (let i = 0; i < 7; i++) {
      const peer = i % 3 === 0 ? 'b' : 'a';
      seqs[peer]!.push(await log(peer, { id: `c${i}`, name: `Carrier "${i}" é` }));
    }
    const store = storeOf({ batchRows: 2, batchBytes: 262_144 });
    const first = seqs.a![0]! - 1;
    const batches = [];
    for (let from = first; ; ) {
      const batch = await store.read('a', 'site-a', from);
      if (!batch) break;
      const parsed = decode(Batch, batch.json);
      expect(parsed, batch.json).toBeDefined();
      expect(parsed).toMatchObject({ v: 1, site: 'site-a', from, to: batch.to, schemaV: 4 });
      expect(parsed!.stream).toBe(await store.stream());
      batches.push(parsed!);
      from = batch.to + 1;
    }
    expect(batches.map((b) => b.rows.length)).toEqual([2, 2]);
    expect(batches.flatMap((b) => b.rows.map((r) => r.seq))).toEqual(seqs.a!);
    expect(batches[1]!.from).toBe(batches[0]!.to + 1);
    // The stored JSON travels as it is.
    expect(batches[0]!.rows[0]!.data).toEqual({ id: 'c1', name: 'Carrier "1" é' });
    // Queue depths follow the acknowledged position (migration 0011's triggers, on both databases).
    expect((await store.peerFigures('a')).queued).toBe(4);
    await store.saveCursor('a', { ackedSeq: seqs.a![1]!, ackedAt: null }, false);
    expect((await store.peerFigures('a')).queued).toBe(2);
    expect((await store.peerFigures('b')).queued).toBe(3);
    expect(await store.peerFigures('nobody')).toEqual({ queued: 0, deadLetters: 0 });
    expect((await store.totalFigures()).queued).toBe(5);
    expect(Object.fromEntries(await store.allPeerFigures())).toMatchObject({
      a: { queued: 2, deadLetters: 0 },
      b: { queued: 3, deadLetters: 0 },
    });
    expect(await store.oldestQueuedHlc('a', seqs.a![1]!)).toBe(format(1_700_000_000_000, 0, 'cloud'));
    expect(await store.oldestQueuedHlc('a', seqs.a![3]!)).toBeUndefined();
  });

  it('keeps a batch under batchBytes; a row larger than that travels alone', async () => {
    const first = await log('a', { id: 'c0', note: 'x'.repeat(300) });
    for (let i = 1; i < 20; i++) await log('a', { id: `c${i}`, note: 'x'.repeat(300) });
    const big = await log('a', { id: 'big', note: 'y'.repeat(5_000) });
    await log('a', { id: 'after' });
    const store = storeOf({ batchRows: 500, batchBytes: 2_048 });
    const sizes: number[] = [];
    let alone: Batch | undefined;
    for (let from = first; ; ) {
      const batch = await store.read('a', 'site-a', from);
      if (!batch) break;
      const parsed = decode(Batch, batch.json)!;
      if (parsed.rows.some((r) => r.seq === big)) alone = parsed;
      else sizes.push(Buffer.byteLength(batch.json));
      from = batch.to + 1;
    }
    expect(alone?.rows).toHaveLength(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2_048);
    expect(sizes.length).toBeGreaterThan(3);
  });

  it('a probe is an empty batch from..from-1; topSeq survives deleted rows', async () => {
    const store = storeOf();
    expect(decode(Batch, await store.probe('site-a', 5))).toMatchObject({ from: 5, to: 4, rows: [] });
    const last = await log('a', { id: 'x' });
    await query(db, 'DELETE FROM change_log');
    expect(await store.topSeq()).toBe(last);
  });

  it('acks only raise the stored position unless exact; rotating the stream resets every position', async () => {
    const store = storeOf();
    await store.saveCursor('a', { ackedSeq: 10, ackedAt: 1 }, false);
    await store.saveCursor('a', { ackedSeq: 7, ackedAt: 2 }, false); // late and lower: kept at 10
    expect(await store.cursor('a')).toEqual({ ackedSeq: 10, ackedAt: 2 });
    await store.saveCursor('a', { ackedSeq: 7, ackedAt: 3 }, true);
    expect(await store.cursor('a')).toEqual({ ackedSeq: 7, ackedAt: 3 });
    expect(await store.cursor('nobody')).toBeUndefined();
    const before = await store.stream();
    const otherNode = storeOf();
    expect(await otherNode.stream()).toBe(before);
    let heard = '';
    store.onRotate((s) => {
      heard = s;
    });
    const after = await store.rotateStream();
    expect(after).not.toBe(before);
    expect(heard).toBe(after);
    expect(await storeOf().stream()).toBe(after);
    // PostgreSQL: another cloud node's store sees the rotation (SQLite has one process per database).
    if (dialect === 'postgres') expect(await otherNode.stream()).toBe(after);
    expect(await store.cursor('a')).toEqual({ ackedSeq: 0, ackedAt: null });
  });

  it('coalesces a burst of acks into few writes, the newest position last', async () => {
    const store = storeOf();
    let writes = 0;
    let position = { ackedSeq: 0, ackedAt: 1 as number | null };
    const writer = new AckWriter(
      silentLogger(),
      (cursor, exact) => {
        writes += 1;
        return store.saveCursor('a', cursor, exact);
      },
      'a',
      () => position,
    );
    for (let i = 1; i <= 100; i++) {
      position = { ackedSeq: i, ackedAt: i };
      writer.save(false);
    }
    await writer.flushed();
    expect(writes).toBeLessThanOrEqual(2);
    expect(await store.cursor('a')).toEqual({ ackedSeq: 100, ackedAt: 100 });
  });

  it('prunes acknowledged rows older than the retention, records the pruned seq, keeps the rest', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 31));
    const deps = { db, clock, log: silentLogger(), config: config() };
    const store = storeOf();
    const old = clock.now() - 10 * DAY;
    const a1 = await log('a', { id: '1' }, old);
    const a2 = await log('a', { id: '2' }, old);
    const b1 = await log('b', { id: '3' }, old);
    const a3 = await log('a', { id: '4' }, old); // old but not acknowledged
    const a4 = await log('a', { id: '5' }, clock.now() - DAY); // acknowledged but recent
    await store.saveCursor('a', { ackedSeq: a2, ackedAt: 1 }, false);
    const pruner = new LogPruner(deps);
    expect(await pruner.runOnce()).toEqual({ a: 2 });
    const left = await query(db, 'SELECT seq FROM change_log ORDER BY seq');
    expect(left.map((r) => Number(r.seq))).toEqual([b1, a3, a4]);
    expect(await store.prunedUpTo('a')).toBe(a2);
    expect(await store.prunedUpTo('b')).toBe(0);
    expect(a1).toBeLessThan(a2);
    expect((await store.peerFigures('a')).queued).toBe(2);
    // Acknowledged later, and old enough: pruned on the next run; the recorded seq only grows.
    await store.saveCursor('a', { ackedSeq: a4, ackedAt: 2 }, false);
    clock.advance(7 * DAY);
    expect(await pruner.runOnce()).toEqual({ a: 2 });
    expect(await store.prunedUpTo('a')).toBe(a4);
    expect(await pruner.runOnce()).toEqual({});
    expect((await store.peerFigures('a')).queued).toBe(0);
  });

  it.skipIf(dialect !== 'postgres')(
    'one cloud node prunes at a time: while another holds the prune lock, nothing is deleted',
    async () => {
      const clock = new ManualClock(Date.UTC(2026, 0, 31));
      const deps = { db, clock, log: silentLogger(), config: config() };
      const store = storeOf();
      const a1 = await log('a', { id: '1' }, clock.now() - 10 * DAY);
      await store.saveCursor('a', { ackedSeq: a1, ackedAt: 1 }, false);
      const other = new pg.Client({ connectionString: postgres!.url });
      await other.connect();
      try {
        // Another node in the middle of a pruning step.
        await other.query('BEGIN');
        await other.query(`SELECT pg_advisory_xact_lock(${PRUNE_LOCK_KEY})`);
        expect(await new LogPruner(deps).runOnce()).toEqual({});
        expect(await query(db, 'SELECT seq FROM change_log')).toHaveLength(1);
        await other.query('COMMIT');
        expect(await new LogPruner(deps).runOnce()).toEqual({ a: 1 });
      } finally {
        await other.end();
      }
    },
  );
});
