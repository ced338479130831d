import { afterEach, describe, expect, it } from 'vitest';
import { type Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { prepareSite, type SiteRefs, scalarAt } from '../../helpers/sync-traffic.js';
import { SyncWorld, type WorldNode } from '../../helpers/sync-world.js';
import { waitFor } from '../../helpers/wait-for.js';
import { cloudMasterData, type MasterData } from './link-fixture.js';

/**
 * Trucks and trailers routed by relevance (docs/sync.md "Routing", shared/sync/unit-shares.ts),
 * over the real broker: the site whose yard a trailer stands in holds all of it; every other site
 * knows it by number and carrier (so its gate recognises it) and nothing of where it stands or what
 * it carries, and no site gets a row it cannot store (no dead letters).
 */

const COLUMNS =
  'id, carrier_id, number, plate, type, length_ft, load_status, seal_number, yard_id, location_id, arrived_at, notes, created_at, hlc, version';

describe.each(TEST_DIALECTS)('units routed by relevance (cloud on %s)', (dialect) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  /** Two sites, each with a yard (spot, door), a gate, its carrier; site A's driver logged in. */
  async function twoSites() {
    world = await SyncWorld.start({ dialect, sites: ['site-a', 'site-b'] });
    const [a, b] = world.edges as [WorldNode, WorldNode];
    const sa = await prepareSite(world, a, 'A');
    const mb = await cloudMasterData(world.cloud.client, 'site-b', 'B');
    await waitFor(() => b.sqlite.prepare('SELECT 1 FROM location WHERE id = ?').get(mb.doorId), {
      what: 'site B’s yard at its edge',
    });
    const gate = await b.client.post(`/api/yard/${mb.yardId}/gate`, { name: 'Gate B', direction: 'both' });
    expect(gate.status, gate.text).toBe(201);
    return { w: world, a, b, sa, mb: { ...mb, gateId: gate.body.id as string } };
  }

  it('a check-in at A: A holds the trailer whole, B its identity; a load change stays at A, an identity change reaches both', async () => {
    const { w, a, b, sa } = await twoSites();
    const inA = await movement(a.client, sa, sa.carrierId, 'in', { loadStatus: 'loaded', sealNumber: 'S-1' });
    const trailerId = inA.trailerId;
    await waitFor(() => trailerAt(b, trailerId), { what: 'the trailer’s identity at site B' });
    await waitFor(
      async () => (await cloudTrailer(w, trailerId))?.version === trailerAt(a, trailerId)?.version,
      {
        what: 'the check-in at the cloud',
      },
    );
    expect(trailerAt(a, trailerId)).toMatchObject({
      yard_id: sa.yardId,
      location_id: sa.spotId,
      load_status: 'loaded',
      seal_number: 'S-1',
    });
    expect(trailerAt(a, trailerId)).toEqual(await cloudTrailer(w, trailerId));
    // B recognises it (number, carrier) and knows nothing of its yard, spot, load or seal.
    expect(trailerAt(b, trailerId)).toMatchObject({
      number: 'REL-1',
      carrier_id: sa.carrierId,
      yard_id: null,
      location_id: null,
      arrived_at: null,
      load_status: 'unknown',
      seal_number: null,
    });

    // A load change at A, and a seal change at the cloud: nothing for site B.
    const toB = () => logRows(w, 'site-b', trailerId);
    const toA = () => logRows(w, 'site-a', trailerId);
    const [bBefore, aBefore] = [await toB(), await toA()];
    const empty = await a.client.patch(`/api/trailer/${trailerId}`, { loadStatus: 'empty' });
    expect(empty.status, empty.text).toBe(200);
    await waitFor(async () => (await cloudTrailer(w, trailerId))?.load_status === 'empty', {
      what: 'the load change at the cloud',
    });
    const seal = await w.cloud.client.patch(`/api/trailer/${trailerId}`, { sealNumber: 'S-2' });
    expect(seal.status, seal.text).toBe(200);
    await waitFor(() => trailerAt(a, trailerId)?.seal_number === 'S-2', { what: 'the seal at site A' });
    expect(await toB()).toBe(bBefore);
    expect(await toA()).toBe(aBefore + 1);

    // A new plate at the cloud (stored as normalised, PL9): both sites; A still holds where it stands, B still does not.
    const plate = await w.cloud.client.patch(`/api/trailer/${trailerId}`, { plate: 'PL-9' });
    expect(plate.status, plate.text).toBe(200);
    await waitFor(
      () => trailerAt(a, trailerId)?.plate === 'PL9' && trailerAt(b, trailerId)?.plate === 'PL9',
      {
        what: 'the new plate at both sites',
      },
    );
    expect(trailerAt(a, trailerId)).toEqual(await cloudTrailer(w, trailerId));
    expect(trailerAt(b, trailerId)).toMatchObject({ plate: 'PL9', yard_id: null, load_status: 'unknown' });
    await expectNoDeadLetters(w);
  }, 60_000);

  it('a trailer moving A → B: B’s gate knows it, B ends with all of it, A learns it left; a new site gets its identity', async () => {
    const { w, a, b, sa, mb } = await twoSites();
    // In at A with a load, out at A, in at B: B's gate finds it by number, no second trailer.
    const { trailerId } = await movement(a.client, sa, sa.carrierId, 'in', {
      loadStatus: 'loaded',
      sealNumber: 'S-1',
    });
    await waitFor(() => trailerAt(b, trailerId), { what: 'the trailer’s identity at site B' });
    await movement(a.client, sa, sa.carrierId, 'out');
    const inB = await movement(b.client, mb, sa.carrierId, 'in');
    expect(inB.trailerId).toBe(trailerId);
    // The cloud's merge gave B the load it never received; B holds the same row as the cloud.
    await waitFor(() => trailerAt(b, trailerId)?.load_status === 'loaded', { what: 'the load at site B' });
    const atCloud = await cloudTrailer(w, trailerId);
    expect(atCloud).toMatchObject({ yard_id: mb.yardId, location_id: mb.spotId, seal_number: 'S-1' });
    expect(trailerAt(b, trailerId)).toEqual(atCloud);
    expect(trailerAt(a, trailerId)).toMatchObject({ yard_id: null, location_id: null });

    // Back to A without a check-out at B (it left B unrecorded): B learns it is gone.
    const back = await movement(a.client, sa, sa.carrierId, 'in', { force: true });
    expect(back.trailerId).toBe(trailerId);
    await waitFor(() => trailerAt(b, trailerId)?.yard_id === null, { what: 'the departure at site B' });
    expect(trailerAt(b, trailerId)).toMatchObject({ location_id: null, arrived_at: null });
    await waitFor(async () => (await cloudTrailer(w, trailerId))?.yard_id === sa.yardId, {
      what: 'the return at the cloud',
    });
    expect(trailerAt(a, trailerId)).toEqual(await cloudTrailer(w, trailerId));
    expect(await scalarAt(w.cloud.db, "SELECT count(*) FROM trailer WHERE number = 'REL-1'")).toBe(1);

    // A site registered now: its snapshot holds the trailer's identity, not A's yard.
    const c = await w.addEdge('site-c');
    await waitFor(() => trailerAt(c, trailerId), { what: 'the trailer’s identity at site C' });
    expect(trailerAt(c, trailerId)).toMatchObject({
      number: 'REL-1',
      plate: null,
      yard_id: null,
      load_status: 'unknown',
    });
    await expectNoDeadLetters(w);
  }, 90_000);
});

