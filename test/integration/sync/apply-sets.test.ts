import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { PostgresWork, SqliteWork, type SqlWork } from '../../../shared/db/sql-work.js';
import { everyYardScope } from '../../../shared/modules/dashboard/rollups/rules.js';
import type { ApplyOutcome } from '../../../shared/sync/applier.js';
import { ApplyWork } from '../../../shared/sync/apply-work.js';
import { exclusive } from '../../../shared/sync/exclusive.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import { publishTouched, Touched } from '../../../shared/sync/touched.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import type { TestApp } from '../../helpers/test-app.js';
import { checkIn, type MasterData, OTHER_SITE, SITE, total } from './apply-fixture.js';
import { CloudAndEdge, registerSiteAt, value } from './cloud-apply-fixture.js';

/**
 * The cloud applies a site's rows in set-based statements (docs/sync.md "Apply, ack, resume"): a run
 * of insert-only rows (a driver's location pings) is read and inserted in one statement each, and
 * rows forwarded to other sites are written in one statement; with exactly the effects of applying
 * them one by one (rows written once, a refused row alone a dead letter, forwarded rows in order and
 * counted per site). Statements are counted by key around the applier's own work (ApplyWork), run
 * in one transaction as the appliers run it.
 */
const MORE_SITES = ['site-c', 'site-d'];

