import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../shared/db/database.js';
import { SqliteWork } from '../../../shared/db/sql-work.js';
import type { RoutingWork } from '../../../shared/sync/routing.js';
import type { RowChange } from '../../../shared/sync/row-change.js';
import { RowRejected } from '../../../shared/sync/row-errors.js';
import { RowSql } from '../../../shared/sync/row-sql.js';
import { SiteTrust } from '../../../shared/sync/site-trust.js';

/**
 * docs/sync.md "Trust": the cloud's check of each row a site sends (site-trust.ts), on a real
 * SQLite database holding site-a's and site-b's records. The sender is site-a throughout.
 */
let dir: string;
let db: SqliteDatabase;
let trust: SiteTrust;
const SITES: Record<string, string> = { 'y-a': 'site-a', 'y-a2': 'site-a', 'y-b': 'site-b' };
const T0 = '1764000000000-0000-cloud';
const A = '1764000000000-0000-site-a';
const B = '1764000000000-0000-site-b';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'yard-trust-'));
  db = openDatabase(join(dir, 'y.db'));
  const routing: RoutingWork = {
    // biome-ignore lint/correctness/useYield: answered from the table above
    *routes() {
      return [];
    },
    // biome-ignore lint/correctness/useYield: as above
    *siteOfYard(yardId) {
      return SITES[yardId];
    },
  };
  trust = new SiteTrust(new RowSql(), routing);
  const run = (sql: string, ...args: unknown[]) => db.sqlite.prepare(sql).run(...args);
  for (const [id, site] of Object.entries(SITES)) {
    run(
      'INSERT INTO yard (id, code, name, time_zone, site_id, created_at, updated_at, hlc) VALUES (?, ?, ?, ?, ?, 1, 1, ?)',
      id,
      id,
      id,
      'UTC',
      site,
      T0,
    );
  }
  run(
    "INSERT INTO gate (id, yard_id, name, direction, created_at, updated_at, hlc) VALUES ('g-b', 'y-b', 'B', 'both', 1, 1, ?)",
    B,
  );
  run(
    "INSERT INTO gate (id, yard_id, name, direction, created_at, updated_at, hlc) VALUES ('g-a', 'y-a', 'A', 'both', 1, 1, ?)",
    A,
  );
  run(
    "INSERT INTO yard_task (id, yard_id, type, created_at, updated_at, hlc) VALUES ('t-b', 'y-b', 'move', 1, 1, ?)",
    B,
  );
  run(
    "INSERT INTO yard_task (id, yard_id, type, created_at, updated_at, hlc) VALUES ('t-a', 'y-a', 'move', 1, 1, ?)",
    A,
  );
  run(
    "INSERT INTO driver (id, kind, first_name, last_name, driver_code, pin_hash, status, blocked_reason, created_at, updated_at, hlc, field_hlc) VALUES ('d1', 'yard', 'Jo', 'J', 'J1', 'scrypt$real', 'blocked', 'badge lost', 1, 1, ?, ?)",
    T0,
    JSON.stringify({ pinHash: '1764000000005-0000-cloud' }),
  );
  run(
    "INSERT INTO trailer (id, number, yard_id, created_at, updated_at, hlc, field_hlc) VALUES ('tr-b', 'TB', 'y-b', 1, 1, ?, '{}')",
    B,
  );
  run(
    "INSERT INTO trailer (id, number, yard_id, created_at, updated_at, hlc, field_hlc) VALUES ('tr-a', 'TA', 'y-a', 1, 1, ?, '{}')",
    A,
  );
  run(
    "INSERT INTO driver_session (id, driver_id, yard_id, started_at, created_at, updated_at, hlc) VALUES ('s-a', 'd1', 'y-a', 1, 1, 1, ?)",
    A,
  );
  run(
    "INSERT INTO driver_session (id, driver_id, yard_id, started_at, created_at, updated_at, hlc) VALUES ('s-b', 'd1', 'y-b', 1, 1, 1, ?)",
    B,
  );
  run(
    "INSERT INTO movement (id, yard_id, direction, at, created_at, hlc) VALUES ('m-a', 'y-a', 'in', 1, 1, ?)",
    A,
  );
  run(
    "INSERT INTO movement (id, yard_id, direction, at, created_at, hlc) VALUES ('m-b', 'y-b', 'in', 1, 1, ?)",
    B,
  );
  run(
    "INSERT INTO push_token (id, driver_id, device_id, platform, token, created_at, updated_at, hlc) VALUES ('p-b', 'd1', 'dev-b', 'web', 'x', 1, 1, ?)",
    B,
  );
  run(
    "INSERT INTO push_token (id, driver_id, device_id, platform, token, created_at, updated_at, hlc) VALUES ('p-a', 'd1', 'dev-a', 'web', 'y', 1, 1, ?)",
    A,
  );
  run(
    "INSERT INTO setting (name, value, scope, created_at, updated_at, hlc) VALUES ('site.thing', '1', 'site', 1, 1, ?)",
    A,
  );
  run(
    "INSERT INTO setting (name, value, scope, created_at, updated_at, hlc) VALUES ('global.thing', '1', 'global', 1, 1, ?)",
    T0,
  );
  run(
    "INSERT INTO integration (id, kind, name, config, created_at, updated_at, hlc) VALUES ('i1', 'x', 'I', '{}', 1, 1, ?)",
    T0,
  );
  run(
    "INSERT INTO camera (id, yard_id, name, source, integration_id, provider_camera_id, created_at, updated_at, hlc) VALUES ('cam-p', 'y-a', 'P', 'provider', 'i1', 'pc1', 1, 1, ?)",
    T0,
  );
});
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const work = new WeakMap<object, SqliteWork>();
function admit(change: Partial<RowChange> & { entity: string; id: string }) {
  const full: RowChange = { op: 'upsert', hlc: A, data: {}, ...change } as RowChange;
  const driver = work.get(db) ?? new SqliteWork(db.sqlite);
  work.set(db, driver);
  return driver.run(trust.admit('site-a', full));
}
function refusal(change: Partial<RowChange> & { entity: string; id: string }): string | undefined {
  try {
    admit(change);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(RowRejected);
    return (err as Error).message;
  }
}
const del = (entity: string, id: string) => ({ entity, id, op: 'delete' as const, data: {} });

