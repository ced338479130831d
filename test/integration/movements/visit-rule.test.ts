import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { checkIn, type MasterData, total } from '../sync/apply-fixture.js';
import { CloudAndEdge } from '../sync/cloud-apply-fixture.js';

/**
 * The visit rule (shared/modules/movements/visits.ts) is one rule on both write paths: the edge
 * derives visits from the movements it records (POST /api/movement), the cloud from the same
 * movements applied by sync. A check-in, a forced check-in of a unit still in the yard and a
 * check-out leave the same visit rows on both sides (ids apart: visits are each side's own).
 */
describe.each(TEST_DIALECTS)('a movement recorded at the edge and applied at the cloud (%s)', (dialect) => {
  let p: CloudAndEdge;
  let m: MasterData;
  let gateId: string;

  beforeAll(async () => {
    p = await CloudAndEdge.start(dialect);
    ({ m, gateId } = await p.linked());
  });
  afterAll(async () => {
    await p?.close();
  });

  /** The visits of the yard without their ids, in the order they were opened. */
  const visits = async (side: 'edge' | 'cloud') =>
    (await query(
      p[side].db,
      `SELECT yard_id, unit_kind, trailer_id, truck_id, carrier_id, in_movement_id, out_movement_id, in_at, out_at
         FROM visit WHERE yard_id = ? ORDER BY in_at, unit_kind, in_movement_id`,
      m.yardId,
    )) as Array<Record<string, unknown>>;

  it('check-in, forced check-in and check-out leave the same visits on both sides', async () => {
    const first = await checkIn(p.edgeApi, m, gateId, 'TR-V1', 'TXV1');
    p.clock.advance(60_000);
    const forced = await p.edgeApi.post('/api/movement', {
      yardId: m.yardId,
      gateId,
      direction: 'in',
      trailer: { id: first.trailerId },
      force: true,
    });
    expect(forced.status, forced.text).toBe(201);
    expect(forced.body.warnings).toEqual([expect.stringMatching(/^already-in-yard: /)]);
    p.clock.advance(60_000);
    const out = await p.edgeApi.post('/api/movement', {
      yardId: m.yardId,
      gateId,
      direction: 'out',
      trailer: { id: first.trailerId },
      truck: { id: first.truckId },
    });
    expect(out.status, out.text).toBe(201);

    const atEdge = await visits('edge');
    // The rule as recorded at the edge: the forced check-in closed the trailer's first stay without
    // a check-out movement; the check-out closed the new stay.
    expect(atEdge).toEqual([
      expect.objectContaining({
        unit_kind: 'trailer',
        trailer_id: first.trailerId,
        truck_id: first.truckId,
        carrier_id: m.carrierId,
        in_movement_id: first.id,
        out_movement_id: null,
        out_at: Date.parse(forced.body.at),
      }),
      expect.objectContaining({
        unit_kind: 'trailer',
        trailer_id: first.trailerId,
        in_movement_id: forced.body.id,
        out_movement_id: out.body.id,
      }),
    ]);

    expect(total(await p.up()).deadLetters).toBe(0);
    expect((await visits('cloud')).map(numbers)).toEqual(atEdge.map(numbers));
  });
});

/** PostgreSQL returns bigint columns as the driver parses them: compared as numbers. */
function numbers(row: Record<string, unknown>): Record<string, unknown> {
  return {
    ...row,
    in_at: Number(row.in_at),
    out_at: row.out_at === null ? null : Number(row.out_at),
  };
}
