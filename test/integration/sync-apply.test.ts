import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../shared/db/migrate.js';
import { BusyError, ChangeApplier } from '../../shared/sync/applier.js';
import { entityChecksums } from '../../shared/sync/checksum.js';
import type { Batch } from '../../shared/sync/protocol.js';
import type { Client } from '../helpers/http.js';
import {
  batchesFrom,
  cloudMasterData,
  expectSameRows,
  type MasterData,
  NEWER_SCHEMA,
  one,
  SITE,
  SyncPair,
  total,
} from './sync-apply-fixture.js';

let pair: SyncPair;

beforeEach(async () => {
  pair = await SyncPair.start();
});
afterEach(async () => {
  await pair.close();
});

const MASTER = ['yard', 'location', 'carrier', 'driver', 'user'];
const iso = () => new Date(pair.clock.now()).toISOString();

/** Master data down to the edge, admin logged in there, a gate made at the edge. */
async function linkedEdge(): Promise<{ m: MasterData; edge: Client; gateId: string }> {
  const m = await cloudMasterData(pair);
  expect(total(pair.down()).deadLetters).toBe(0);
  const edge = await pair.loginEdge();
  const gate = await edge.post(`/api/yard/${m.yardId}/gate`, { name: 'Main', direction: 'both' });
  expect(gate.status, gate.text).toBe(201);
  return { m, edge, gateId: gate.body.id };
}