describe('cloud-owned records', () => {
  it('are refused from a site, upsert or delete, as sent or as stored', () => {
    expect(refusal({ entity: 'user', id: 'u1', data: { id: 'u1', role: 'admin' } })).toBe(
      '[cloud-owned] user u1 is managed at the cloud; site site-a may not upsert it.',
    );
    expect(
      refusal({ entity: 'setting', id: 'global.thing', data: { name: 'global.thing', scope: 'global' } }),
    ).toMatch(/^\[cloud-owned\] setting global.thing .* may not upsert it\.$/);
    expect(refusal({ entity: 'setting', id: 'x', data: { name: 'x' } })).toMatch(/^\[cloud-owned\]/);
    expect(refusal(del('setting', 'global.thing'))).toBe(
      '[cloud-owned] setting global.thing is managed at the cloud; site site-a may not delete it.',
    );
    // A provider camera sent back as an ONVIF one is still the cloud's (as stored).
    expect(
      refusal({ entity: 'camera', id: 'cam-p', data: { id: 'cam-p', yardId: 'y-a', source: 'onvif' } }),
    ).toMatch(/^\[cloud-owned\] camera cam-p/);
    expect(refusal(del('integration', 'i1'))).toMatch(/^\[cloud-owned\]/);
  });

  it('advise adoption only for what adoption could take', () => {
    expect(refusal({ entity: 'carrier', id: 'c1', data: { id: 'c1', name: 'C' } })).toBe(
      "[cloud-owned] carrier c1 is managed at the cloud; site site-a may not upsert it. If site site-a's edge ran standalone before it was linked, an admin can review it for adoption.",
    );
    expect(refusal({ entity: 'yard', id: 'y-new', data: { siteId: 'site-a' } })).toMatch(
      /review it for adoption/,
    );
    expect(refusal({ entity: 'yard', id: 'y-new', data: { siteId: 'site-b' } })).not.toMatch(/adoption/);
    db.sqlite
      .prepare(
        "INSERT INTO carrier (id, name, created_at, updated_at, hlc) VALUES ('c-stored', 'C', 1, 1, ?)",
      )
      .run(T0);
    expect(refusal(del('carrier', 'c-stored'))).toBe(
      '[cloud-owned] carrier c-stored is managed at the cloud; site site-a may not delete it.',
    );
  });

  it('site settings stay the site’s business: passed on (the rules keep them at their edge)', () => {
    const change = { entity: 'setting', id: 'site.thing', data: { name: 'site.thing', scope: 'site' } };
    expect(admit(change).change).toMatchObject(change);
    expect(admit(del('setting', 'site.thing')).change.op).toBe('delete');
    expect(admit(del('setting', 'never.stored')).change.op).toBe('delete');
  });

  it('an unknown entity is left to the rules', () => {
    const out = admit({ entity: 'nonsense', id: 'n1' });
    expect(out.change.entity).toBe('nonsense');
    expect(out.stored).toBeUndefined();
  });
});

