import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { openDatabase, type SqliteDatabase } from '../../../shared/db/database.js';
import { SqliteWork } from '../../../shared/db/sql-work.js';
import { ChangeCapture } from '../../../shared/sync/change-capture.js';
import { entityByName } from '../../../shared/sync/entities.js';
import { Hlc } from '../../../shared/sync/hlc.js';
import { mergeShared } from '../../../shared/sync/merge.js';
import { ownerOf, writeGuard } from '../../../shared/sync/ownership.js';
import type { RoutingWork } from '../../../shared/sync/routing.js';
import type { RowChange } from '../../../shared/sync/row-change.js';
import { RowRejected } from '../../../shared/sync/row-errors.js';
import { RowSql } from '../../../shared/sync/row-sql.js';
import { cloudFieldsOf, SITE_FIELDS, sharedWriteRefusal } from '../../../shared/sync/site-rules.js';
import { SiteTrust } from '../../../shared/sync/site-trust.js';
import { SNAPSHOT_ORDER } from '../../../shared/sync/snapshot.js';

/**
 * docs/sync.md "Conflict rules": an appointment is split by field. The cloud books (time, door,
 * load type, carrier, refs, cancel); the yard's site records the arrival fields. A site never
 * creates or deletes one (site-rules.ts), its edge refuses the booking writes (ownership.ts) and the
 * cloud refuses or strips them in what a site sends (site-trust.ts).
 */
const appointment = entityByName('appointment')!;
const ARRIVAL = [
  'arrivedAt',
  'arrival',
  'movementId',
  'dockedAt',
  'completedAt',
  'departedAt',
  'noShowAt',
  'updatedAt',
];
const own = (yardId: unknown) => yardId === 'y-a';

describe('what a site may write to an appointment (site-rules.ts)', () => {
  it('the site’s fields are exactly the arrival fields and updatedAt', () => {
    expect(SITE_FIELDS).toEqual({ appointment: ARRIVAL });
  });

  it('never a new appointment, never a delete, only the arrival fields', () => {
    expect(sharedWriteRefusal(appointment, { id: 'ap1', yardId: 'y-a' }, { op: 'insert' }, own)).toBe(
      'a site may not create an appointment: bookings are made and changed at the cloud',
    );
    expect(sharedWriteRefusal(appointment, { id: 'ap1', yardId: 'y-a' }, { op: 'delete' }, own)).toBe(
      'a site may not delete an appointment: bookings are made and changed at the cloud',
    );
    expect(
      sharedWriteRefusal(appointment, { id: 'ap1' }, { op: 'update', fields: [...ARRIVAL, 'hlc'] }, own),
    ).toBeUndefined();
    for (const field of ['startAt', 'endAt', 'doorId', 'loadTypeId', 'carrierId', 'cancelledAt', 'refs']) {
      expect(
        sharedWriteRefusal(appointment, { id: 'ap1' }, { op: 'update', fields: ['arrivedAt', field] }, own),
      ).toBe(`a site may not change ${field} of an appointment: bookings are made and changed at the cloud`);
    }
  });

  it('every other column is the cloud’s, columns added later included', () => {
    const row = { id: 'ap1', yardId: 'y', startAt: 1, arrivedAt: 2, hlc: 'h', fieldHlc: '{}', version: 1 };
    expect(cloudFieldsOf(appointment, { ...row, gatePassSentAt: 3 })).toEqual([
      'yardId',
      'startAt',
      'gatePassSentAt',
    ]);
    expect(cloudFieldsOf(entityByName('trailer')!, row)).toEqual([]);
  });

  it('the history is written by either side; config and load types are the cloud’s', () => {
    expect(ownerOf(entityByName('appointment_event')!, { id: 'e' })).toBe('both');
    expect(ownerOf(entityByName('scheduling_config')!, { yardId: 'y' })).toBe('cloud');
    expect(ownerOf(entityByName('load_type')!, { id: 'l' })).toBe('cloud');
  });

  it('a snapshot carries the appointment records after the records they name', () => {
    const at = (e: string) => SNAPSHOT_ORDER.indexOf(e as (typeof SNAPSHOT_ORDER)[number]);
    for (const e of ['scheduling_config', 'load_type', 'appointment', 'appointment_event'])
      expect(at(e), e).toBeGreaterThan(-1);
    expect(at('appointment')).toBeGreaterThan(at('load_type'));
    expect(at('appointment')).toBeGreaterThan(at('location'));
    expect(at('appointment')).toBeGreaterThan(at('carrier'));
    expect(at('appointment_event')).toBeGreaterThan(at('appointment'));
  });
});

