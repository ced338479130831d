import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../shared/app.js';
import { ManualClock } from '../../../shared/clock.js';
import { type AppDatabase, openDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { STALE_CLAIM_MS } from '../../../shared/modules/billing/schedule.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  type BillingWorld,
  closeBillingWorld,
  seedFebruary,
  startBillingWorld,
  YARD_RATES,
} from './fixture.js';

/**
 * Automatic drafts (billing.autoDraftDay): off by default; from the day in each yard's zone, the
 * previous period's drafts once, however many ticks and nodes; a yard waiting for its site retried.
 */
describe.each(TEST_DIALECTS)('automatic drafts (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  let w: BillingWorld;
  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    await seedFebruary(w);
  });
  afterAll(() => closeBillingWorld(w));

  const invoices = () =>
    query(w.t.db, 'SELECT number, carrier_id, period, status FROM invoice ORDER BY number');
  const autoDrafts = () => w.t.services.billing.autoDrafts!;

  it('is off by default: a tick in March generates nothing', async () => {
    expect((await w.admin.get('/api/settings/billing.autoDraftDay')).body).toMatchObject({
      value: 0,
      isDefault: true,
    });
    clock.set('2026-03-05T12:00:00Z');
    expect(await autoDrafts().tick()).toEqual([]);
    expect(await invoices()).toEqual([]);
    expect(await query(w.t.db, 'SELECT * FROM billing_auto_run')).toEqual([]);
  });

  it('before the day nothing runs; on the day the drafts of February are generated once', async () => {
    const set = await w.admin.put('/api/settings', { settings: { 'billing.autoDraftDay': 3 } });
    expect(set.status, set.text).toBe(200);
    clock.set('2026-03-02T23:59:00Z');
    expect(await autoDrafts().tick()).toEqual([]);
    expect(await invoices()).toEqual([]);

    clock.set('2026-03-03T00:10:00Z');
    const runs = await autoDrafts().tick();
    expect(runs).toEqual([{ yardId: w.yardId, period: '2026-02', created: 2, skipped: 0, waiting: false }]);
    const drafts = await invoices();
    expect(drafts.map((i) => [i.carrier_id, i.period, i.status]).sort()).toEqual(
      [
        [w.noScac, '2026-02', 'draft'],
        [w.prairie, '2026-02', 'draft'],
      ].sort(),
    );
    const [run] = await query(
      w.t.db,
      'SELECT yard_id, period, done, finished_at, result FROM billing_auto_run',
    );
    expect(run).toMatchObject({ yard_id: w.yardId, period: '2026-02', done: 1 });
    expect(JSON.parse(run.result as string)).toMatchObject({ created: 2, waiting: false });
  });

  it('a later tick, and a second app on the same database file, generate nothing more', async () => {
    const before = await invoices();
    clock.set('2026-03-03T01:10:00Z');
    expect(await autoDrafts().tick()).toEqual([]);

    // A second node: its own app (claims' owner) on the same database; on SQLite with its own
    // connection to the file, on PostgreSQL through connections of its own from the pool.
    const db2: AppDatabase = w.t.db.dialect === 'sqlite' ? openDatabase(join(w.t.dir, 'yard.db')) : w.t.db;
    try {
      const second = createApp({
        db: db2,
        config: w.t.core.config,
        gates: w.t.core.gates,
        cameras: w.t.core.cameras,
        clock,
      });
      expect(await second.services.billing.autoDrafts!.tick()).toEqual([]);
      clock.set('2026-03-20T09:00:00Z');
      expect(await second.services.billing.autoDrafts!.tick()).toEqual([]);
    } finally {
      if (db2 !== w.t.db) await db2.close();
    }
    expect(await invoices()).toEqual(before);
    expect((await query(w.t.db, 'SELECT count(*) AS n FROM billing_auto_run'))[0].n).toBe(1);
  });

  it('a draft deleted by a clerk after the run is not brought back by the timer', async () => {
    const [draft] = await query(w.t.db, 'SELECT id FROM invoice WHERE carrier_id = ?', w.noScac);
    expect((await w.admin.delete(`/api/billing/invoice/${draft.id}`)).status).toBe(204);
    clock.set('2026-03-21T09:00:00Z');
    expect(await autoDrafts().tick()).toEqual([]);
    expect((await query(w.t.db, 'SELECT count(*) AS n FROM invoice'))[0].n).toBe(1);
  });
  it('a claim another node holds is left alone, and retaken once it is stale (that node stopped)', async () => {
    clock.set('2026-04-05T10:00:00Z');
    await query(
      w.t.db,
      "INSERT INTO billing_auto_run (yard_id, period, owner, started_at) VALUES (?, '2026-03', 'other-node', ?)",
      w.yardId,
      clock.now() - 10 * 60_000,
    );
    expect(await autoDrafts().tick()).toEqual([]);
    expect((await query(w.t.db, "SELECT count(*) AS n FROM invoice WHERE period = '2026-03'"))[0].n).toBe(0);
    clock.advance(STALE_CLAIM_MS);
    expect(await autoDrafts().tick()).toEqual([
      { yardId: w.yardId, period: '2026-03', created: 1, skipped: 0, waiting: false },
    ]);
    const retaken = await query(w.t.db, "SELECT owner, done FROM billing_auto_run WHERE period = '2026-03'");
    expect(retaken).toEqual([{ owner: expect.not.stringMatching(/^other-node$/), done: 1 }]);
  });
  it('started with the app, it first checks after five minutes, then hourly', async () => {
    clock.set('2026-05-04T10:00:00Z');
    const count = async (period: string) =>
      (await query(w.t.db, 'SELECT count(*) AS n FROM invoice WHERE period = ?', period))[0].n;
    const settle = async () => {
      for (let i = 0; i < 100; i++) await new Promise((r) => setImmediate(r));
    };
    // The timers are fake, the database's I/O is not: turn the event loop until the period's run has
    // finished (PostgreSQL answers over a socket; a tick while one runs would share it), for at most
    // a few seconds of real time.
    const finished = async (period: string) =>
      (await query(w.t.db, 'SELECT done FROM billing_auto_run WHERE period = ?', period))[0]?.done === 1;
    const settleUntilFinished = async (period: string) => {
      const deadline = Date.now() + 5_000;
      while (!(await finished(period)) && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    };
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    try {
      autoDrafts().start();
      vi.advanceTimersByTime(4 * 60_000);
      await settle();
      expect(await count('2026-04')).toBe(0);
      vi.advanceTimersByTime(60_000);
      await settleUntilFinished('2026-04');
      expect(await count('2026-04')).toBe(1); // Prairie's minimum
      // A yard's next period is checked by the hourly timer.
      clock.set('2026-06-04T10:00:00Z');
      vi.advanceTimersByTime(60 * 60_000);
      await settleUntilFinished('2026-05');
      expect(await count('2026-05')).toBe(1);
      await autoDrafts().stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe.each(TEST_DIALECTS)('automatic drafts at the cloud: a yard waiting for its site (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-04-10T12:00:00Z'));
  let t: TestApp<AppDatabase>;
  let yardId: string;
  let carrierId: string;
  beforeAll(async () => {
    t = await startTestApp({ clock, dialect, env: { YARD_ROLE: 'cloud' } });
    const admin = new Client(t.url, t.adminToken);
    expect((await admin.put('/api/settings', { settings: { 'billing.autoDraftDay': 1 } })).status).toBe(200);
    const seeded = seedRows(t);
    yardId = await seeded.yard('W1', { timeZone: 'Europe/Berlin', siteId: 'site-w' });
    carrierId = await seeded.carrier('Westfalen Cargo', { scac: 'WFCG' });
    const now = clock.now();
    await t.core.kysely
      .insertInto('billingYardConfig')
      .values({
        yardId,
        currency: 'EUR',
        taxRateBp: 1900,
        graceMinutes: 0,
        ...YARD_RATES,
        issuerName: 'W1',
        issuerAddress: null,
        issuerTaxId: null,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    // The site's state as the cloud records it from the site's retained status topic: offline.
    await query(
      t.db,
      "INSERT INTO site (id, name, mqtt_password_hash, created_at, link_state, reported_queued) VALUES ('site-w', 'West', 'x', ?, 'offline', 0)",
      now,
    );
    // A visit of March as it arrives from the site by sync (movement and derived visit rows).
    const inId = newId();
    const outId = newId();
    const at = (iso: string) => Date.parse(iso);
    for (const [id, direction, when] of [
      [inId, 'in', '2026-03-10T08:00:00Z'],
      [outId, 'out', '2026-03-12T08:00:00Z'],
    ] as const) {
      await query(
        t.db,
        'INSERT INTO movement (id, yard_id, direction, at, carrier_id, created_at, hlc) VALUES (?, ?, ?, ?, ?, ?, ?)',
        id,
        yardId,
        direction,
        at(when),
        carrierId,
        at(when),
        'h',
      );
    }
    await query(
      t.db,
      "INSERT INTO visit (id, yard_id, unit_kind, carrier_id, in_movement_id, out_movement_id, in_at, out_at) VALUES (?, ?, 'trailer', ?, ?, ?, ?, ?)",
      newId(),
      yardId,
      carrierId,
      inId,
      outId,
      at('2026-03-10T08:00:00Z'),
      at('2026-03-12T08:00:00Z'),
    );
  });
  afterAll(() => t.close());

  const invoiceCount = async () => (await query(t.db, 'SELECT count(*) AS n FROM invoice'))[0].n;

  it('waits while the site is offline, tick after tick, then generates once it is back in step', async () => {
    const waiting = await t.services.billing.autoDrafts!.tick();
    expect(waiting).toEqual([{ yardId, period: '2026-03', created: 0, skipped: 0, waiting: true }]);
    expect(await invoiceCount()).toBe(0);
    expect(await query(t.db, 'SELECT done FROM billing_auto_run')).toEqual([{ done: 0 }]);

    clock.advance(60 * 60 * 1000);
    expect((await t.services.billing.autoDrafts!.tick())[0]).toMatchObject({ waiting: true });
    expect(await invoiceCount()).toBe(0);

    await query(t.db, "UPDATE site SET link_state = 'online', reported_queued = 0 WHERE id = 'site-w'");
    clock.advance(60 * 60 * 1000);
    expect(await t.services.billing.autoDrafts!.tick()).toEqual([
      { yardId, period: '2026-03', created: 1, skipped: 0, waiting: false },
    ]);
    expect(await query(t.db, 'SELECT carrier_id, period, status FROM invoice')).toEqual([
      { carrier_id: carrierId, period: '2026-03', status: 'draft' },
    ]);
    expect(await query(t.db, 'SELECT done FROM billing_auto_run')).toEqual([{ done: 1 }]);

    clock.advance(60 * 60 * 1000);
    expect(await t.services.billing.autoDrafts!.tick()).toEqual([]);
    expect(await invoiceCount()).toBe(1);
  });
});