describe('edge-owned records', () => {
  it('only in the site’s own yards, as sent and as stored', () => {
    const own = { entity: 'gate', id: 'g-a', data: { id: 'g-a', yardId: 'y-a2', name: 'A' } };
    const out = admit(own);
    expect(out.change).toMatchObject(own);
    expect(out.stored?.row).toMatchObject({ id: 'g-a', yardId: 'y-a' });
    expect(refusal({ entity: 'gate', id: 'g-new', data: { id: 'g-new', yardId: 'y-b' } })).toBe(
      '[other-site] gate g-new is in yard y-b, not a yard of site site-a',
    );
    // Taking over site-b's gate by sending it with one's own yard.
    expect(refusal({ entity: 'gate', id: 'g-b', data: { id: 'g-b', yardId: 'y-a' } })).toBe(
      '[other-site] gate g-b is in yard y-b, not a yard of site site-a',
    );
    expect(refusal(del('gate', 'g-b'))).toMatch(/^\[other-site\] gate g-b/);
    expect(refusal({ entity: 'gate', id: 'g-x', data: { id: 'g-x' } })).toBe(
      '[other-site] gate g-x is in yard unknown, not a yard of site site-a',
    );
    expect(refusal({ entity: 'movement', id: 'm-b', data: { id: 'm-b', yardId: 'y-a' } })).toMatch(
      /^\[other-site\]/,
    );
    expect(admit(del('gate', 'g-gone')).change.op).toBe('delete');
  });

  it('an ONVIF camera’s password is dropped', () => {
    const out = admit({
      entity: 'camera',
      id: 'cam-o',
      data: { id: 'cam-o', yardId: 'y-a', source: 'onvif', onvifPassword: 'pw', name: 'O' },
    });
    expect(out.change.data).toMatchObject({ onvifPassword: null, name: 'O' });
  });

  it('a push token belongs to the site whose clock stamped the stored one', () => {
    expect(admit({ entity: 'push_token', id: 'p-new', data: { id: 'p-new' } }).change.id).toBe('p-new');
    expect(admit({ entity: 'push_token', id: 'p-a', data: { id: 'p-a' } }).change.id).toBe('p-a');
    expect(refusal({ entity: 'push_token', id: 'p-b', data: { id: 'p-b' } })).toBe(
      '[other-site] push_token p-b belongs to another site',
    );
  });

  it('driver locations are in the yard of their session', () => {
    expect(
      admit({ entity: 'session_location', id: 'sl1', data: { id: 'sl1', sessionId: 's-a' } }).change.id,
    ).toBe('sl1');
    expect(refusal({ entity: 'session_location', id: 'sl2', data: { id: 'sl2', sessionId: 's-b' } })).toMatch(
      /^\[other-site\] session_location sl2 is in yard y-b/,
    );
    expect(refusal({ entity: 'session_location', id: 'sl3', data: { id: 'sl3', sessionId: 7 } })).toMatch(
      /is in yard unknown/,
    );
  });
});

