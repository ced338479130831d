import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDatabase } from '../../../shared/db/database.js';
import { openPostgres } from '../../../shared/db/postgres-database.js';
import { PostgresWork } from '../../../shared/db/sql-work.js';
import { rebuildDashboardRollupsPostgres } from '../../../shared/modules/dashboard/rollups/rebuild.js';
import type { ApplyOutcome } from '../../../shared/sync/applier.js';
import { PostgresChangeApplier } from '../../../shared/sync/applier-postgres.js';
import { allPeerFiguresWork } from '../../../shared/sync/peer-counts.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import { countsByRecountOn } from '../../helpers/peer-counts.js';
import { postgresAvailable } from '../../helpers/postgres.js';
import { waitFor } from '../../helpers/wait-for.js';
import { checkIn, type MasterData, OTHER_SITE, SITE } from './apply-fixture.js';
import { CloudAndEdge, registerSiteAt, value } from './cloud-apply-fixture.js';

/**
 * Different sites apply side by side on PostgreSQL, on one node and across two (docs/sync.md "Apply,
 * ack, resume"): one site's apply waiting (here on its cursor row, held by another session) holds
 * up no other site; many batches of two sites applied at once through two nodes all apply, each
 * site's in order, with no deadlock reaching the caller, and the counters the applies share (the
 * dashboard's every-yard counts, the sites' queue counters) equal a recount afterwards.
 */