async function checkIn(edge: Client, m: MasterData, gateId: string, trailer = 'TR-1', plate = 'TX1') {
  const res = await edge.post('/api/movement', {
    yardId: m.yardId,
    gateId,
    direction: 'in',
    trailer: { number: trailer, carrierId: m.carrierId },
    truck: { plate, plateRegion: 'TX' },
    driverId: m.driverId,
    locationId: m.spotId,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; trailerId: string; truckId: string };
}

describe('apply: records reach the side that needs them', () => {
  it('cloud master data reaches the edge; the edge’s movements, inspections, sessions and task progress reach the cloud', async () => {
    const m = await cloudMasterData(pair);
    const task = await pair.cloudApi.post('/api/yard-task', {
      yardId: m.yardId,
      type: 'move',
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
    const { m, edge, gateId } = await linkedEdge();
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

describe('apply: dead letters and pending rows', () => {
  it('a row with an unknown reference goes to dead_letter, the rest applies; a retry after the reference arrives applies it', async () => {
    const { m, edge, gateId } = await linkedEdge();
    const moved = await checkIn(edge, m, gateId);
    const inspection = await edge.post(`/api/truck/${moved.truckId}/inspections`, {
      yardId: m.yardId,
      inspectedAt: iso(),
      result: 'fail',
      items: [{ code: 'lights', ok: false }],
    });
    expect(inspection.status).toBe(201);
    // The gate's row is lost on the way: the movement names a gate the cloud does not know.
    const [batch, ...rest] = batchesFrom(pair.edge, 'cloud', 0);
    expect(rest).toHaveLength(0);
    const withoutGate = { ...batch!, rows: batch!.rows.filter((r) => r.entity !== 'gate') };
    const outcome = pair.cloudApplier.apply(SITE, withoutGate);
    expect(outcome).toMatchObject({ deadLetters: 1, upTo: batch!.to, gap: false });
    const letter = pair.cloud.db.sqlite.prepare('SELECT * FROM dead_letter').get() as Record<string, unknown>;
    expect(letter).toMatchObject({ peer: SITE, entity: 'movement', entity_id: moved.id });
    expect(String(letter.error)).toContain('FOREIGN KEY');
    expect(JSON.parse(String(letter.data))).toMatchObject({ op: 'upsert', data: { id: moved.id, gateId } });
    expect(one(pair.cloud, 'SELECT count(*) FROM movement')).toBe(0);
    // The rows after it applied.
    expect(one(pair.cloud, 'SELECT count(*) FROM truck_inspection WHERE id = ?', inspection.body.id)).toBe(1);
    expect(pair.cloudApplier.retryDeadLetters()).toEqual({ retried: 1, applied: 0 });

    // The gate arrives later (renamed at the edge), then the retry applies the movement.
    expect((await edge.patch(`/api/yard/${m.yardId}/gate/${gateId}`, { name: 'Main gate' })).status).toBe(
      200,
    );
    const later = batchesFrom(pair.edge, 'cloud', batch!.to);
    expect(total(later.map((b) => pair.cloudApplier.apply(SITE, b))).deadLetters).toBe(0);
    expect(pair.cloudApplier.retryDeadLetters({ peer: SITE })).toEqual({ retried: 1, applied: 1 });
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM visit WHERE in_movement_id = ?', moved.id)).toBe(1);
    expectSameRows(pair, ['gate', 'movement', 'truck_inspection', 'trailer', 'truck']);
  });

  it('a retried dead letter that a newer change of the row replaced is dropped, not applied', async () => {
    const { m, edge, gateId } = await linkedEdge();
    const [batch] = batchesFrom(pair.edge, 'cloud', 0);
    // The gate's first version arrives broken (a direction the schema refuses): a dead letter.
    const broken: Batch = {
      ...batch!,
      rows: batch!.rows.map((r) =>
        r.entity === 'gate' ? { ...r, data: { ...r.data, direction: 'sideways' } } : r,
      ),
    };
    expect(pair.cloudApplier.apply(SITE, broken).deadLetters).toBe(1);
    pair.clock.advance(1000);
    expect((await edge.patch(`/api/yard/${m.yardId}/gate/${gateId}`, { name: 'Renamed' })).status).toBe(200);
    expect(
      total(batchesFrom(pair.edge, 'cloud', batch!.to).map((b) => pair.cloudApplier.apply(SITE, b))),
    ).toMatchObject({
      applied: 1,
      deadLetters: 0,
    });
    // The old version would now apply, but the stored row is newer: the letter goes, the row stays.
    const letterData = JSON.parse(String(one(pair.cloud, 'SELECT data FROM dead_letter')));
    pair.cloud.db.sqlite
      .prepare('UPDATE dead_letter SET data = ?')
      .run(JSON.stringify({ ...letterData, data: { ...letterData.data, direction: 'both' } }));
    expect(pair.cloudApplier.retryDeadLetters({ peer: SITE })).toEqual({ retried: 1, applied: 1 });
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(one(pair.cloud, 'SELECT name FROM gate WHERE id = ?', gateId)).toBe('Renamed');
    expectSameRows(pair, ['gate']);
  });

  it('rows of an unknown entity or with bad data are dead letters; a movement before the units it names still applies', async () => {
    const { m, edge, gateId } = await linkedEdge();
    const moved = await checkIn(edge, m, gateId);
    const [batch] = batchesFrom(pair.edge, 'cloud', 0);
    const movement = batch!.rows.find((r) => r.entity === 'movement')!;
    // The movement first, before the trailer and truck it names: it is tried again at the end.
    const reordered = [movement, ...batch!.rows.filter((r) => r !== movement)].map((r, i) => ({
      ...r,
      seq: batch!.from + i,
    }));
    const next = batch!.from + reordered.length;
    const bad: Batch = {
      ...batch!,
      rows: [
        ...reordered,
        { seq: next, entity: 'spaceship', id: 'x', op: 'upsert', hlc: movement.hlc, data: {} },
        {
          seq: next + 1,
          entity: 'carrier',
          id: 'c-bad',
          op: 'upsert',
          hlc: movement.hlc,
          data: { id: 'c-bad', name: null },
        },
      ],
      to: next + 1,
    };
    const outcome = pair.cloudApplier.apply(SITE, bad);
    expect(outcome).toMatchObject({ deadLetters: 2, upTo: next + 1 });
    expect(pair.cloud.db.sqlite.prepare('SELECT entity, error FROM dead_letter ORDER BY seq').all()).toEqual([
      { entity: 'spaceship', error: 'unknown entity "spaceship"' },
      { entity: 'carrier', error: expect.stringContaining('NOT NULL') },
    ]);
    expect(one(pair.cloud, 'SELECT count(*) FROM movement WHERE id = ?', moved.id)).toBe(1);
    expect(one(pair.cloud, "SELECT count(*) FROM carrier WHERE id = 'c-bad'")).toBe(0);
  });

  it('keeps rows of a newer schema pending, in order, and applies them after an upgrade', async () => {
    const { m, edge, gateId } = await linkedEdge();
    await checkIn(edge, m, gateId);
    const [first] = batchesFrom(pair.edge, 'cloud', 0);
    const newer = pair.cloudApplier.apply(SITE, { ...first!, schemaV: NEWER_SCHEMA });
    expect(newer).toMatchObject({ pending: first!.rows.length, applied: 0, upTo: first!.to });
    expect(one(pair.cloud, 'SELECT count(*) FROM sync_pending')).toBe(first!.rows.length);
    expect(one(pair.cloud, 'SELECT count(*) FROM movement')).toBe(0);
    // A later batch of the same peer waits behind the parked rows, whatever its schema.
    pair.clock.advance(1000);
    await checkIn(edge, m, gateId, 'TR-2', 'TX2');
    const [second] = batchesFrom(pair.edge, 'cloud', first!.to);
    expect(pair.cloudApplier.apply(SITE, second!)).toMatchObject({
      pending: second!.rows.length,
      applied: 0,
    });
    // This program is still too old: nothing leaves the table.
    expect(pair.cloudApplier.applyPending()).toBe(0);

    const upgraded = new ChangeApplier(pair.cloud.core, { schemaVersion: SCHEMA_VERSION + 1 });
    expect(upgraded.applyPending()).toBe(first!.rows.length + second!.rows.length);
    expect(one(pair.cloud, 'SELECT count(*) FROM sync_pending')).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM visit')).toBe(2);
    expectSameRows(pair, ['gate', 'movement', 'trailer', 'truck']);
    // New batches apply directly again.
    pair.clock.advance(1000);
    await checkIn(edge, m, gateId, 'TR-3', 'TX3');
    expect(total(pair.up().slice(-1))).toMatchObject({ pending: 0, deadLetters: 0 });
  });
});