describe('task events and attachments', () => {
  it('a task event in the site’s yard, of a task in that same yard', () => {
    expect(
      admit({ entity: 'task_event', id: 'e1', data: { id: 'e1', yardId: 'y-a', taskId: 't-a' } }).change.id,
    ).toBe('e1');
    expect(
      admit({ entity: 'task_event', id: 'e2', data: { id: 'e2', yardId: 'y-a', taskId: 't-none' } }).change
        .id,
    ).toBe('e2');
    expect(
      refusal({ entity: 'task_event', id: 'e3', data: { id: 'e3', yardId: 'y-b', taskId: 't-b' } }),
    ).toBe('[other-site] task_event e3 is not in a yard of site site-a');
    expect(
      refusal({ entity: 'task_event', id: 'e4', data: { id: 'e4', yardId: 'y-a', taskId: 't-b' } }),
    ).toBe('[other-site] task t-b is in another yard');
  });

  it('an attachment in the yard of what it is attached to; one without a yard, but not its delete', () => {
    const att = (id: string, refType: string, refId: unknown) => ({
      entity: 'attachment',
      id,
      data: { id, refType, refId },
    });
    expect(admit(att('a1', 'yard', 'y-a')).change.id).toBe('a1');
    expect(refusal(att('a2', 'yard', 'y-b'))).toBe(
      '[other-site] attachment a2 is not in a yard of site site-a',
    );
    expect(admit(att('a3', 'movement', 'm-a')).change.id).toBe('a3');
    expect(refusal(att('a4', 'movement', 'm-b'))).toMatch(/^\[other-site\] attachment a4/);
    expect(admit(att('a5', 'driver', 'd1')).change.id).toBe('a5');
    expect(admit(att('a6', 'movement', 'm-none')).change.id).toBe('a6');
    expect(admit(att('a7', 'movement', 42)).change.id).toBe('a7');
    expect(admit({ entity: 'attachment', id: 'a8', data: { id: 'a8' } }).change.id).toBe('a8');
    db.sqlite
      .prepare(
        "INSERT INTO attachment (id, filename, content_type, size, sha256, created_at, hlc, ref_type, ref_id) VALUES ('a9', 'f', 'x', 1, 's', 1, ?, 'driver', 'd1')",
      )
      .run(A);
    expect(refusal(del('attachment', 'a9'))).toBe('[other-site] attachment a9 is not of site site-a');
  });
});

