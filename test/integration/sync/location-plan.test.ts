import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { ChangeApplier } from '../../../shared/sync/applier.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { batchesFrom, cloudMasterData, one, SITE, SyncPair, total } from './apply-fixture.js';

/**
 * A location's place on the yard plan (migration 0009) is master data: set at the cloud, it reaches
 * the site's edge like the location's other fields, and the edge shows it read-only.
 */
const PLAN = { x: 20, y: 62, width: 4, height: 17, rotation: 0 };

describe.each(TEST_DIALECTS)('location plan over a real broker (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  beforeAll(async () => {
    h = await startSyncHarness({ dialect });
  });
  afterAll(() => h?.close());

  it('a position set, moved and cleared at the cloud arrives at the edge; the edge may not change it', async () => {
    const cloud = h.cloud.client;
    const edge = h.edges[0]!;
    const yard = await cloud.post('/api/yard', {
      code: 'PLN',
      name: 'Plan',
      timeZone: 'UTC',
      siteId: 'site-a',
    });
    const made = await cloud.post(`/api/yard/${yard.body.id}/location`, {
      kind: 'spot',
      name: 'S1',
      plan: PLAN,
    });
    expect(made.status, made.text).toBe(201);
    const atEdge = async () =>
      (await edge.client.get(`/api/yard/${yard.body.id}/location`)).body.items?.[0] as
        | { plan: unknown; version: number }
        | undefined;
    await waitFor(async () => (await atEdge())?.plan !== undefined, { what: 'the location at the edge' });
    expect((await atEdge())!.plan).toEqual(PLAN);

    const moved = { ...PLAN, x: 33.5, rotation: 270 };
    const patch = await cloud.patch(`/api/yard/${yard.body.id}/location/${made.body.id}`, { plan: moved });
    expect(patch.status).toBe(200);
    await waitFor(async () => (await atEdge())?.version === 2, { what: 'the moved location at the edge' });
    expect((await atEdge())!.plan).toEqual(moved);

    const refused = await edge.client.patch(`/api/yard/${yard.body.id}/location/${made.body.id}`, {
      plan: null,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('cloud-owned');

    await cloud.patch(`/api/yard/${yard.body.id}/location/${made.body.id}`, { plan: null });
    await waitFor(async () => (await atEdge())?.version === 3, { what: 'the cleared location at the edge' });
    expect((await atEdge())!.plan).toBeNull();
    await h.converged(edge, { entities: ['location'] });
  });
});

// SQLite only: the edge's applier (edges are SQLite) meeting rows of other versions, driven by hand (apply-fixture.ts).
describe('location plan between program versions', () => {
  let pair: SyncPair;
  beforeAll(async () => {
    pair = await SyncPair.start();
  });
  afterAll(() => pair?.close());

  it('an edge one schema older parks the rows and applies them after its upgrade; an older cloud leaves a position alone', async () => {
    const m = await cloudMasterData(pair);
    const res = await pair.cloudApi.patch(`/api/yard/${m.yardId}/location/${m.spotId}`, { plan: PLAN });
    expect(res.status).toBe(200);

    // The edge still runs the program before migration 0009: it keeps what it cannot apply yet.
    const older = new ChangeApplier(pair.edge.core, { schemaVersion: SCHEMA_VERSION - 1 });
    const batches = batchesFrom(pair.cloud, SITE, 0);
    const parked = total(batches.map((b) => older.apply('cloud', b)));
    expect(parked).toMatchObject({ applied: 0, deadLetters: 0 });
    expect(parked.pending).toBeGreaterThan(0);
    expect(one(pair.edge, 'SELECT count(*) FROM location WHERE id = ?', m.spotId)).toBe(0);

    // Upgraded, it applies them: the position is there.
    const upgraded = new ChangeApplier(pair.edge.core);
    expect(upgraded.applyPending()).toBe(parked.pending);
    expect(one(pair.edge, 'SELECT plan_x FROM location WHERE id = ?', m.spotId)).toBe(20);
    expect(one(pair.edge, 'SELECT count(*) FROM dead_letter')).toBe(0);

    // A location row from a cloud that predates positions has no plan fields: a rename from it
    // leaves the stored position as it was (fields a row lacks are not written).
    const last = batches.at(-1)!;
    const row = last.rows.findLast((r) => r.entity === 'location' && r.id === m.spotId)!;
    const { planX, planY, planWidth, planHeight, planRotation, ...withoutPlan } = row.data;
    expect([planX, planY, planWidth, planHeight, planRotation]).toEqual([20, 62, 4, 17, 0]);
    pair.clock.advance(1000);
    const hlc = pair.cloud.core.hlc.next();
    const fromOlder: Batch = {
      ...last,
      from: last.to + 1,
      to: last.to + 1,
      schemaV: SCHEMA_VERSION - 1,
      rows: [
        {
          seq: last.to + 1,
          entity: 'location',
          id: m.spotId,
          op: 'upsert',
          hlc,
          data: { ...withoutPlan, name: 'A-01 renamed', hlc, version: 9 },
        },
      ],
    };
    expect(upgraded.apply('cloud', fromOlder)).toMatchObject({ applied: 1, deadLetters: 0 });
    expect(one(pair.edge, 'SELECT name FROM location WHERE id = ?', m.spotId)).toBe('A-01 renamed');
    expect(one(pair.edge, 'SELECT plan_x FROM location WHERE id = ?', m.spotId)).toBe(20);
  });
});