describe('a linked edge’s write guard (ownership.ts)', () => {
  const guard = writeGuard('linked', undefined, own);
  const stored = { id: 'ap1', yardId: 'y-a', startAt: 1 };

  it('answers booking writes 409 cloud-owned in the words of the yard', () => {
    for (const write of [
      { op: 'insert' as const },
      { op: 'delete' as const },
      { op: 'update' as const, fields: ['startAt', 'endAt', 'updatedAt'] },
      { op: 'update' as const, fields: ['cancelledAt', 'cancelReason'] },
    ]) {
      const refusal = guard(appointment, stored, write);
      expect(refusal?.status, write.op).toBe(409);
      expect(refusal?.code).toBe('cloud-owned');
      expect(refusal?.message).toMatch(/^Appointments are booked in the cloud/);
      expect(refusal?.message).not.toMatch(/startAt|cancelledAt/);
    }
    // An up-front check without the row (before computing availability).
    expect(guard(appointment, undefined, { op: 'insert' })?.code).toBe('cloud-owned');
  });

  it('lets the site record arrivals, docking, departures and no-shows', () => {
    expect(guard(appointment, stored, { op: 'update', fields: ['arrivedAt', 'arrival', 'movementId'] })).toBe(
      undefined,
    );
    expect(guard(appointment, stored, { op: 'update', fields: ['noShowAt', 'updatedAt'] })).toBeUndefined();
    expect(guard(appointment, stored)).toBeUndefined();
    expect(guard(entityByName('appointment_event')!, { id: 'e', yardId: 'y-a' })).toBeUndefined();
  });

  it('config and load types are read-only copies', () => {
    expect(guard(entityByName('load_type')!, { id: 'l' })?.message).toMatch(
      /^Load types are managed in the cloud/,
    );
    expect(guard(entityByName('scheduling_config')!, { yardId: 'y-a' })?.message).toMatch(
      /^Scheduling settings are managed in the cloud/,
    );
  });

  it('the cloud itself may write every field (its own guard refuses nothing of an appointment)', () => {
    const cloud = writeGuard('cloud');
    expect(cloud(appointment, stored, { op: 'update', fields: ['startAt', 'arrivedAt'] })).toBeUndefined();
    expect(cloud(entityByName('appointment_event')!, { id: 'e', yardId: 'y-a' })).toBeUndefined();
  });
});

