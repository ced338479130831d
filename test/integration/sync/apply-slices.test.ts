import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteDatabase } from '../../../shared/db/database.js';
import { ChangeApplier } from '../../../shared/sync/applier.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import { ExclusiveChangeApplier } from '../../../shared/sync/sync-applier.js';
import { Client } from '../../helpers/http.js';
import type { TestApp } from '../../helpers/test-app.js';
import { checkIn, type MasterData, OTHER_SITE, SITE, total } from './apply-fixture.js';
import { CloudAndEdge, registerSiteAt } from './cloud-apply-fixture.js';

/**
 * A SQLite cloud applies a long backlog in slices (docs/sync.md "Apply, ack, resume";
 * shared/sync/apply-slices.ts): each slice one transaction with the site's cursor at its last row,
 * others served between slices, the ack after the whole group. Slices of 64 rows here (the
 * default ends them by time), so the backlogs below take dozens of slices whatever the machine.
 */
describe('a SQLite cloud applying a backlog in slices', () => {
  let p: CloudAndEdge;
  let m: MasterData;
  let gateId: string;
  let driver: Client;
  let cloud: TestApp<SqliteDatabase>;
  let applier: ExclusiveChangeApplier;

  beforeAll(async () => {
    p = await CloudAndEdge.start('sqlite');
    cloud = p.cloud as TestApp<SqliteDatabase>;
    await registerSiteAt(p.cloud.db, OTHER_SITE, p.clock.now());
    ({ m, gateId } = await p.linked());
    const login = await new Client(p.edge.url).post('/api/auth/driver-login', {
      driverCode: 'J01',
      pin: '2468',
    });
    expect(login.status, login.text).toBe(200);
    driver = new Client(p.edge.url, login.body.token);
    const session = await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId });
    expect(session.status, session.text).toBe(201);
    expect(total(await p.up()).deadLetters).toBe(0);
    applier = new ExclusiveChangeApplier(cloud.core, new ChangeApplier(cloud.core, { slice: { rows: 64 } }));
  });
  afterAll(async () => {
    await p?.close();
  });

  /** `n` location pings at the edge, with a check-in (a new trailer, forwarded to the other site) after every 500. */
  async function backlog(n: number, tag: string): Promise<Batch[]> {
    p.clock.advance(n * 1000 + 60_000);
    for (let i = 0; i < n; i += 500) {
      const points = Array.from({ length: Math.min(500, n - i) }, (_, k) => ({
        at: new Date(p.clock.now() - (n - i - k) * 1000).toISOString(),
        lat: 32.7 + (i + k) / 100_000,
        lon: -96.8,
      }));
      const res = await driver.post('/api/yard-task/driver/session/locations', { points });
      expect(res.status, res.text).toBeLessThan(300);
      await checkIn(p.edgeApi, m, gateId, `${tag}-${i}`, `${tag}X${i}`);
    }
    return p.upBatches();
  }

  const edgeCount = (sql: string) =>
    Number((p.edge as TestApp<SqliteDatabase>).db.sqlite.prepare(sql).pluck().get());
  const cloudCount = (sql: string, ...args: unknown[]) =>
    Number(
      cloud.db.sqlite
        .prepare(sql)
        .pluck()
        .get(...args),
    );
  const position = () =>
    cloudCount('SELECT coalesce(max(applied_remote_seq), 0) FROM sync_cursor WHERE peer = ?', SITE);
  const rowsOf = (batches: Batch[]) => batches.flatMap((b) => b.rows);

  it('a request sent while a long backlog applies is answered before the apply ends', async () => {
    const batches = await backlog(3000, 'RQ');
    const last = batches.at(-1)!.to;
    const start = position();
    let drained = false;
    const drain = applier.applyMany(SITE, batches).then((outcomes) => {
      drained = true;
      return outcomes;
    });
    // Sent once the apply has started: an answer needs the connection (Kysely) and the event loop.
    const answer = await p.cloudApi.get('/api/yard');
    const answeredMidway = !drained;
    const positionAtAnswer = position();

    const outcomes = await drain;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.items ?? answer.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: m.yardId })]),
    );
    expect(answeredMidway).toBe(true);
    // The answer came between slices: some of the backlog was committed, not all of it.
    expect(positionAtAnswer).toBeGreaterThan(start);
    expect(positionAtAnswer).toBeLessThan(last);
    // And the whole backlog applied once, acknowledged at its end.
    expect(outcomes.at(-1)!.upTo).toBe(last);
    expect(total(outcomes)).toMatchObject({ applied: rowsOf(batches).length, deadLetters: 0 });
    expect(cloudCount('SELECT count(*) FROM session_location')).toBe(
      edgeCount('SELECT count(*) FROM session_location'),
    );
  });

  it('an error between slices keeps the slices applied; the resent batches apply the rest once', async () => {
    const batches = await backlog(2000, 'ER');
    const rows = rowsOf(batches);
    const pings = rows.filter((r) => r.entity === 'session_location');
    const start = position();
    const pingsBefore = cloudCount('SELECT count(*) FROM session_location');
    // The disk fails inside the 1,000th ping insert (an I/O error: the database's fault, not the row's).
    let inserts = 0;
    cloud.db.sqlite.function('slices_test_hook', () => {
      inserts += 1;
      if (inserts === 1000) throw new Database.SqliteError('disk I/O error', 'SQLITE_IOERR');
      return null;
    });
    cloud.db.sqlite.exec(
      'CREATE TEMP TRIGGER slices_test_hook AFTER INSERT ON main.session_location BEGIN SELECT slices_test_hook(); END',
    );
    try {
      await expect(applier.applyMany(SITE, batches)).rejects.toThrow('disk I/O error');
    } finally {
      cloud.db.sqlite.exec('DROP TRIGGER temp.slices_test_hook');
    }

    // The slices before the failing one stayed, with the cursor at their last row: exactly the
    // pings up to it are stored, and the trailers checked in before it were forwarded once.
    const kept = position();
    expect(kept).toBeGreaterThan(start);
    expect(kept).toBeLessThan(batches.at(-1)!.to);
    expect(cloudCount('SELECT count(*) FROM session_location') - pingsBefore).toBe(
      pings.filter((r) => r.seq <= kept).length,
    );
    expect(cloudCount('SELECT count(*) FROM session_location') - pingsBefore).toBeLessThan(1000);
    expect(cloudCount('SELECT count(*) FROM dead_letter')).toBe(0);

    // No ack came: the site sends the same batches again. What was kept counts as duplicates.
    const outcomes = await applier.applyMany(SITE, batches);
    expect(outcomes.at(-1)!.upTo).toBe(batches.at(-1)!.to);
    const t = total(outcomes);
    expect(t.duplicates).toBe(rows.filter((r) => r.seq <= kept).length);
    expect(t.applied).toBe(rows.filter((r) => r.seq > kept).length);
    expect(t.deadLetters).toBe(0);
    expect(cloudCount('SELECT count(*) FROM session_location') - pingsBefore).toBe(pings.length);
    // Each trailer of the backlog went to the other site, and no version of a row went twice.
    const trailers = rows.filter((r) => r.entity === 'trailer').map((r) => r.id);
    expect(trailers.length).toBeGreaterThanOrEqual(4);
    for (const id of trailers)
      expect(
        cloudCount(
          "SELECT count(*) FROM change_log WHERE peer = ? AND entity = 'trailer' AND entity_id = ?",
          OTHER_SITE,
          id,
        ),
      ).toBeGreaterThan(0);
    expect(
      cloudCount(
        'SELECT count(*) FROM (SELECT 1 FROM change_log WHERE peer = ? GROUP BY entity, entity_id, hlc HAVING count(*) > 1)',
        OTHER_SITE,
      ),
    ).toBe(0);
  });

  it('a row that waits for a later row of its batch in a later slice still applies (no dead letter)', async () => {
    const batches = await backlog(300, 'FK');
    // The check-in's movement moved to the front of the batch: it names a trailer and a truck that
    // come after 300 pings, several slices later.
    const all = rowsOf(batches);
    const movement = all.find((r) => r.entity === 'movement')!;
    const seqs = all.map((r) => r.seq);
    const reordered = [movement, ...all.filter((r) => r !== movement)].map((r, i) => ({
      ...r,
      seq: seqs[i]!,
    }));
    const batch: Batch = { ...batches[0]!, to: batches.at(-1)!.to, rows: reordered };
    const letters = cloudCount('SELECT count(*) FROM dead_letter');

    const [outcome] = await applier.applyMany(SITE, [batch]);
    expect(outcome).toMatchObject({ deadLetters: 0, applied: reordered.length, upTo: batch.to });
    expect(cloudCount('SELECT count(*) FROM dead_letter')).toBe(letters);
    expect(cloudCount('SELECT count(*) FROM movement WHERE id = ?', movement.id)).toBe(1);
  });
});