describe.each(TEST_DIALECTS)('set-based apply of a site’s batches (%s)', (dialect) => {
  let p: CloudAndEdge;
  let m: MasterData;
  let gateId: string;
  let driver: Client;

  beforeAll(async () => {
    p = await CloudAndEdge.start(dialect);
    for (const site of [OTHER_SITE, ...MORE_SITES]) await registerSiteAt(p.cloud.db, site, p.clock.now());
    ({ m, gateId } = await p.linked());
    const login = await new Client(p.edge.url).post('/api/auth/driver-login', {
      driverCode: 'J01',
      pin: '2468',
    });
    expect(login.status, login.text).toBe(200);
    driver = new Client(p.edge.url, login.body.token);
    const session = await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId });
    expect(session.status, session.text).toBe(201);
    // The session (and whatever the edge logged before) reaches the cloud first.
    expect(total(await p.up()).deadLetters).toBe(0);
  });
  afterAll(async () => {
    await p?.close();
  });

  /** `n` location pings posted at the edge; their batches. */
  async function pings(n: number): Promise<Batch[]> {
    const points = Array.from({ length: n }, (_, i) => ({
      at: new Date(p.clock.now() - (n - i) * 1000).toISOString(),
      lat: 32.7 + i / 1000,
      lon: -96.8,
    }));
    const res = await driver.post('/api/yard-task/driver/session/locations', { points });
    expect(res.status, res.text).toBeLessThan(300);
    return p.upBatches();
  }

  const pingRows = (batches: Batch[]) =>
    batches.flatMap((b) => b.rows).filter((r) => r.entity === 'session_location');

  it('a run of location pings is read and inserted in one statement each, and written once', async () => {
    const batches = await pings(20);
    const sent = pingRows(batches);
    expect(sent.length).toBe(20);
    // The pings and the session's last position: every row is new to the cloud.
    const rows = batches.reduce((n, b) => n + b.rows.length, 0);

    const { outcomes, keys } = await countedApply(p.cloud, SITE, batches);
    expect(total(outcomes)).toMatchObject({ applied: rows, deadLetters: 0 });
    const ids = sent.map((r) => r.id);
    expect(await countIn(p.cloud.db, 'session_location', ids)).toBe(20);
    // One read of the stored rows (the trust check) and one insert for the run; none per row.
    expect(keys.filter((k) => k.startsWith('select-many|session_location'))).toHaveLength(1);
    expect(keys.filter((k) => k.startsWith('insert-many|session_location'))).toHaveLength(1);
    expect(keys.filter((k) => k === 'select|session_location' || k.startsWith('insert|'))).toEqual([]);

    // The same rows again (the position set back, as after a lost ack): already there, so they
    // change nothing and count as not applied.
    await p.cloudApplier.resetPosition(SITE, batches[0]!.stream, batches[0]!.from - 1);
    const again = await countedApply(p.cloud, SITE, batches);
    expect(total(again.outcomes)).toMatchObject({ applied: 0, deadLetters: 0 });
    expect(await countIn(p.cloud.db, 'session_location', ids)).toBe(20);
  });

  it('a refused ping in a run is a dead letter alone; the rest of the run applies', async () => {
    const batches = await pings(8);
    const sent = pingRows(batches);
    const refused = sent[4]!;
    // Stamped an hour ahead of the cloud's clock: refused by the clock bounds (clock-bounds.ts).
    refused.hlc = `${String(p.clock.now() + 3_600_000).padStart(13, '0')}-0000-${SITE}`;

    const rows = batches.reduce((n, b) => n + b.rows.length, 0);
    const outcomes = await p.cloudApplier.applyMany(SITE, batches);
    expect(total(outcomes)).toMatchObject({ applied: rows - 1, deadLetters: 1 });
    expect(
      await countIn(
        p.cloud.db,
        'session_location',
        sent.map((r) => r.id),
      ),
    ).toBe(7);
    const letters = await query(
      p.cloud.db,
      'SELECT entity, error FROM dead_letter WHERE peer = ? AND entity_id = ?',
      SITE,
      refused.id,
    );
    expect(letters).toEqual([
      { entity: 'session_location', error: expect.stringContaining('[clock-ahead]') },
    ]);
  });

  it('rows forwarded to several sites are written in one statement, in the order applied, each counted', async () => {
    const trailers: string[] = [];
    for (const k of [1, 2, 3])
      trailers.push((await checkIn(p.edgeApi, m, gateId, `FW-${k}`, `FWX${k}`)).trailerId);
    const before = Number(await value(p.cloud.db, 'SELECT coalesce(max(seq), 0) FROM change_log'));
    const counts = await queued(p.cloud.db);

    const { outcomes, keys } = await countedApply(p.cloud, SITE, await p.upBatches());
    expect(total(outcomes).deadLetters).toBe(0);
    expect(keys.filter((k) => k.startsWith('change_log|'))).toEqual(['change_log|forward-many']);

    const others = [OTHER_SITE, ...MORE_SITES].sort();
    const forwarded = (await query(
      p.cloud.db,
      "SELECT peer, entity_id AS id, origin FROM change_log WHERE seq > ? AND entity = 'trailer' ORDER BY seq",
      before,
    )) as Array<{ peer: string; id: string; origin: string }>;
    // Each trailer to every other site, the trailers in the order the site checked them in.
    expect(forwarded.map((f) => f.id)).toEqual(trailers.flatMap((t) => others.map(() => t)));
    for (const t of trailers)
      expect(
        forwarded
          .filter((f) => f.id === t)
          .map((f) => f.peer)
          .sort(),
      ).toEqual(others);
    expect(new Set(forwarded.map((f) => f.origin))).toEqual(new Set([SITE]));
    // The queue counters (migration 0011's triggers) count every forwarded row for its site.
    const after = await queued(p.cloud.db);
    for (const site of others) {
      const logged = Number(
        await value(p.cloud.db, 'SELECT count(*) FROM change_log WHERE seq > ? AND peer = ?', before, site),
      );
      expect(logged).toBeGreaterThanOrEqual(trailers.length);
      expect((after.get(site) ?? 0) - (counts.get(site) ?? 0)).toBe(logged);
    }
  });

  it('the dashboard counters of a batch of movements are added in one statement, summed, and exact', async () => {
    const moved = [];
    for (const k of [1, 2, 3, 4]) moved.push(await checkIn(p.edgeApi, m, gateId, `CT-${k}`, `CTX${k}`));
    const counts = () =>
      query(
        p.cloud.db,
        "SELECT scope LIKE '*%' AS every, grain, sum(n) AS n FROM dashboard_movement_count GROUP BY 1, 2 ORDER BY 1, 2",
      );
    const before = await counts();

    const { outcomes, keys } = await countedApply(p.cloud, SITE, await p.upBatches());
    expect(total(outcomes).deadLetters).toBe(0);
    // No statement per movement and bucket: one addition per counter table for the whole apply
    // (the visits the movements open add their figures as the movements module writes them).
    expect(keys.filter((k) => k === 'rollup|movement|add')).toEqual([]);
    expect(keys.filter((k) => k === 'counter|add|dashboard_movement_count')).toHaveLength(1);
    expect(keys.filter((k) => k === 'counter|add|dashboard_yard_figure')).toHaveLength(1);
    // The trailers' stored rows read together (the trust check), not one read each before the write.
    expect(keys.filter((k) => k === 'select-many|trailer')).toHaveLength(1);
    expect(keys.filter((k) => k === 'select|trailer').length).toBeLessThanOrEqual(moved.length);

    // Each movement counted once in each grain of its yard and of every yard.
    const after = await counts();
    expect(after.map((r, i) => Number(r.n) - Number(before[i]?.n ?? 0))).toEqual(
      after.map(() => moved.length),
    );
    // And the counters equal a recount of the movements (rollups/rebuild.ts counts the same sums).
    const recount = await query(
      p.cloud.db,
      'SELECT count(*) AS n FROM movement WHERE yard_id = ? AND at >= ? AND at < ?',
      m.yardId,
      0,
      Number.MAX_SAFE_INTEGER,
    );
    const hours = await query(
      p.cloud.db,
      "SELECT sum(n) AS n FROM dashboard_movement_count WHERE scope LIKE '*%' AND grain = 3600000",
    );
    const all = await query(p.cloud.db, 'SELECT count(*) AS n FROM movement');
    expect(Number(hours[0]!.n)).toBe(Number(all[0]!.n));
    // Every yard's counts go to the shard of the movements' yard (rollups/rules.ts), not to one row
    // that every site's apply would update.
    const everyYard = await query(
      p.cloud.db,
      "SELECT DISTINCT scope FROM dashboard_movement_count WHERE scope LIKE '*%' AND n <> 0",
    );
    expect(everyYard.map((r) => r.scope)).toEqual([everyYardScope(m.yardId)]);
    expect(everyYardScope(m.yardId)).toMatch(/^\*:([0-9]|1[0-5])$/);
    expect(Number(recount[0]!.n)).toBeGreaterThanOrEqual(moved.length);
  });
});