describe.skipIf(!postgresAvailable())('sites apply side by side (postgres)', () => {
  let p: CloudAndEdge;
  let m: MasterData;
  let gateId: string;
  let otherPool: PostgresDatabase;
  let nodes: [PostgresChangeApplier, PostgresChangeApplier];
  let trailer: Batch['rows'][number];
  let schemaV: number;
  const positions: Record<string, number> = { [OTHER_SITE]: 0 };
  const STREAM = 'site-b-stream';

  beforeAll(async () => {
    p = await CloudAndEdge.start('postgres');
    await registerSiteAt(p.cloud.db, OTHER_SITE, p.clock.now());
    ({ m, gateId } = await p.linked());
    otherPool = openPostgres({ url: p.cloud.postgresUrl!, poolMax: 6, statementTimeoutMs: 0 });
    const core = p.cloud.core;
    nodes = [
      new PostgresChangeApplier({ ...core, db: core.db as PostgresDatabase }, { sitesSideBySide: true }),
      new PostgresChangeApplier({ ...core, db: otherPool }, { sitesSideBySide: true }),
    ];
    // A trailer of SITE that OTHER_SITE edits too (a shared record: both may write it).
    const moved = await checkIn(p.edgeApi, m, gateId, 'TR-SIDE', 'TXSIDE');
    const [batch] = await p.upBatches();
    expect((await nodes[0].apply(SITE, batch!)).deadLetters).toBe(0);
    trailer = batch!.rows.find((r) => r.entity === 'trailer' && r.id === moved.trailerId)!;
    schemaV = batch!.schemaV;
  });
  afterAll(async () => {
    await otherPool?.close();
    await p?.close();
  });

  /** OTHER_SITE's next batch: an edit of the shared trailer's notes, stamped `ms` after the clock. */
  function otherSiteEdit(text: string, ms: number, site = OTHER_SITE): Batch {
    const hlc = `${String(p.clock.now() + ms).padStart(13, '0')}-0000-${site}`;
    const clocks = JSON.parse(String(trailer.data.fieldHlc ?? '{}')) as Record<string, string>;
    const seq = (positions[site] ?? 0) + 1;
    positions[site] = seq;
    const data = { ...trailer.data, notes: text, hlc, fieldHlc: JSON.stringify({ ...clocks, notes: hlc }) };
    return {
      v: 1,
      site,
      stream: STREAM,
      from: seq,
      to: seq,
      schemaV,
      rows: [{ seq, entity: 'trailer', id: trailer.id, op: 'upsert', hlc, data }],
    };
  }

  it('the queue counters of forwarded rows are kept once per statement, in peer order, and exact', async () => {
    // Migration 0024: one statement-level trigger (transition table), not one trigger call per row.
    const triggers = await sql<{
      name: string;
      per_row: boolean;
    }>`SELECT tgname AS name, (tgtype & 1) = 1 AS per_row
      FROM pg_trigger WHERE tgrelid = 'change_log'::regclass AND tgname IN ('change_log_count_insert', 'change_log_commit_signal')
      ORDER BY tgname`.execute(p.cloud.db.kysely);
    expect(triggers.rows).toEqual([
      { name: 'change_log_commit_signal', perRow: false },
      { name: 'change_log_count_insert', perRow: false },
    ]);
    // Rows for several peers in one statement, some of them at or below a peer's acknowledged position.
    await sql`INSERT INTO sync_cursor (peer, acked_seq) VALUES ('peer-x', 1000000000)
      ON CONFLICT (peer) DO UPDATE SET acked_seq = excluded.acked_seq`.execute(p.cloud.db.kysely);
    await sql`INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data)
      SELECT peer, 'trailer', 'T-' || n, 'upsert', '0', 'cloud', 1, '{}'
      FROM (VALUES ('peer-y'), ('peer-x'), ('peer-z')) AS p(peer), generate_series(1, 3) AS n`.execute(
      p.cloud.db.kysely,
    );
    const counts = await sql<Record<string, unknown>>`SELECT peer, log_rows, acked_rows FROM sync_peer_count
      WHERE peer IN ('peer-x', 'peer-y', 'peer-z') ORDER BY peer`.execute(p.cloud.db.kysely);
    expect(counts.rows).toEqual([
      { peer: 'peer-x', logRows: 3, ackedRows: 3 },
      { peer: 'peer-y', logRows: 3, ackedRows: 0 },
      { peer: 'peer-z', logRows: 3, ackedRows: 0 },
    ]);
    const kept = await new PostgresWork().run(p.cloud.db.kysely, allPeerFiguresWork());
    const recount = await countsByRecountOn(p.cloud.db);
    for (const peer of ['peer-x', 'peer-y', 'peer-z']) expect(kept.get(peer), peer).toEqual(recount[peer]);
    await sql`DELETE FROM change_log WHERE peer IN ('peer-x', 'peer-y', 'peer-z')`.execute(p.cloud.db.kysely);
    await sql`DELETE FROM sync_cursor WHERE peer = 'peer-x'`.execute(p.cloud.db.kysely);
  });

  it('a site whose apply waits holds up no other site, on the same node', async () => {
    await checkIn(p.edgeApi, m, gateId, 'TR-WAIT', 'TXWAIT');
    const waiting = await p.upBatches();
    // Another session holds SITE's cursor row: SITE's apply waits for it (as behind another node's).
    const holder = await otherPool.pool.connect();
    let siteApply: Promise<ApplyOutcome[]> | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM sync_cursor WHERE peer = $1 FOR UPDATE', [SITE]);
      siteApply = nodes[0].applyMany(SITE, waiting);
      const edit = otherSiteEdit('edited while the other site waits', 5);
      const other = await Promise.race([
        nodes[0].apply(OTHER_SITE, edit),
        new Promise<'held up'>((resolve) => setTimeout(() => resolve('held up'), 8_000)),
      ]);
      expect(other).toMatchObject({ applied: 1, deadLetters: 0 });
      expect(await value(p.cloud.db, 'SELECT notes FROM trailer WHERE id = ?', trailer.id)).toBe(
        'edited while the other site waits',
      );
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    const outcomes = await siteApply!;
    expect(outcomes.reduce((n, o) => n + o.deadLetters, 0)).toBe(0);
    expect(outcomes.at(-1)!.upTo).toBe(waiting.at(-1)!.to);
  });

  it('a new site’s first apply, waiting for the change log’s order lock, holds no lock that lock’s holder needs', async () => {
    // The deadlock side by side applies of new sites met: the first apply of a site inserted its
    // cursor row, which locks the site's queue counter (sync_peer_count), and then waited for the
    // change log's order lock to forward its rows; the transaction holding that lock, forwarding a
    // row to the new site, waited for the counter. The cursor row is now committed before the apply.
    const NEW_SITE = 'site-new-beside';
    await registerSiteAt(p.cloud.db, NEW_SITE, p.clock.now());
    const retriedBefore = nodes[0].retried;
    const holder = await otherPool.pool.connect();
    let firstApply: Promise<ApplyOutcome> | undefined;
    try {
      await holder.query('BEGIN');
      // Holds the change log's order lock (change_log_seq_order) until it commits.
      await holder.query(
        `INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data)
         VALUES ('peer-beside', 'trailer', 'T-beside', 'upsert', '0', 'cloud', 1, '{}')`,
      );
      // The new site's edit of the shared trailer is forwarded to the trailer's site: its apply
      // waits for the order lock.
      firstApply = nodes[0].apply(NEW_SITE, otherSiteEdit('edited by a new site', 6, NEW_SITE));
      await waitFor(
        async () =>
          (
            await holder.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'",
            )
          ).rows[0].n > 0,
        { what: 'the new site’s apply waiting for the change log’s order lock' },
      );
      // The order lock's holder now writes a row for the new site: its counter must be free.
      await holder.query('SET LOCAL lock_timeout = 5000');
      await holder.query(
        `INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data)
         VALUES ($1, 'trailer', 'T-beside', 'upsert', '0', 'cloud', 1, '{}')`,
        [NEW_SITE],
      );
      await holder.query('COMMIT');
    } catch (err) {
      await holder.query('ROLLBACK');
      throw err;
    } finally {
      holder.release();
    }
    expect(await firstApply).toMatchObject({ applied: 1, deadLetters: 0 });
    expect(nodes[0].retried).toBe(retriedBefore); // not ended by PostgreSQL as a deadlock and run again
    expect(await value(p.cloud.db, 'SELECT notes FROM trailer WHERE id = ?', trailer.id)).toBe(
      'edited by a new site',
    );
    await sql`DELETE FROM change_log WHERE peer IN ('peer-beside', ${NEW_SITE})`.execute(p.cloud.db.kysely);
  });

  it('two sites’ batches through two nodes at once: all applied, each site in order, counters exact', async () => {
    const moved = [];
    for (let n = 1; n <= 8; n++) moved.push(await checkIn(p.edgeApi, m, gateId, `TR-P${n}`, `TP${n}`));
    const siteBatches = await p.upBatches(4);
    expect(siteBatches.length).toBeGreaterThan(4);
    const otherBatches = Array.from({ length: 10 }, (_, k) => otherSiteEdit(`notes ${k}`, 10 + k));

    // Each site's batches in order, alternating between the nodes; the two sites at once.
    const run = async (site: string, batches: Batch[]) => {
      const outcomes: ApplyOutcome[] = [];
      for (const [i, b] of batches.entries()) outcomes.push(await nodes[i % 2]!.apply(site, b));
      return outcomes;
    };
    const [fromSite, fromOther] = await Promise.all([run(SITE, siteBatches), run(OTHER_SITE, otherBatches)]);
    for (const o of [...fromSite!, ...fromOther!]) expect(o).toMatchObject({ gap: false, deadLetters: 0 });
    expect(fromOther!.map((o) => o.upTo)).toEqual(otherBatches.map((b) => b.to));
    expect(fromSite!.map((o) => o.upTo)).toEqual(siteBatches.map((b) => b.to));
    expect(await value(p.cloud.db, 'SELECT notes FROM trailer WHERE id = ?', trailer.id)).toBe('notes 9');
    for (const mv of moved)
      expect(await value(p.cloud.db, 'SELECT count(*) FROM movement WHERE id = ?', mv.id)).toBe(1);

    // The queue counters equal a recount of the change log and the cursors.
    const kept = await new PostgresWork().run(p.cloud.db.kysely, allPeerFiguresWork());
    const recount = await countsByRecountOn(p.cloud.db);
    for (const [peer, figures] of Object.entries(recount))
      expect(kept.get(peer) ?? { queued: 0, deadLetters: 0 }, peer).toEqual(figures);
    // The dashboard's counters (every yard's shards included) equal a recount from the rows.
    const rollups = async () =>
      (
        await sql<
          Record<string, unknown>
        >`SELECT scope, grain, bucket, direction, n FROM dashboard_movement_count
          WHERE n <> 0 ORDER BY scope, grain, bucket, direction`.execute(p.cloud.db.kysely)
      ).rows;
    const counted = await rollups();
    await rebuildDashboardRollupsPostgres(p.cloud.db.kysely);
    expect(counted).toEqual(await rollups());
  });
});