describe('the cloud’s check of an appointment a site sends (site-trust.ts)', () => {
  const C0 = '1764000000000-0000-cloud';
  const C1 = '1764000005000-0000-cloud';
  const S1 = '1764000009000-0000-site-a';
  let dir: string;
  let db: SqliteDatabase;
  let trust: SiteTrust;
  let stored: Record<string, unknown>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'yard-split-'));
    db = openDatabase(join(dir, 'y.db'));
    const sites: Record<string, string> = { 'y-a': 'site-a', 'y-b': 'site-b' };
    const routing: RoutingWork = {
      // biome-ignore lint/correctness/useYield: answered from the table above
      *routes() {
        return [];
      },
      // biome-ignore lint/correctness/useYield: as above
      *siteOfYard(yardId) {
        return sites[yardId];
      },
    };
    trust = new SiteTrust(new RowSql(), routing);
    const run = (sql: string, ...args: unknown[]) => db.sqlite.prepare(sql).run(...args);
    run("INSERT INTO carrier (id, name, created_at, updated_at, hlc) VALUES ('c1', 'C', 1, 1, ?)", C0);
    for (const [yard, site] of Object.entries(sites)) {
      const tag = yard.slice(-1);
      run(
        'INSERT INTO yard (id, code, name, time_zone, site_id, created_at, updated_at, hlc) VALUES (?, ?, ?, ?, ?, 1, 1, ?)',
        yard,
        yard,
        yard,
        'UTC',
        site,
        C0,
      );
      run(
        "INSERT INTO location (id, yard_id, kind, name, created_at, updated_at, hlc) VALUES (?, ?, 'door', 'Door 1', 1, 1, ?)",
        `door-${tag}`,
        yard,
        C0,
      );
      run(
        "INSERT INTO load_type (id, yard_id, name, direction, duration_minutes, created_at, updated_at, hlc) VALUES (?, ?, 'Live unload', 'inbound', 60, 1, 1, ?)",
        `lt-${tag}`,
        yard,
        C0,
      );
      run(
        `INSERT INTO appointment (id, yard_id, door_id, load_type_id, start_at, end_at, carrier_id, code, created_at, updated_at, hlc, field_hlc)
         VALUES (?, ?, ?, ?, 1000, 2000, 'c1', ?, 1, 1, ?, ?)`,
        `ap-${tag}`,
        yard,
        `door-${tag}`,
        `lt-${tag}`,
        `CODE000${tag}`.toUpperCase(),
        C1,
        JSON.stringify({ startAt: C1, endAt: C1 }),
      );
      run(
        "INSERT INTO appointment_event (id, appointment_id, yard_id, at, kind, created_at, hlc) VALUES (?, ?, ?, 1, 'booked', 1, ?)",
        `ev-${tag}`,
        `ap-${tag}`,
        yard,
        C0,
      );
    }
    stored = db.sqlite.prepare("SELECT * FROM appointment WHERE id = 'ap-a'").get() as Record<
      string,
      unknown
    >;
  });
  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const camel = (row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
    );
  /**
   * The site's copy of ap-a as its edge sends it after a write: every field with its own clock
   * (change-capture.ts pins them), the fields it wrote with its clock.
   */
  const siteCopy = (fields: Record<string, unknown>, clocks: Record<string, string>) => {
    const row = camel(stored);
    const explicit = JSON.parse(String(row.fieldHlc)) as Record<string, string>;
    const pinned = Object.fromEntries(
      Object.keys(row)
        .filter((k) => !['id', 'hlc', 'fieldHlc', 'version'].includes(k))
        .map((k) => [k, explicit[k] ?? String(row.hlc)]),
    );
    return { ...row, ...fields, hlc: S1, version: 2, fieldHlc: JSON.stringify({ ...pinned, ...clocks }) };
  };
  const work = () => new SqliteWork(db.sqlite);
  const admit = (change: Partial<RowChange> & { id: string }) =>
    work().run(
      trust.admit('site-a', {
        entity: 'appointment',
        op: 'upsert',
        hlc: S1,
        data: {},
        ...change,
      } as RowChange),
    );
  const refusal = (change: Partial<RowChange> & { id: string }) => {
    try {
      admit(change);
      return undefined;
    } catch (err) {
      expect(err).toBeInstanceOf(RowRejected);
      return (err as Error).message;
    }
  };

  it('an arrival from the yard’s site applies as sent', () => {
    const data = siteCopy(
      { arrivedAt: 1500, arrival: 'late', movementId: 'm1', updatedAt: 1500 },
      { arrivedAt: S1, arrival: S1, movementId: S1, updatedAt: S1 },
    );
    expect(admit({ id: 'ap-a', data }).change.data).toEqual(data);
  });

  it('a forged booking change is refused whole, naming the rule (also at an equal clock)', () => {
    const moved = siteCopy(
      { startAt: 5000, endAt: 6000, arrivedAt: 1500 },
      { startAt: S1, endAt: S1, arrivedAt: S1 },
    );
    expect(refusal({ id: 'ap-a', data: moved })).toBe(
      '[booking-field] site site-a, appointment ap-a: a site may not change startAt, endAt of an appointment: bookings are made and changed at the cloud',
    );
    // The cloud's own clock for the field: a tie the value order would decide.
    expect(refusal({ id: 'ap-a', data: siteCopy({ startAt: 9999 }, { startAt: C1 }) })).toMatch(
      /^\[booking-field\] .* startAt of an appointment/,
    );
    const cancelled = siteCopy(
      { cancelledAt: 1200, cancelReason: 'x' },
      { cancelledAt: S1, cancelReason: S1 },
    );
    expect(refusal({ id: 'ap-a', data: cancelled })).toMatch(/may not change cancelledAt, cancelReason/);
  });

  it('a stale copy of the booking (older clocks) passes as sent: both sides merge it to the same row', () => {
    const stale = siteCopy(
      { startAt: 500, endAt: 1500, arrivedAt: 1500, arrival: 'on_time' },
      { startAt: C0, endAt: C0, arrivedAt: S1, arrival: S1 },
    );
    expect(admit({ id: 'ap-a', data: stale }).change.data).toEqual(stale);
    const local = camel(stored);
    const fields = Object.keys(local);
    const atCloud = mergeShared(local, stale, fields, 'id', false);
    const atSite = mergeShared(stale, local, fields, 'id', false);
    expect(atCloud.kind).toBe('merged');
    expect(atSite.kind).toBe('merged');
    const row = (atCloud as { row: Record<string, unknown> }).row;
    expect(row).toEqual((atSite as { row: Record<string, unknown> }).row);
    expect(row).toMatchObject({ startAt: 1000, endAt: 2000, arrivedAt: 1500, arrival: 'on_time' });
  });

  it('a cloud field stamped later than the cloud’s on the same value gets the cloud’s stamp back', () => {
    const sent = siteCopy({ arrivedAt: 1600 }, { startAt: S1, doorId: S1, arrivedAt: S1 });
    const { data } = admit({ id: 'ap-a', data: sent }).change;
    expect(JSON.parse(String(data.fieldHlc))).toMatchObject({ startAt: C1, doorId: C1, arrivedAt: S1 });
    expect(data).toMatchObject({ startAt: 1000, arrivedAt: 1600 });
  });

  it('never a new appointment, never a delete, never another site’s', () => {
    const data = { ...siteCopy({}, {}), id: 'ap-new', code: 'NEWCODE1' };
    expect(refusal({ id: 'ap-new', data })).toBe(
      '[site-scope] a site may not create an appointment: bookings are made and changed at the cloud',
    );
    expect(refusal({ id: 'ap-a', op: 'delete', data: {} })).toBe(
      '[site-scope] a site may not delete an appointment: bookings are made and changed at the cloud',
    );
    const other = db.sqlite.prepare("SELECT field_hlc FROM appointment WHERE id = 'ap-b'").pluck().get();
    expect(refusal({ id: 'ap-b', data: { id: 'ap-b', yardId: 'y-b', arrivedAt: 1, fieldHlc: other } })).toBe(
      '[other-site] appointment ap-b is not in a yard of site site-a',
    );
  });

  it('history rows only in the site’s yards, of an appointment of that yard', () => {
    const event = (id: string, yardId: string, appointmentId: string) =>
      work().run(
        trust.admit('site-a', {
          entity: 'appointment_event',
          id,
          op: 'upsert',
          hlc: S1,
          data: { id, yardId, appointmentId, at: 1, kind: 'arrived', createdAt: 1 },
        }),
      );
    expect(event('e1', 'y-a', 'ap-a').change.id).toBe('e1');
    expect(() => event('e2', 'y-b', 'ap-b')).toThrow(
      '[other-site] appointment_event e2 is not in a yard of site site-a',
    );
    expect(() => event('e3', 'y-a', 'ap-b')).toThrow('[other-site] appointment ap-b is in another yard');
  });

  it('the config and load types are the cloud’s', () => {
    expect(() =>
      work().run(
        trust.admit('site-a', {
          entity: 'load_type',
          id: 'lt-a',
          op: 'upsert',
          hlc: S1,
          data: { id: 'lt-a', yardId: 'y-a', name: 'Mine', durationMinutes: 5 },
        }),
      ),
    ).toThrow(/^\[cloud-owned\] load_type lt-a is managed at the cloud/);
    expect(() =>
      work().run(
        trust.admit('site-a', {
          entity: 'scheduling_config',
          id: 'y-a',
          op: 'upsert',
          hlc: S1,
          data: { yardId: 'y-a', enabled: 0 },
        }),
      ),
    ).toThrow(/^\[cloud-owned\] scheduling_config y-a/);
  });
});