describe('shared records', () => {
  it('yard tasks only in the site’s yards, as sent and as stored', () => {
    expect(admit({ entity: 'yard_task', id: 't-a', data: { id: 't-a', yardId: 'y-a2' } }).change.id).toBe(
      't-a',
    );
    expect(admit({ entity: 'yard_task', id: 't-new', data: { id: 't-new', yardId: 'y-a' } }).change.id).toBe(
      't-new',
    );
    expect(refusal({ entity: 'yard_task', id: 't-new', data: { id: 't-new', yardId: 'y-b' } })).toBe(
      '[other-site] yard task t-new is not in a yard of site site-a',
    );
    // site-b's task re-sent naming site-a's yard: it would move it.
    expect(refusal({ entity: 'yard_task', id: 't-b', data: { id: 't-b', yardId: 'y-a' } })).toBe(
      '[other-site] yard task t-b is not in a yard of site site-a',
    );
  });

  it('deletes: only what the site holds in its yards, never a driver, never an unknown record', () => {
    expect(admit(del('trailer', 'tr-a')).change.op).toBe('delete');
    expect(refusal(del('trailer', 'tr-b'))).toBe(
      '[site-scope] a site may delete a trailer only while it is in one of its yards',
    );
    expect(refusal(del('yard_task', 't-b'))).toMatch(/^\[site-scope\]/);
    expect(refusal(del('driver', 'd1'))).toBe(
      '[site-scope] a site may not delete a driver (drivers are organisation-wide)',
    );
    expect(refusal(del('trailer', 'tr-none'))).toBe('[unknown-record] no trailer tr-none to delete');
  });

  it('a new driver only without a PIN, code or block', () => {
    const driver = {
      id: 'd-new',
      kind: 'yard',
      firstName: 'N',
      lastName: 'N',
      pinHash: null,
      driverCode: null,
      status: 'active',
      blockedReason: null,
    };
    expect(admit({ entity: 'driver', id: 'd-new', data: driver }).change.data).toEqual(driver);
    expect(refusal({ entity: 'driver', id: 'd-new', data: { ...driver, driverCode: 'PLANT' } })).toBe(
      '[cloud-only-field] a site may not set driverCode of a driver',
    );
  });

  it('an existing driver keeps the cloud’s PIN, code and block, with their clocks', () => {
    const later = '1764000099999-0000-site-a';
    const sent = {
      id: 'd1',
      firstName: 'Jo',
      phone: '+1555',
      pinHash: 'scrypt$forged',
      driverCode: 'EVIL',
      status: 'active',
      blockedReason: null,
      fieldHlc: JSON.stringify({ pinHash: later, driverCode: later, phone: later }),
    };
    const { data } = admit({ entity: 'driver', id: 'd1', data: sent }).change;
    expect(data).toMatchObject({
      phone: '+1555',
      pinHash: 'scrypt$real',
      driverCode: 'J1',
      status: 'blocked',
      blockedReason: 'badge lost',
    });
    expect(JSON.parse(String(data.fieldHlc))).toEqual({
      pinHash: '1764000000005-0000-cloud',
      driverCode: T0,
      status: T0,
      blockedReason: T0,
      phone: later,
    });
    expect(
      admit({ entity: 'driver', id: 'd1', data: { id: 'd1', firstName: 'Jo' } }).change.data.fieldHlc,
    ).toBe(
      JSON.stringify({ pinHash: '1764000000005-0000-cloud', driverCode: T0, status: T0, blockedReason: T0 }),
    );
    for (const fieldHlc of ['[1]', '{not json', '7']) {
      expect(refusal({ entity: 'driver', id: 'd1', data: { id: 'd1', fieldHlc } }), fieldHlc).toBe(
        '[malformed] fieldHlc of driver d1 is not a JSON object',
      );
    }
    expect(
      admit({ entity: 'driver', id: 'd1', data: { id: 'd1', fieldHlc: null } }).change.data.pinHash,
    ).toBe('scrypt$real');
  });

  it('units: placed only in the site’s yards; the cloud keeps the placement against a copy naming another site’s yard', () => {
    expect(refusal({ entity: 'trailer', id: 'tr-new', data: { id: 'tr-new', yardId: 'y-b' } })).toBe(
      '[other-site] trailer tr-new placed in a yard of another site',
    );
    expect(admit({ entity: 'trailer', id: 'tr-new', data: { id: 'tr-new', yardId: null } }).change.id).toBe(
      'tr-new',
    );
    expect(admit({ entity: 'trailer', id: 'tr-new', data: { id: 'tr-new', yardId: 'y-a' } }).change.id).toBe(
      'tr-new',
    );
    const copy = {
      id: 'tr-b',
      number: 'TB-2',
      yardId: 'y-b',
      locationId: 'spot-b',
      arrivedAt: 5,
      fieldHlc: '{}',
    };
    const { data } = admit({ entity: 'trailer', id: 'tr-b', data: copy }).change;
    expect(data).toMatchObject({ number: 'TB-2', yardId: 'y-b', locationId: null, arrivedAt: null });
    // Its own unit, or one it moves into its own yard: as sent.
    const mine = { entity: 'trailer', id: 'tr-b', data: { id: 'tr-b', yardId: 'y-a', fieldHlc: '{}' } };
    expect(admit(mine).change).toEqual({ op: 'upsert', hlc: A, ...mine });
    expect(admit({ entity: 'trailer', id: 'tr-a', data: { id: 'tr-a', yardId: null } }).change.data).toEqual({
      id: 'tr-a',
      yardId: null,
    });
  });
});