/** A gate movement of trailer REL-1 (of `carrierId`) at a site's gate. */
async function movement(
  edge: Client,
  site: Pick<MasterData, 'yardId' | 'spotId'> & Pick<SiteRefs, 'gateId'>,
  carrierId: string,
  direction: 'in' | 'out',
  extra: Record<string, unknown> = {},
): Promise<{ trailerId: string }> {
  const res = await edge.post('/api/movement', {
    yardId: site.yardId,
    gateId: site.gateId,
    direction,
    trailer: { number: 'REL-1', carrierId },
    ...(direction === 'in' ? { locationId: site.spotId } : {}),
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return { trailerId: res.body.trailerId as string };
}

function trailerAt(node: WorldNode, id: string): Record<string, unknown> | undefined {
  return node.sqlite.prepare(`SELECT ${COLUMNS} FROM trailer WHERE id = ?`).get(id) as
    | Record<string, unknown>
    | undefined;
}

async function cloudTrailer(w: SyncWorld, id: string): Promise<Record<string, unknown> | undefined> {
  return (await query(w.cloud.db, `SELECT ${COLUMNS} FROM trailer WHERE id = ?`, id))[0];
}

/** Rows of the trailer in the cloud's log for a site. */
function logRows(w: SyncWorld, peer: string, id: string): Promise<number> {
  return scalarAt(w.cloud.db, 'SELECT count(*) FROM change_log WHERE peer = ? AND entity_id = ?', peer, id);
}

async function expectNoDeadLetters(w: SyncWorld): Promise<void> {
  for (const node of [w.cloud, ...w.edges])
    expect(await scalarAt(node.db, 'SELECT count(*) FROM dead_letter'), node.siteId).toBe(0);
}