/**
 * Applies the batches as the appliers do (ApplyWork in one transaction, effects published after
 * commit), recording the key of every statement the work runs.
 */
async function countedApply(
  app: TestApp<AppDatabase>,
  peer: string,
  batches: readonly Batch[],
): Promise<{ outcomes: ApplyOutcome[]; keys: string[] }> {
  const work = new ApplyWork(app.core);
  const keys: string[] = [];
  const touched = new Touched();
  const counted = () => recordKeys(work.applyBatches(peer, batches, touched), keys);
  const db = app.db;
  const outcomes =
    db.dialect === 'sqlite'
      ? await exclusive(app.core, () =>
          db.sqlite.transaction(() => new SqliteWork(db.sqlite).run(counted())).immediate(),
        )
      : await db.kysely.transaction().execute((trx) => new PostgresWork().run(trx, counted()));
  publishTouched(app.core, peer, touched);
  return { outcomes, keys };
}

/** The work as it is, with the key of each statement it yields pushed onto `keys`. */
function* recordKeys<T>(work: SqlWork<T>, keys: string[]): SqlWork<T> {
  let step = work.next();
  while (!step.done) {
    if (step.value.kind === 'sql') keys.push(step.value.statement.key);
    let result: unknown;
    try {
      result = yield step.value;
    } catch (err) {
      step = work.throw(err);
      continue;
    }
    step = work.next(result);
  }
  return step.value;
}

async function countIn(db: AppDatabase, table: string, ids: string[]): Promise<number> {
  const placeholders = ids.map(() => '?').join(', ');
  return Number(await value(db, `SELECT count(*) FROM ${table} WHERE id IN (${placeholders})`, ...ids));
}

/** Each peer's queued rows as the status reads them (sync_peer_count). */
async function queued(db: AppDatabase): Promise<Map<string, number>> {
  const rows = (await query(db, 'SELECT peer, log_rows - acked_rows AS n FROM sync_peer_count')) as Array<{
    peer: string;
    n: unknown;
  }>;
  return new Map(rows.map((r) => [r.peer, Number(r.n)]));
}
