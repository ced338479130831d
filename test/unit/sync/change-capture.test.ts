import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { openDatabase, type SqliteDatabase, SyncedWriteRefused } from '../../../shared/db/database.js';
import { ChangeCapture } from '../../../shared/sync/change-capture.js';
import { SYNCED_ENTITIES, toSnake } from '../../../shared/sync/entities.js';
import { Hlc, parseHlc } from '../../../shared/sync/hlc.js';

let dir: string;
let db: SqliteDatabase;
let clock: ManualClock;
let changes: ChangeCapture;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'yard-cc-'));
  db = openDatabase(join(dir, 'y.db'));
  clock = new ManualClock();
  changes = new ChangeCapture(new Hlc(clock, 'site-a'), clock, () => [{ peer: 'cloud', share: 'row' }]);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('change capture', () => {
  it('every synced table exists with hlc and version columns (and field_hlc for shared records)', () => {
    for (const entity of SYNCED_ENTITIES) {
      const columns = (
        db.sqlite.prepare(`PRAGMA table_info(${toSnake(entity.table)})`).all() as { name: string }[]
      ).map((c) => c.name);
      expect(columns, entity.table).toEqual(expect.arrayContaining(['hlc', 'version', toSnake(entity.key)]));
      if (entity.ownership === 'shared') expect(columns, entity.table).toContain('field_hlc');
    }
  });

  it('refuses every write to every synced table that bypasses ChangeCapture', async () => {
    for (const entity of SYNCED_ENTITIES) {
      const table = entity.table as 'carrier';
      await expect(
        db.kysely
          .insertInto(table)
          .values({} as never)
          .execute(),
        `insert ${table}`,
      ).rejects.toBeInstanceOf(SyncedWriteRefused);
      await expect(
        db.kysely
          .updateTable(table)
          .set({ version: 9 } as never)
          .execute(),
        `update ${table}`,
      ).rejects.toBeInstanceOf(SyncedWriteRefused);
      await expect(db.kysely.deleteFrom(table).execute(), `delete ${table}`).rejects.toBeInstanceOf(
        SyncedWriteRefused,
      );
    }
  });

  it('insert, update and delete each write one change_log row in the same transaction, with rising HLCs', async () => {
    const now = clock.now();
    const row = await changes.insert(db.kysely, 'trailer', {
      id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
      carrierId: null,
      number: 'TR-1',
      createdAt: now,
      updatedAt: now,
      plate: null,
      plateRegion: null,
      lengthFt: 53,
      sealNumber: null,
      yardId: null,
      locationId: null,
      arrivedAt: null,
      notes: null,
    });
    expect(row.version).toBe(1);
    const updated = await changes.update(db.kysely, 'trailer', row.id, { lengthFt: 48, number: 'TR-1' });
    expect(updated?.version).toBe(2);
    expect(JSON.parse(updated!.fieldHlc).lengthFt > JSON.parse(updated!.fieldHlc).number).toBe(true);
    await changes.delete(db.kysely, 'trailer', row.id);
    const log = db.sqlite.prepare('SELECT * FROM change_log ORDER BY seq').all() as Array<
      Record<string, string>
    >;
    expect(log.map((l) => l.op)).toEqual(['upsert', 'upsert', 'delete']);
    expect(log.every((l) => l.peer === 'cloud' && l.origin === 'site-a' && l.entity === 'trailer')).toBe(
      true,
    );
    expect(JSON.parse(log[1]!.data!).lengthFt).toBe(48);
    const hlcs = log.map((l) => l.hlc!);
    expect([...hlcs].sort()).toEqual(hlcs);
    expect(parseHlc(hlcs[0]!).origin).toBe('site-a');
  });

  it('insertMany writes every row and one change_log row each, in chunks', async () => {
    const now = clock.now();
    const carriers = Array.from({ length: 250 }, (_, i) => ({
      id: `01936b2e-8f3a-7c4d-9e5f-${String(i).padStart(12, '0')}`,
      name: `Carrier ${i}`,
      scac: null,
      usdot: null,
      status: 'active' as const,
      blockedReason: null,
      contact: null,
      createdAt: now,
      updatedAt: now,
    }));
    await changes.insertMany(db.kysely, 'carrier', carriers);
    expect(db.sqlite.prepare('SELECT count(*) AS n FROM carrier').get()).toEqual({ n: 250 });
    const log = db.sqlite
      .prepare("SELECT entity_id, data, hlc FROM change_log WHERE entity = 'carrier' ORDER BY seq")
      .all() as Array<Record<string, string>>;
    expect(log).toHaveLength(250);
    expect(new Set(log.map((l) => l.hlc)).size).toBe(250);
    const row = db.sqlite.prepare('SELECT * FROM carrier WHERE id = ?').get(log[137]!.entity_id) as Record<
      string,
      unknown
    >;
    expect(JSON.parse(log[137]!.data!)).toMatchObject({
      id: row.id,
      name: row.name,
      hlc: row.hlc,
      version: 1,
    });
  });

  it('a failed transaction leaves neither the row nor its change_log row', async () => {
    const now = clock.now();
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await changes.insert(trx, 'carrier', {
          id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e60',
          name: 'Gone',
          scac: null,
          usdot: null,
          blockedReason: null,
          contact: null,
          createdAt: now,
          updatedAt: now,
        });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(db.sqlite.prepare('SELECT count(*) AS n FROM carrier').get()).toEqual({ n: 0 });
    expect(db.sqlite.prepare('SELECT count(*) AS n FROM change_log').get()).toEqual({ n: 0 });
  });

  it('a stale expected version is refused and writes nothing', async () => {
    const now = clock.now();
    const c = await changes.insert(db.kysely, 'carrier', {
      id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e61',
      name: 'A',
      scac: null,
      usdot: null,
      blockedReason: null,
      contact: null,
      createdAt: now,
      updatedAt: now,
    });
    await expect(
      changes.update(db.kysely, 'carrier', c.id, { name: 'B' }, { expectedVersion: 7 }),
    ).rejects.toMatchObject({
      status: 412,
    });
    expect(db.sqlite.prepare('SELECT name, version FROM carrier').get()).toEqual({ name: 'A', version: 1 });
    expect(db.sqlite.prepare('SELECT count(*) AS n FROM change_log').get()).toEqual({ n: 1 });
  });
});

describe('hybrid logical clock', () => {
  it('is monotonic within a millisecond and advances past received timestamps', () => {
    const c = new ManualClock(1_000);
    const hlc = new Hlc(c, 'edge');
    const a = hlc.next();
    const b = hlc.next();
    expect(a < b).toBe(true);
    hlc.receive('0000000005000-0003-cloud');
    const d = hlc.next();
    expect(parseHlc(d)).toEqual({ ms: 5000, counter: 4, origin: 'edge' });
    expect(hlc.maxSkewMs).toBe(4000);
  });
});
