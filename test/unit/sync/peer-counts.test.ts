import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { loadConfig } from '../../../shared/config.js';
import type { Core } from '../../../shared/core.js';
import { openDatabase, type SqliteDatabase } from '../../../shared/db/database.js';
import { up as migration0011 } from '../../../shared/db/migrations/0011-sync-counts.js';
import { silentLogger } from '../../../shared/log.js';
import { format } from '../../../shared/sync/hlc.js';
import { LogPruner } from '../../../shared/sync/prune.js';
import { countsByRecount } from '../../helpers/peer-counts.js';
import { PeerCounts, SendCursors, StreamId } from '../../helpers/send-sync.js';

let dir: string;
let db: SqliteDatabase;
const DAY = 24 * 60 * 60_000;
const NOW = Date.UTC(2026, 0, 31);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'yard-counts-'));
  db = openDatabase(join(dir, 'y.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function log(peer: string, ms = NOW - 10 * DAY): number {
  const { lastInsertRowid } = db.sqlite
    .prepare(
      "INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES (?, 'carrier', 'c', 'upsert', ?, 'cloud', 4, '{}')",
    )
    .run(peer, format(ms, 0, 'cloud'));
  return Number(lastInsertRowid);
}

function deadLetter(peer: string): number {
  const { lastInsertRowid } = db.sqlite
    .prepare(
      "INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, 1, 'carrier', 'c', '[malformed]', '{}', 0)",
    )
    .run(peer);
  return Number(lastInsertRowid);
}

const counted = () => Object.fromEntries(new PeerCounts(db.sqlite).all());
const recounted = () => countsByRecount(db.sqlite);

describe('queue depths and dead letters per peer (migration 0011 triggers)', () => {
  it('follow writes for peers whose seqs interleave, and acks that move the position either way', () => {
    const seqs: Record<string, number[]> = { a: [], b: [], c: [] };
    for (let i = 0; i < 30; i++) {
      const peer = ['a', 'b', 'c'][i % 3 === 0 ? 0 : i % 5 === 0 ? 2 : 1]!;
      seqs[peer]!.push(log(peer));
    }
    const cursors = new SendCursors(db.sqlite);
    expect(counted()).toEqual(recounted());
    expect(new PeerCounts(db.sqlite).of('a').queued).toBe(seqs.a!.length);

    // The first ack inserts the cursor row; later ones raise it (a late lower one does not move it).
    cursors.save('a', seqs.a![3]!, 1, false);
    expect(new PeerCounts(db.sqlite).of('a').queued).toBe(seqs.a!.length - 4);
    cursors.save('a', seqs.a![6]!, 2, false);
    cursors.save('a', seqs.a![5]!, 3, false);
    expect(new PeerCounts(db.sqlite).of('a').queued).toBe(seqs.a!.length - 7);
    // An ack at a seq of another peer's row counts only this peer's rows up to it.
    cursors.save('b', seqs.c![1]!, 4, false);
    expect(counted()).toEqual(recounted());
    // The peer went back (exact): the rows after its position are queued again.
    cursors.save('a', seqs.a![1]!, 5, true);
    expect(new PeerCounts(db.sqlite).of('a').queued).toBe(seqs.a!.length - 2);
    // Rows written after an ack are queued; an ack of everything empties the queue.
    const more = [log('a'), log('a')];
    expect(new PeerCounts(db.sqlite).of('a').queued).toBe(seqs.a!.length);
    cursors.save('a', more[1]!, 6, false);
    expect(new PeerCounts(db.sqlite).of('a')).toEqual({ queued: 0, deadLetters: 0 });
    expect(counted()).toEqual(recounted());
    expect(new PeerCounts(db.sqlite).of('nobody')).toEqual({ queued: 0, deadLetters: 0 });
  });

  it('pruning acknowledged rows leaves the queue as it was', async () => {
    const clock = new ManualClock(NOW);
    const core = {
      db,
      kysely: db.kysely,
      clock,
      log: silentLogger(),
      config: loadConfig({ YARD_DATA_DIR: dir, YARD_SYNC_RETENTION_DAYS: '7' }),
    } as unknown as Core;
    const a = [log('a'), log('b'), log('a'), log('a'), log('a', NOW - DAY), log('a')];
    new SendCursors(db.sqlite).save('a', a[4]!, 1, false);
    const before = counted();
    expect(before.a).toEqual({ queued: 1, deadLetters: 0 });
    expect(await new LogPruner(core).runOnce()).toEqual({ a: 3 });
    expect(counted()).toEqual(before);
    expect(counted()).toEqual(recounted());
    // A position moved back behind pruned rows queues what is left, not what was pruned.
    new SendCursors(db.sqlite).save('a', 0, 2, true);
    expect(new PeerCounts(db.sqlite).of('a').queued).toBe(2);
    expect(counted()).toEqual(recounted());
  });

  it('a stream rotation (every position back to 0) queues every row again', () => {
    for (let i = 0; i < 5; i++) log(i % 2 ? 'a' : 'b');
    const cursors = new SendCursors(db.sqlite);
    cursors.save('a', 1_000, 1, false);
    cursors.save('b', 1_000, 1, false);
    expect(new PeerCounts(db.sqlite).total().queued).toBe(0);
    new StreamId(db.sqlite).rotate();
    expect(new PeerCounts(db.sqlite).total().queued).toBe(5);
    expect(counted()).toEqual(recounted());
  });

  it('counts dead letters per peer as they are written, moved and removed', () => {
    const ids = [deadLetter('a'), deadLetter('a'), deadLetter('b')];
    expect(counted()).toEqual({ a: { queued: 0, deadLetters: 2 }, b: { queued: 0, deadLetters: 1 } });
    db.sqlite.prepare("UPDATE dead_letter SET error = 'again' WHERE id = ?").run(ids[0]);
    db.sqlite.prepare("UPDATE dead_letter SET peer = 'b' WHERE id = ?").run(ids[1]);
    db.sqlite.prepare('DELETE FROM dead_letter WHERE id = ?').run(ids[2]);
    expect(counted()).toEqual(recounted());
    expect(new PeerCounts(db.sqlite).total()).toEqual({ queued: 0, deadLetters: 2 });
  });

  it('the migration fills the counts from the rows already there', () => {
    for (let i = 0; i < 12; i++) log(i % 3 ? 'a' : 'b');
    new SendCursors(db.sqlite).save('a', 5, 1, false);
    new SendCursors(db.sqlite).save('gone', 3, 1, false);
    deadLetter('a');
    deadLetter('c');
    // As a database from before 0011 (its objects dropped), then migrated.
    const triggers = db.sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%sync_peer_count%'")
      .pluck()
      .all() as string[];
    expect(triggers.length).toBeGreaterThanOrEqual(8);
    for (const t of triggers) db.sqlite.exec(`DROP TRIGGER "${t}"`);
    db.sqlite.exec('DROP TABLE sync_peer_count; ALTER TABLE site DROP COLUMN reported_gates;');
    db.sqlite.prepare('DELETE FROM change_log WHERE seq = 2').run();
    db.sqlite.exec(migration0011);
    expect(counted()).toEqual(recounted());
    // a: seqs 2, 3, 5, 6, 8, 9, 11, 12; acknowledged up to 5 (seq 2 deleted since).
    expect(counted().a).toEqual({ queued: 5, deadLetters: 1 });
  });
});
