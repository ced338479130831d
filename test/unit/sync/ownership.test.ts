import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { openDatabase, type SqliteDatabase } from '../../../shared/db/database.js';
import { ConflictError } from '../../../shared/http/errors.js';
import type { SyncMode } from '../../../shared/role-profile.js';
import { ChangeCapture } from '../../../shared/sync/change-capture.js';
import { SYNCED_BY_TABLE, SYNCED_ENTITIES, type SyncedEntity } from '../../../shared/sync/entities.js';
import { Hlc } from '../../../shared/sync/hlc.js';
import { ownerOf, writeGuard } from '../../../shared/sync/ownership.js';

const entity = (table: string) => SYNCED_BY_TABLE.get(table) as SyncedEntity;

describe('writeGuard', () => {
  const cases: Array<[string, Record<string, unknown> | undefined, Record<SyncMode, string | undefined>]> = [
    ['yard', undefined, { standalone: undefined, linked: 'cloud-owned', cloud: undefined }],
    ['appUser', undefined, { standalone: undefined, linked: 'cloud-owned', cloud: undefined }],
    ['gate', undefined, { standalone: undefined, linked: undefined, cloud: 'edge-owned' }],
    ['movement', undefined, { standalone: undefined, linked: undefined, cloud: 'edge-owned' }],
    ['trailer', undefined, { standalone: undefined, linked: undefined, cloud: undefined }],
    ['taskEvent', undefined, { standalone: undefined, linked: undefined, cloud: undefined }],
    ['attachment', undefined, { standalone: undefined, linked: undefined, cloud: undefined }],
    ['camera', { source: 'onvif' }, { standalone: undefined, linked: undefined, cloud: 'edge-owned' }],
    ['camera', { source: 'provider' }, { standalone: undefined, linked: 'cloud-owned', cloud: undefined }],
    ['setting', { scope: 'global' }, { standalone: undefined, linked: 'cloud-owned', cloud: undefined }],
    ['setting', { scope: 'site' }, { standalone: undefined, linked: undefined, cloud: 'edge-owned' }],
  ];
  for (const [table, row, expected] of cases) {
    for (const mode of ['standalone', 'linked', 'cloud'] as const) {
      it(`${mode}: ${table} ${row ? JSON.stringify(row) : ''} -> ${expected[mode] ?? 'allowed'}`, () => {
        const refusal = writeGuard(mode)(entity(table), row);
        expect(refusal?.code).toBe(expected[mode]);
        if (refusal) expect(refusal.status).toBe(409);
      });
    }
  }

  it('every synced entity is writable on exactly the sides its owner says', () => {
    for (const e of SYNCED_ENTITIES) {
      const owner = ownerOf(e, undefined);
      expect(writeGuard('linked')(e, undefined) === undefined, e.entity).toBe(owner !== 'cloud');
      expect(writeGuard('cloud')(e, undefined) === undefined, e.entity).toBe(owner !== 'edge');
    }
  });

  it("the cloud's answer names the site whose edge owns the row, and says what to do", () => {
    const refusal = writeGuard('cloud', (row) => (row.yardId === 'y1' ? 'site-north' : undefined))(
      entity('gate'),
      { yardId: 'y1' },
    );
    expect(refusal?.detail).toContain("site site-north's edge; change it there");
    expect(refusal?.extra).toMatchObject({ owner: 'edge', entity: 'gate', siteId: 'site-north' });
    const edge = writeGuard('linked')(entity('carrier'), undefined);
    expect(edge?.detail).toContain('Change it in the cloud dashboard');
  });
});

describe('ChangeCapture with a guard', () => {
  let dir: string;
  let db: SqliteDatabase;
  let clock: ManualClock;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'yard-own-'));
    db = openDatabase(join(dir, 'y.db'));
    clock = new ManualClock();
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const capture = (mode: SyncMode) =>
    new ChangeCapture(
      new Hlc(clock, 'site-a'),
      clock,
      () => [{ peer: 'cloud', share: 'row' }],
      writeGuard(mode),
    );
  const count = (sql: string) => (db.sqlite.prepare(sql).pluck().get() as number) ?? 0;
  const setting = (scope: 'global' | 'site') => ({
    name: 'x.test',
    value: '1',
    scope,
    updatedBy: null,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });

  it('refuses before writing: no row and no change_log row', async () => {
    const changes = capture('linked');
    await expect(changes.insert(db.kysely, 'setting', setting('global'))).rejects.toMatchObject({
      code: 'cloud-owned',
    });
    expect(count('SELECT count(*) FROM setting')).toBe(0);
    expect(count('SELECT count(*) FROM change_log')).toBe(0);
  });

  it('an update is checked against the stored row and the row as patched (setting scope)', async () => {
    await capture('standalone').insert(db.kysely, 'setting', setting('site'));
    const linked = capture('linked');
    // A site setting may be written at the edge, but not turned into a global one.
    await expect(linked.update(db.kysely, 'setting', 'x.test', { scope: 'global' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await linked.update(db.kysely, 'setting', 'x.test', { value: '2' });
    expect(db.sqlite.prepare('SELECT scope, value FROM setting').get()).toEqual({
      scope: 'site',
      value: '2',
    });
    await expect(capture('cloud').delete(db.kysely, 'setting', 'x.test')).rejects.toMatchObject({
      code: 'edge-owned',
    });
    expect(count('SELECT count(*) FROM setting')).toBe(1);
  });

  it('insertMany is refused as a whole', async () => {
    await expect(
      capture('cloud').insertMany(db.kysely, 'sessionLocation', [
        {
          id: 'l1',
          sessionId: 's1',
          at: 1,
          lat: 0,
          lon: 0,
          accuracyM: null,
          speed: null,
          heading: null,
          createdAt: 1,
        },
      ]),
    ).rejects.toMatchObject({ code: 'edge-owned' });
  });

  it('deleting a shared record writes its tombstone in the same transaction; other deletes do not', async () => {
    const changes = capture('standalone');
    const now = clock.now();
    const trailer = await changes.insert(db.kysely, 'trailer', {
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
    await changes.insert(db.kysely, 'setting', setting('site'));
    await changes.delete(db.kysely, 'trailer', trailer.id);
    await changes.delete(db.kysely, 'setting', 'x.test');
    const tombstones = db.sqlite.prepare('SELECT entity, entity_id, hlc FROM sync_tombstone').all();
    const logged = db.sqlite
      .prepare("SELECT hlc FROM change_log WHERE entity = 'trailer' AND op = 'delete'")
      .pluck()
      .get();
    expect(tombstones).toEqual([{ entity: 'trailer', entity_id: trailer.id, hlc: logged }]);
  });

  it('a rolled-back delete leaves no tombstone', async () => {
    const changes = capture('standalone');
    const now = clock.now();
    const driver = await changes.insert(db.kysely, 'driver', {
      id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e60',
      kind: 'carrier',
      carrierId: null,
      firstName: 'A',
      lastName: 'B',
      phone: null,
      licenseNumber: null,
      licenseRegion: null,
      licenseExpiresOn: null,
      blockedReason: null,
      driverCode: null,
      pinHash: null,
      notes: null,
      createdAt: now,
      updatedAt: now,
    });
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await changes.delete(trx, 'driver', driver.id);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(count('SELECT count(*) FROM sync_tombstone')).toBe(0);
    expect(count('SELECT count(*) FROM driver')).toBe(1);
  });
});
