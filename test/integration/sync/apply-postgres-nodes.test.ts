import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDatabase } from '../../../shared/db/database.js';
import { openPostgres } from '../../../shared/db/postgres-database.js';
import { YARD_GRAINS } from '../../../shared/modules/dashboard/rollups/rules.js';
import type { ApplyOutcome } from '../../../shared/sync/applier.js';
import { PostgresChangeApplier } from '../../../shared/sync/applier-postgres.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import { postgresAvailable } from '../../helpers/postgres.js';
import { checkIn, type MasterData, OTHER_SITE, SITE } from './apply-fixture.js';
import { CloudAndEdge, registerSiteAt, value } from './cloud-apply-fixture.js';

/**
 * Several cloud nodes on one PostgreSQL database apply at once (docs/architecture.md "Two databases, and several cloud nodes"): two appliers on two
 * pools. A site's batches apply one at a time and in order (its sync_cursor row is locked first),
 * nothing twice; two sites merging the same shared record at once lose no field (rows read FOR
 * UPDATE before they are merged). PostgreSQL only: SQLite's cloud is one process on one connection.
 */
describe.skipIf(!postgresAvailable())('several cloud nodes apply at once (postgres)', () => {
  let p: CloudAndEdge;
  let m: MasterData;
  let gateId: string;
  let otherPool: PostgresDatabase;
  let nodes: [PostgresChangeApplier, PostgresChangeApplier];

  beforeAll(async () => {
    p = await CloudAndEdge.start('postgres');
    await registerSiteAt(p.cloud.db, OTHER_SITE, p.clock.now());
    ({ m, gateId } = await p.linked());
    otherPool = openPostgres({ url: p.cloud.postgresUrl!, poolMax: 5, statementTimeoutMs: 0 });
    const core = p.cloud.core;
    nodes = [
      new PostgresChangeApplier({ ...core, db: core.db as PostgresDatabase }),
      new PostgresChangeApplier({ ...core, db: otherPool }),
    ];
  });
  afterAll(async () => {
    await otherPool?.close();
    await p?.close();
  });

  it('both nodes given every batch of a site: each batch applies once, in order', async () => {
    const moved = [];
    for (let n = 1; n <= 6; n++) moved.push(await checkIn(p.edgeApi, m, gateId, `TR-N${n}`, `TN${n}`));
    const batches = await p.upBatches(5);
    expect(batches.length).toBeGreaterThan(3);
    const movementsBefore = Number(
      await value(p.cloud.db, 'SELECT sum(n) FROM dashboard_movement_count WHERE scope = ?', m.yardId),
    );

    // Each node goes through the whole stream in order, as after a resend to the other node.
    const run = async (node: PostgresChangeApplier) => {
      const outcomes: ApplyOutcome[] = [];
      for (const b of batches) outcomes.push(await node.apply(SITE, b));
      return outcomes;
    };
    const [one, two] = await Promise.all(nodes.map(run));
    batches.forEach((b, i) => {
      const both = [one![i]!, two![i]!];
      // Exactly one node applied it; the other found it applied (or, ahead of it, a gap).
      const appliers = both.filter((o) => !o.gap && o.duplicates === 0);
      expect(appliers.length, `batch ${b.from}-${b.to}`).toBe(1);
      const other = both.find((o) => o !== appliers[0])!;
      expect(other.gap || other.duplicates === b.rows.length, `batch ${b.from}-${b.to}`).toBe(true);
      expect(appliers[0]!.deadLetters).toBe(0);
    });
    const last = batches.at(-1)!.to;
    expect(await value(p.cloud.db, 'SELECT applied_remote_seq FROM sync_cursor WHERE peer = ?', SITE)).toBe(
      last,
    );
    for (const mv of moved) {
      expect(await value(p.cloud.db, 'SELECT count(*) FROM movement WHERE id = ?', mv.id)).toBe(1);
      // A visit is derived once per movement applied: twice would open two.
      expect(await value(p.cloud.db, 'SELECT count(*) FROM visit WHERE in_movement_id = ?', mv.id)).toBe(1);
    }
    const movementsAfter = Number(
      await value(p.cloud.db, 'SELECT sum(n) FROM dashboard_movement_count WHERE scope = ?', m.yardId),
    );
    // The rollups counted each movement once, in each of the yard's grains.
    expect(movementsAfter - movementsBefore).toBe(6 * YARD_GRAINS.length);
    expect(await value(p.cloud.db, 'SELECT count(*) FROM dead_letter')).toBe(0);
  });

  it('two sites merging the same shared trailer at once lose no field', async () => {
    const moved = await checkIn(p.edgeApi, m, gateId, 'TR-SHARED', 'TXS');
    const [batch] = await p.upBatches();
    expect((await nodes[0].apply(SITE, batch!)).deadLetters).toBe(0);
    const trailer = batch!.rows.find((r) => r.entity === 'trailer' && r.id === moved.trailerId)!;
    const streams: Record<string, string> = { [SITE]: batch!.stream, [OTHER_SITE]: 'site-b-stream' };
    const positions: Record<string, number> = { [SITE]: batch!.to, [OTHER_SITE]: 0 };
    /** One site's edit of one field of the trailer, stamped `ms` after the clock. */
    const edit = (site: string, field: string, text: string, ms: number): Batch => {
      const hlc = `${String(p.clock.now() + ms).padStart(13, '0')}-0000-${site}`;
      const clocks = JSON.parse(String(trailer.data.fieldHlc ?? '{}')) as Record<string, string>;
      const base = String(trailer.data.hlc);
      const seq = (positions[site] ?? 0) + 1;
      positions[site] = seq;
      return {
        v: 1,
        site,
        stream: streams[site]!,
        from: seq,
        to: seq,
        schemaV: batch!.schemaV,
        rows: [
          {
            seq,
            entity: 'trailer',
            id: trailer.id,
            op: 'upsert',
            hlc,
            data: {
              ...trailer.data,
              [field]: text,
              hlc,
              // Every field with its clock: the edited one new, the others as the site last saw them.
              fieldHlc: JSON.stringify({ ...clocks, notes: base, sealNumber: base, [field]: hlc }),
            },
          },
        ],
      };
    };
    for (let round = 1; round <= 8; round++) {
      const a = edit(SITE, 'notes', `notes ${round}`, round * 2);
      const b = edit(OTHER_SITE, 'sealNumber', `SEAL-${round}`, round * 2 + 1);
      const [fromA, fromB] = await Promise.all([nodes[0].apply(SITE, a), nodes[1].apply(OTHER_SITE, b)]);
      expect(
        [fromA.applied, fromB.applied, fromA.deadLetters, fromB.deadLetters],
        JSON.stringify({
          fromA,
          fromB,
          a: a.rows[0],
          stored: await value(p.cloud.db, 'SELECT field_hlc || hlc FROM trailer WHERE id = ?', trailer.id),
        }),
      ).toEqual([1, 1, 0, 0]);
      const stored = (await value(
        p.cloud.db,
        "SELECT notes || '|' || seal_number FROM trailer WHERE id = ?",
        trailer.id,
      )) as string;
      expect(stored, `round ${round}`).toBe(`notes ${round}|SEAL-${round}`);
    }
  });
});
