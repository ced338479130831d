import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../shared/app.js';
import { ManualClock } from '../../../shared/clock.js';
import { openDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { STALE_CLAIM_MS } from '../../../shared/modules/billing/schedule.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { type BillingWorld, seedFebruary, startBillingWorld, YARD_RATES } from './fixture.js';

/**
 * Automatic drafts (billing.autoDraftDay): off by default; from the day in each yard's zone, the
 * previous period's drafts once, however many ticks and nodes; a yard waiting for its site retried.
 */
describe('automatic drafts at a standalone edge', () => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  let w: BillingWorld;
  beforeAll(async () => {
    w = await startBillingWorld(clock);
    await seedFebruary(w);
  });
  afterAll(() => w.t.close());

  const invoices = () =>
    rows(w.t.db, 'SELECT number, carrier_id, period, status FROM invoice ORDER BY number');
  const autoDrafts = () => w.t.services.billing.autoDrafts!;

  it('is off by default: a tick in March generates nothing', async () => {
    expect((await w.admin.get('/api/settings/billing.autoDraftDay')).body).toMatchObject({
      value: 0,
      isDefault: true,
    });
    clock.set('2026-03-05T12:00:00Z');
    expect(await autoDrafts().tick()).toEqual([]);
    expect(invoices()).toEqual([]);
    expect(rows(w.t.db, 'SELECT * FROM billing_auto_run')).toEqual([]);
  });

  it('before the day nothing runs; on the day the drafts of February are generated once', async () => {
    const set = await w.admin.put('/api/settings', { settings: { 'billing.autoDraftDay': 3 } });
    expect(set.status, set.text).toBe(200);
    clock.set('2026-03-02T23:59:00Z');
    expect(await autoDrafts().tick()).toEqual([]);
    expect(invoices()).toEqual([]);

    clock.set('2026-03-03T00:10:00Z');
    const runs = await autoDrafts().tick();
    expect(runs).toEqual([{ yardId: w.yardId, period: '2026-02', created: 2, skipped: 0, waiting: false }]);
    const drafts = invoices();
    expect(drafts.map((i) => [i.carrier_id, i.period, i.status]).sort()).toEqual(
      [
        [w.noScac, '2026-02', 'draft'],
        [w.prairie, '2026-02', 'draft'],
      ].sort(),
    );
    const [run] = rows(w.t.db, 'SELECT yard_id, period, done, finished_at, result FROM billing_auto_run');
    expect(run).toMatchObject({ yard_id: w.yardId, period: '2026-02', done: 1 });
    expect(JSON.parse(run.result as string)).toMatchObject({ created: 2, waiting: false });
  });

  it('a later tick, and a second app on the same database file, generate nothing more', async () => {
    const before = invoices();
    clock.set('2026-03-03T01:10:00Z');
    expect(await autoDrafts().tick()).toEqual([]);

    // A second node: its own connection to the same SQLite file, its own app (claims' owner).
    const db2 = openDatabase(join(w.t.dir, 'yard.db'));
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
      db2.close();
    }
    expect(invoices()).toEqual(before);
    expect(rows(w.t.db, 'SELECT count(*) AS n FROM billing_auto_run')[0].n).toBe(1);
  });

  it('a draft deleted by a clerk after the run is not brought back by the timer', async () => {
    const [draft] = rows(w.t.db, 'SELECT id FROM invoice WHERE carrier_id = ?', w.noScac);
    expect((await w.admin.delete(`/api/billing/invoice/${draft.id}`)).status).toBe(204);
    clock.set('2026-03-21T09:00:00Z');
    expect(await autoDrafts().tick()).toEqual([]);
    expect(rows(w.t.db, 'SELECT count(*) AS n FROM invoice')[0].n).toBe(1);
  });
  it('a claim another node holds is left alone, and retaken once it is stale (that node stopped)', async () => {
    clock.set('2026-04-05T10:00:00Z');
    w.t.db.sqlite
      .prepare(
        "INSERT INTO billing_auto_run (yard_id, period, owner, started_at) VALUES (?, '2026-03', 'other-node', ?)",
      )
      .run(w.yardId, clock.now() - 10 * 60_000);
    expect(await autoDrafts().tick()).toEqual([]);
    expect(rows(w.t.db, "SELECT count(*) AS n FROM invoice WHERE period = '2026-03'")[0].n).toBe(0);
    clock.advance(STALE_CLAIM_MS);
    expect(await autoDrafts().tick()).toEqual([
      { yardId: w.yardId, period: '2026-03', created: 1, skipped: 0, waiting: false },
    ]);
    expect(
      rows(
        w.t.db,
        "SELECT owner != 'other-node' AS mine, done FROM billing_auto_run WHERE period = '2026-03'",
      ),
    ).toEqual([{ mine: 1, done: 1 }]);
  });
  it('started with the app, it first checks after five minutes, then hourly', async () => {
    clock.set('2026-05-04T10:00:00Z');
    const april = () => rows(w.t.db, "SELECT count(*) AS n FROM invoice WHERE period = '2026-04'")[0].n;
    const settle = async () => {
      for (let i = 0; i < 100; i++) await new Promise((r) => setImmediate(r));
    };
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    try {
      autoDrafts().start();
      vi.advanceTimersByTime(4 * 60_000);
      await settle();
      expect(april()).toBe(0);
      vi.advanceTimersByTime(60_000);
      await settle();
      expect(april()).toBe(1); // Prairie's minimum
      // A yard's next period is checked by the hourly timer.
      clock.set('2026-06-04T10:00:00Z');
      vi.advanceTimersByTime(60 * 60_000);
      await settle();
      expect(rows(w.t.db, "SELECT count(*) AS n FROM invoice WHERE period = '2026-05'")[0].n).toBe(1);
      await autoDrafts().stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('automatic drafts at the cloud: a yard waiting for its site', () => {
  const clock = new ManualClock(Date.parse('2026-04-10T12:00:00Z'));
  let t: TestApp;
  let yardId: string;
  let carrierId: string;
  beforeAll(async () => {
    t = await startTestApp({ clock, env: { YARD_ROLE: 'cloud' } });
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
    t.db.sqlite
      .prepare(
        "INSERT INTO site (id, name, mqtt_password_hash, created_at, link_state, reported_queued) VALUES ('site-w', 'West', 'x', ?, 'offline', 0)",
      )
      .run(now);
    // A visit of March as it arrives from the site by sync (movement and derived visit rows).
    const inId = newId();
    const outId = newId();
    const at = (iso: string) => Date.parse(iso);
    for (const [id, direction, when] of [
      [inId, 'in', '2026-03-10T08:00:00Z'],
      [outId, 'out', '2026-03-12T08:00:00Z'],
    ] as const) {
      t.db.sqlite
        .prepare(
          'INSERT INTO movement (id, yard_id, direction, at, carrier_id, created_at, hlc) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(id, yardId, direction, at(when), carrierId, at(when), 'h');
    }
    t.db.sqlite
      .prepare(
        "INSERT INTO visit (id, yard_id, unit_kind, carrier_id, in_movement_id, out_movement_id, in_at, out_at) VALUES (?, ?, 'trailer', ?, ?, ?, ?, ?)",
      )
      .run(newId(), yardId, carrierId, inId, outId, at('2026-03-10T08:00:00Z'), at('2026-03-12T08:00:00Z'));
  });
  afterAll(() => t.close());

  const invoiceCount = () => rows(t.db, 'SELECT count(*) AS n FROM invoice')[0].n;

  it('waits while the site is offline, tick after tick, then generates once it is back in step', async () => {
    const waiting = await t.services.billing.autoDrafts!.tick();
    expect(waiting).toEqual([{ yardId, period: '2026-03', created: 0, skipped: 0, waiting: true }]);
    expect(invoiceCount()).toBe(0);
    expect(rows(t.db, 'SELECT done FROM billing_auto_run')).toEqual([{ done: 0 }]);

    clock.advance(60 * 60 * 1000);
    expect((await t.services.billing.autoDrafts!.tick())[0]).toMatchObject({ waiting: true });
    expect(invoiceCount()).toBe(0);

    t.db.sqlite
      .prepare("UPDATE site SET link_state = 'online', reported_queued = 0 WHERE id = 'site-w'")
      .run();
    clock.advance(60 * 60 * 1000);
    expect(await t.services.billing.autoDrafts!.tick()).toEqual([
      { yardId, period: '2026-03', created: 1, skipped: 0, waiting: false },
    ]);
    expect(rows(t.db, 'SELECT carrier_id, period, status FROM invoice')).toEqual([
      { carrier_id: carrierId, period: '2026-03', status: 'draft' },
    ]);
    expect(rows(t.db, 'SELECT done FROM billing_auto_run')).toEqual([{ done: 1 }]);

    clock.advance(60 * 60 * 1000);
    expect(await t.services.billing.autoDrafts!.tick()).toEqual([]);
    expect(invoiceCount()).toBe(1);
  });
});
