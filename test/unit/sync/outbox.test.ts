import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { loadConfig } from '../../../shared/config.js';
import type { Core } from '../../../shared/core.js';
import { openDatabase, type SqliteDatabase } from '../../../shared/db/database.js';
import { silentLogger } from '../../../shared/log.js';
import { format } from '../../../shared/sync/hlc.js';
import { Batch, decode } from '../../../shared/sync/protocol.js';
import { LogPruner, prunedUpTo } from '../../../shared/sync/prune.js';
import { Outbox, PeerCounts, SendCursors, StreamId } from '../../helpers/send-sync.js';

let dir: string;
let db: SqliteDatabase;
const DAY = 24 * 60 * 60_000;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'yard-outbox-'));
  db = openDatabase(join(dir, 'y.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Appends a change_log row; returns its seq. */
function log(peer: string, data: Record<string, unknown>, ms = 1_700_000_000_000): number {
  const { lastInsertRowid } = db.sqlite
    .prepare(
      "INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES (?, 'carrier', ?, 'upsert', ?, 'cloud', 4, ?)",
    )
    .run(peer, String(data.id), format(ms, 0, 'cloud'), JSON.stringify(data));
  return Number(lastInsertRowid);
}

const outboxOf = (limits = { batchRows: 500, batchBytes: 262_144 }) =>
  new Outbox(db.sqlite, limits, new StreamId(db.sqlite));

describe('outbox', () => {
  it('batches name the seq range they cover and hold only the peer’s rows, in order', () => {
    const seqs: Record<string, number[]> = { a: [], b: [] };
    for (let i = 0; i < 7; i++) {
      const peer = i % 3 === 0 ? 'b' : 'a';
      seqs[peer]!.push(log(peer, { id: `c${i}`, name: `Carrier "${i}" é` }));
    }
    const outbox = outboxOf({ batchRows: 2, batchBytes: 262_144 });
    const batches = [];
    for (let from = 1; ; ) {
      const batch = outbox.read('a', 'site-a', from);
      if (!batch) break;
      const parsed = decode(Batch, batch.json);
      expect(parsed, batch.json).toBeDefined();
      expect(parsed).toMatchObject({ v: 1, site: 'site-a', from, to: batch.to, schemaV: 4 });
      expect(parsed!.stream).toBe(new StreamId(db.sqlite).current());
      batches.push(parsed!);
      from = batch.to + 1;
    }
    expect(batches.map((b) => b.rows.length)).toEqual([2, 2]);
    expect(batches.flatMap((b) => b.rows.map((r) => r.seq))).toEqual(seqs.a!);
    expect(batches[0]!.from).toBe(1);
    expect(batches[1]!.from).toBe(batches[0]!.to + 1);
    // The stored JSON travels as it is.
    expect(batches[0]!.rows[0]!.data).toEqual({ id: 'c1', name: 'Carrier "1" é' });
    // Queue depths follow the acknowledged position (counted by migration 0011's triggers).
    const counts = new PeerCounts(db.sqlite);
    expect(counts.of('a').queued).toBe(4);
    new SendCursors(db.sqlite).save('a', seqs.a![1]!, null, false);
    expect(counts.of('a').queued).toBe(2);
    expect(counts.of('b').queued).toBe(3);
  });

  it('keeps a batch under batchBytes; a row larger than that travels alone', () => {
    for (let i = 0; i < 20; i++) log('a', { id: `c${i}`, note: 'x'.repeat(300) });
    const big = log('a', { id: 'big', note: 'y'.repeat(5_000) });
    log('a', { id: 'after' });
    const outbox = outboxOf({ batchRows: 500, batchBytes: 2_048 });
    const sizes: number[] = [];
    let from = 1;
    let alone: Batch | undefined;
    for (;;) {
      const batch = outbox.read('a', 'site-a', from);
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

  it('a probe is an empty batch from..from-1; topSeq survives deleted rows', () => {
    const probe = decode(Batch, outboxOf().probe('site-a', 5));
    expect(probe).toMatchObject({ from: 5, to: 4, rows: [] });
    const last = log('a', { id: 'x' });
    db.sqlite.prepare('DELETE FROM change_log').run();
    expect(outboxOf().topSeq()).toBe(last);
  });

  it('rotating the stream id resets every acknowledged position', () => {
    const cursors = new SendCursors(db.sqlite);
    cursors.save('a', 10, 1, false);
    cursors.save('a', 7, 2, false); // a late, lower ack does not move the position back
    expect(cursors.get('a')).toEqual({ ackedSeq: 10, ackedAt: 2 });
    cursors.save('a', 7, 3, true);
    expect(cursors.get('a')?.ackedSeq).toBe(7);
    const stream = new StreamId(db.sqlite);
    const before = stream.current();
    const after = stream.rotate();
    expect(after).not.toBe(before);
    expect(new StreamId(db.sqlite).current()).toBe(after);
    expect(cursors.get('a')).toEqual({ ackedSeq: 0, ackedAt: null });
  });
});

describe('change-log pruning', () => {
  it('deletes acknowledged rows older than the retention, records the pruned seq, keeps the rest', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 31));
    const core = {
      db,
      kysely: db.kysely,
      clock,
      log: silentLogger(),
      config: loadConfig({ YARD_DATA_DIR: dir, YARD_SYNC_RETENTION_DAYS: '7' }),
    } as unknown as Core;
    const old = clock.now() - 10 * DAY;
    const a1 = log('a', { id: '1' }, old);
    const a2 = log('a', { id: '2' }, old);
    const b1 = log('b', { id: '3' }, old);
    const a3 = log('a', { id: '4' }, old); // old but not acknowledged
    const a4 = log('a', { id: '5' }, clock.now() - DAY); // acknowledged but recent
    new SendCursors(db.sqlite).save('a', a2, 1, false);
    expect(a3).toBeGreaterThan(b1);
    const pruner = new LogPruner(core);
    expect(await pruner.runOnce()).toEqual({ a: 2 });
    const left = db.sqlite.prepare('SELECT seq FROM change_log ORDER BY seq').pluck().all();
    expect(left).toEqual([b1, a3, a4]);
    expect(prunedUpTo(db.sqlite, 'a')).toBe(a2);
    expect(prunedUpTo(db.sqlite, 'b')).toBe(0);
    expect(a1).toBeLessThan(a2);
    // Acknowledged later, and old enough: pruned on the next run; the recorded seq only grows.
    new SendCursors(db.sqlite).save('a', a4, 2, false);
    clock.advance(7 * DAY);
    expect(await pruner.runOnce()).toEqual({ a: 2 });
    expect(prunedUpTo(db.sqlite, 'a')).toBe(a4);
    expect(await pruner.runOnce()).toEqual({});
  });
});
