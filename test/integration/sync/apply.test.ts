import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BusyError } from '../../../shared/sync/applier.js';
import { entityChecksums } from '../../../shared/sync/checksum.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import {
  batchesFrom,
  checkIn,
  cloudMasterData,
  expectSameRows,
  linkedEdge,
  one,
  SITE,
  SyncPair,
  total,
} from './apply-fixture.js';

let pair: SyncPair;

beforeEach(async () => {
  pair = await SyncPair.start();
});
afterEach(async () => {
  await pair.close();
});

const MASTER = ['yard', 'location', 'carrier', 'driver', 'user'];
const iso = () => new Date(pair.clock.now()).toISOString();

describe('apply: records reach the side that needs them', () => {
  it('cloud master data reaches the edge; the edge’s movements, inspections, sessions and task progress reach the cloud', async () => {
    const m = await cloudMasterData(pair);
    const task = await pair.cloudApi.post('/api/yard-task', {
      yardId: m.yardId,
      type: 'other',
      fromLocationId: m.spotId,
      toLocationId: m.doorId,
      priority: 2,
    });
    expect(task.status, task.text).toBe(201);

    const down = total(pair.down());
    expect(down.deadLetters).toBe(0);
    expect(down.applied).toBeGreaterThan(0);
    expectSameRows(pair, [...MASTER, 'yard_task']);

    // The edge works with what it received: the cloud's admin logs in, the driver with its PIN.
    const edge = await pair.loginEdge();
    const gate = await edge.post(`/api/yard/${m.yardId}/gate`, { name: 'Main', direction: 'both' });
    expect(gate.status, gate.text).toBe(201);
    const moved = await checkIn(edge, m, gate.body.id);
    const inspection = await edge.post(`/api/truck/${moved.truckId}/inspections`, {
      yardId: m.yardId,
      inspectedAt: iso(),
      result: 'pass',
      items: [{ code: 'brakes', ok: true }],
    });
    expect(inspection.status, inspection.text).toBe(201);
    const login = await edge.as(undefined).post('/api/auth/driver-login', { driverCode: 'J01', pin: '2468' });
    expect(login.status, login.text).toBe(200);
    const driver = edge.as(login.body.token);
    expect((await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId })).status).toBe(201);
    const points = await driver.post('/api/yard-task/driver/session/locations', {
      points: [
        { at: iso(), lat: 32.7, lon: -96.8 },
        { at: iso(), lat: 32.71, lon: -96.81 },
      ],
    });
    expect(points.status, points.text).toBeLessThan(300);
    // Auto-dispatch at the edge gave the task to the driver once the session started.
    expect((await edge.get(`/api/yard-task/${task.body.id}`)).body).toMatchObject({
      status: 'ASSIGNED',
      driverId: m.driverId,
    });
    pair.clock.advance(60_000);
    expect(
      (await driver.post('/api/yard-task/driver/start', { taskIds: [task.body.id] })).body.results[0].ok,
    ).toBe(true);
    pair.clock.advance(60_000);
    const done = await driver.post('/api/yard-task/driver/complete', { taskIds: [task.body.id] });
    expect(done.body.results[0].ok).toBe(true);

    const up = total(pair.up());
    expect(up.deadLetters).toBe(0);
    expectSameRows(pair, [
      'gate',
      'movement',
      'truck',
      'trailer',
      'truck_inspection',
      'driver_session',
      'session_location',
      'yard_task',
      'task_event',
    ]);
    expect((await pair.cloudApi.get(`/api/yard-task/${task.body.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      driverId: m.driverId,
    });
    pair.settle();
    expect(entityChecksums(pair.edge.db.sqlite)).toEqual(entityChecksums(pair.cloud.db.sqlite));
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(one(pair.edge, 'SELECT count(*) FROM dead_letter')).toBe(0);
  });

  it('derives visits at the cloud from applied movements: check-in then check-out is one closed visit', async () => {
    const { m, edge, gateId } = await linkedEdge(pair);
    const moved = await checkIn(edge, m, gateId);
    pair.clock.advance(3_600_000);
    const out = await edge.post('/api/movement', {
      yardId: m.yardId,
      gateId,
      direction: 'out',
      trailer: { id: moved.trailerId },
      truck: { plate: 'TX1' },
    });
    expect(out.status, out.text).toBe(201);
    expect(total(pair.up()).deadLetters).toBe(0);
    const visits = (app: typeof pair.cloud) =>
      app.db.sqlite
        .prepare(
          'SELECT yard_id, unit_kind, trailer_id, truck_id, carrier_id, in_movement_id, out_movement_id, in_at, out_at FROM visit ORDER BY in_at',
        )
        .all();
    expect(visits(pair.cloud)).toEqual([
      expect.objectContaining({
        unit_kind: 'trailer',
        trailer_id: moved.trailerId,
        truck_id: moved.truckId,
        in_movement_id: moved.id,
        out_movement_id: out.body.id,
        out_at: pair.clock.now(),
      }),
    ]);
    expect(visits(pair.cloud)).toEqual(visits(pair.edge));
    const listed = await pair.cloudApi.get(`/api/visit?yardId=${m.yardId}`);
    expect(listed.body.items).toHaveLength(1);
  });
});

describe('apply: positions, duplicates, gaps and streams', () => {
  it('applies a batch once: a repeat is all duplicates, an early batch is a gap, a new stream starts over', async () => {
    await cloudMasterData(pair);
    const batches = batchesFrom(pair.cloud, SITE, 0, 2);
    expect(batches.length).toBeGreaterThan(3);
    const apply = (b: Batch) => pair.edgeApplier.apply('cloud', b);

    // Reordered delivery: the second batch first is a gap, nothing applied, the ack says where to resume.
    expect(apply(batches[1]!)).toMatchObject({ gap: true, applied: 0, upTo: 0 });
    expect(one(pair.edge, 'SELECT count(*) FROM yard')).toBe(0);
    const first = apply(batches[0]!);
    expect(first).toMatchObject({ gap: false, upTo: batches[0]!.to, duplicates: 0 });
    expect(first.applied).toBeGreaterThan(0);
    // The same batch again: all duplicates.
    expect(apply(batches[0]!)).toMatchObject({
      applied: 0,
      duplicates: batches[0]!.rows.length,
      upTo: batches[0]!.to,
    });
    // A resend overlapping the applied range: only its new rows count.
    const merged: Batch = {
      ...batches[0]!,
      to: batches[1]!.to,
      rows: [...batches[0]!.rows, ...batches[1]!.rows],
    };
    expect(apply(merged)).toMatchObject({
      duplicates: batches[0]!.rows.length,
      upTo: batches[1]!.to,
      gap: false,
    });
    for (const b of batches.slice(2)) expect(apply(b).gap).toBe(false);
    expectSameRows(pair, MASTER);
    const before = entityChecksums(pair.edge.db.sqlite);
    const again = batches.map(apply);
    expect(total(again)).toMatchObject({ applied: 0, deadLetters: 0 });
    expect(entityChecksums(pair.edge.db.sqlite)).toEqual(before);

    // The cloud's database was replaced (new stream id): its seqs start over, nothing is skipped as a
    // duplicate, and rows the edge already holds change nothing.
    const replaced = { ...batches[0]!, stream: 'restored-stream' };
    const reset = apply(replaced);
    expect(reset).toMatchObject({
      streamReset: true,
      gap: false,
      upTo: replaced.to,
      duplicates: 0,
      applied: 0,
    });
    expect(one(pair.edge, "SELECT remote_stream FROM sync_cursor WHERE peer = 'cloud'")).toBe(
      'restored-stream',
    );
    expect(entityChecksums(pair.edge.db.sqlite)).toEqual(before);
    // The old stream is now the stranger: a batch of it from the middle is a gap.
    expect(apply(batches[2]!)).toMatchObject({ streamReset: true, gap: true, upTo: 0 });
  });

  it('refuses to apply while an async transaction is open on the connection', async () => {
    const [batch] = batchesFrom(pair.cloud, SITE, 0);
    await pair.edge.core.kysely.transaction().execute(async () => {
      expect(() => pair.edgeApplier.apply('cloud', batch!)).toThrow(BusyError);
    });
    expect(pair.edgeApplier.apply('cloud', batch!).gap).toBe(false);
  });
});