describe('field clocks of an appointment (change-capture.ts)', () => {
  it('every field gets its own clock before the row’s moves: a never-set arrival keeps the booking’s clock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'yard-pin-'));
    const db = openDatabase(join(dir, 'y.db'));
    try {
      const clock = new ManualClock(1_764_000_000_000);
      const changes = new ChangeCapture(new Hlc(clock, 'cloud'), clock, () => []);
      const stamps = { createdAt: 1, updatedAt: 1 };
      await changes.insert(db.kysely, 'yard', {
        id: 'y',
        code: 'Y',
        name: 'Y',
        timeZone: 'UTC',
        siteId: 'site-a',
        ...stamps,
      });
      await changes.insert(db.kysely, 'carrier', { id: 'c', name: 'C', ...stamps });
      await changes.insert(db.kysely, 'location', {
        id: 'd',
        yardId: 'y',
        kind: 'door',
        name: 'Door 1',
        ...stamps,
      });
      const lt = { id: 'lt', yardId: 'y', name: 'L', direction: 'inbound' as const, durationMinutes: 60 };
      await changes.insert(db.kysely, 'loadType', { ...lt, ...stamps });
      // A booking written without its arrival fields (they are null by default).
      const booked = await changes.insert(db.kysely, 'appointment', {
        id: 'ap',
        yardId: 'y',
        doorId: 'd',
        loadTypeId: 'lt',
        startAt: 1000,
        endAt: 2000,
        carrierId: 'c',
        code: 'ABCDEFGH',
        ...stamps,
      } as never);
      expect(JSON.parse(booked.fieldHlc)).not.toHaveProperty('arrivedAt');
      clock.advance(60_000);
      const moved = await changes.update(db.kysely, 'appointment', 'ap', { startAt: 1500, endAt: 2500 });
      const clocks = JSON.parse(moved!.fieldHlc) as Record<string, string>;
      // The reschedule's clock only on what it changed (and updatedAt); the rest keep the booking's.
      expect(clocks.startAt).toBe(moved!.hlc);
      expect(clocks.updatedAt).toBe(moved!.hlc);
      for (const f of ['arrivedAt', 'noShowAt', 'cancelledAt', 'doorId'])
        expect(clocks[f], f).toBe(booked.hlc);
      // So a site's arrival stamped between the two wins the arrival over the reschedule's null.
      const merged = mergeShared(
        { ...moved! },
        {
          ...booked,
          arrivedAt: 1200,
          hlc: `${booked.hlc.slice(0, 13)}-0001-site-a`,
          fieldHlc: JSON.stringify({
            ...JSON.parse(booked.fieldHlc),
            arrivedAt: `${String(Number(booked.hlc.slice(0, 13)) + 1)}-0000-site-a`,
          }),
        },
        Object.keys(moved!),
        'id',
        false,
      );
      expect(merged.kind).toBe('merged');
      expect((merged as { row: Record<string, unknown> }).row).toMatchObject({
        arrivedAt: 1200,
        startAt: 1500,
      });
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
