import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteRepo } from '../../../shared/modules/sync/sites.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { checkIn, type MasterData, OTHER_SITE, SITE, total } from './apply-fixture.js';
import { CloudAndEdge, registerSiteAt, value } from './cloud-apply-fixture.js';

/**
 * The cloud's applier (ApplyWork) on both databases: an edge's rows applied once, duplicates and
 * gaps, the trust rules, foreign keys, forwarding to another site, dead letters retried and
 * adopted, and the dashboard's rollups kept in the same transaction. The edge is SQLite (always).
 */
describe.each(TEST_DIALECTS)('the cloud applies a site’s batches (%s)', (dialect) => {
  let p: CloudAndEdge;
  let m: MasterData;
  let gateId: string;

  beforeAll(async () => {
    p = await CloudAndEdge.start(dialect);
    await registerSiteAt(p.cloud.db, OTHER_SITE, p.clock.now());
    ({ m, gateId } = await p.linked());
  });
  afterAll(async () => {
    await p?.close();
  });

  it('check-ins apply once (duplicates skipped, a gap refused), with visits and rollups', async () => {
    const moved = await checkIn(p.edgeApi, m, gateId, 'TR-1', 'TX1');
    const batches = await p.upBatches();
    expect(batches.length).toBe(1);
    const batch = batches[0]!;
    const gap: Batch = { ...batch, from: batch.to + 5, to: batch.to + 5, rows: [] };
    expect(await p.cloudApplier.apply(SITE, gap)).toMatchObject({ gap: true, applied: 0 });

    const first = await p.cloudApplier.apply(SITE, batch);
    expect(first).toMatchObject({ gap: false, deadLetters: 0, upTo: batch.to });
    expect(first.applied).toBeGreaterThan(0);
    const again = await p.cloudApplier.apply(SITE, batch);
    expect(again).toMatchObject({ applied: 0, duplicates: batch.rows.length, upTo: batch.to });

    expect(await value(p.cloud.db, 'SELECT count(*) FROM movement WHERE id = ?', moved.id)).toBe(1);
    expect(await value(p.cloud.db, 'SELECT number FROM trailer WHERE id = ?', moved.trailerId)).toBe('TR-1');
    // The visit is derived at the cloud from the movement, in the same savepoint.
    expect(
      await value(
        p.cloud.db,
        'SELECT count(*) FROM visit WHERE in_movement_id = ? AND out_at IS NULL',
        moved.id,
      ),
    ).toBe(1);
    // The rollups are written by the applier's own work (observers yielded into it).
    expect(
      await value(
        p.cloud.db,
        "SELECT sum(n) FROM dashboard_movement_count WHERE direction = 'in' AND scope = ?",
        m.yardId,
      ),
    ).toBeGreaterThan(0);
    expect(await value(p.cloud.db, 'SELECT applied_remote_seq FROM sync_cursor WHERE peer = ?', SITE)).toBe(
      batch.to,
    );
  });

  it('a trailer from one site is forwarded to the other sites, with its origin, after the batch', async () => {
    const moved = await checkIn(p.edgeApi, m, gateId, 'TR-2', 'TX2');
    const before = Number(await value(p.cloud.db, 'SELECT coalesce(max(seq), 0) FROM change_log'));
    expect(total(await p.up()).deadLetters).toBe(0);
    const forwarded = await query(
      p.cloud.db,
      'SELECT peer, entity, origin FROM change_log WHERE seq > ? AND entity_id = ? ORDER BY seq',
      before,
      moved.trailerId,
    );
    expect(forwarded).toEqual([{ peer: OTHER_SITE, entity: 'trailer', origin: SITE }]);
    // Nothing goes back to the site it came from; the movement (a yard's) goes nowhere else.
    expect(
      await value(p.cloud.db, 'SELECT count(*) FROM change_log WHERE seq > ? AND peer = ?', before, SITE),
    ).toBe(0);
  });

  it('rows the site may not write become dead letters naming the rule; the rest of the batch applies', async () => {
    const moved = await checkIn(p.edgeApi, m, gateId, 'TR-3', 'TX3');
    const [batch] = await p.upBatches();
    const hlc = batch!.rows.at(-1)!.hlc;
    const carrierId = 'carrier-from-a-site';
    const forged: Batch = {
      ...batch!,
      to: batch!.to + 1,
      rows: [
        ...batch!.rows,
        {
          seq: batch!.to + 1,
          entity: 'carrier',
          id: carrierId,
          op: 'upsert',
          hlc,
          data: { id: carrierId, name: 'Forged', scac: 'FRGD', hlc, createdAt: 1, updatedAt: 1 },
        },
      ],
    };
    const outcome = await p.cloudApplier.apply(SITE, forged);
    expect(outcome.deadLetters).toBe(1);
    expect(await value(p.cloud.db, 'SELECT count(*) FROM movement WHERE id = ?', moved.id)).toBe(1);
    expect(
      await value(
        p.cloud.db,
        'SELECT error FROM dead_letter WHERE peer = ? AND entity_id = ?',
        SITE,
        carrierId,
      ),
    ).toMatch(/^\[cloud-owned\]/);
    expect(await value(p.cloud.db, 'SELECT count(*) FROM carrier WHERE id = ?', carrierId)).toBe(0);

    // Retried, it fails again by the same rule; adopted by an admin, it is the cloud's own.
    expect(await p.cloudApplier.retryDeadLetters({ peer: SITE })).toEqual({ retried: 1, applied: 0 });
    // The site's edge ran standalone before it was linked: its carrier may be adopted.
    await new SiteRepo(p.cloud.core.kysely).markStandalone(SITE);
    const preview = await p.cloudApplier.previewAdoption(SITE);
    const row = preview.rows.find((r) => r.id === carrierId)!;
    expect(row).toMatchObject({ entity: 'carrier', fields: { name: 'Forged', scac: 'FRGD' } });
    expect(row.refusal).toBeUndefined();
    expect(await p.cloudApplier.adoptDeadLetters(SITE, [row.deadLetterId])).toMatchObject({ adopted: 1 });
    expect(await value(p.cloud.db, 'SELECT name FROM carrier WHERE id = ?', carrierId)).toBe('Forged');
    expect(await value(p.cloud.db, 'SELECT count(*) FROM dead_letter WHERE entity_id = ?', carrierId)).toBe(
      0,
    );
  });

  it('a row whose reference never arrives is a foreign-key dead letter; it applies once the reference has', async () => {
    const moved = await checkIn(p.edgeApi, m, gateId, 'TR-4', 'TX4');
    const [batch] = await p.upBatches();
    const trailerRow = batch!.rows.find((r) => r.entity === 'trailer' && r.id === moved.trailerId)!;
    const without: Batch = { ...batch!, rows: batch!.rows.filter((r) => r !== trailerRow) };
    const outcome = await p.cloudApplier.apply(SITE, without);
    expect(outcome.deadLetters).toBeGreaterThan(0);
    const error = await value(
      p.cloud.db,
      'SELECT error FROM dead_letter WHERE peer = ? AND entity_id = ?',
      SITE,
      moved.id,
    );
    expect(error).toMatch(dialect === 'postgres' ? /^23503/ : /^SQLITE_CONSTRAINT_FOREIGNKEY/);
    expect(await value(p.cloud.db, 'SELECT count(*) FROM movement WHERE id = ?', moved.id)).toBe(0);

    // The trailer arrives (a later batch); the dead letters then apply.
    const next: Batch = {
      ...batch!,
      from: batch!.to + 1,
      to: batch!.to + 1,
      rows: [{ ...trailerRow, seq: batch!.to + 1 }],
    };
    expect(await p.cloudApplier.apply(SITE, next)).toMatchObject({ applied: 1, deadLetters: 0 });
    const retried = await p.cloudApplier.retryDeadLetters({ peer: SITE });
    expect(retried.applied).toBe(retried.retried);
    expect(await value(p.cloud.db, 'SELECT count(*) FROM movement WHERE id = ?', moved.id)).toBe(1);
  });
});
